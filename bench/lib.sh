# Shared by the bench scripts (sourced; they set $out first).

# build_nsys_tools: the release `sightline` and `make_nsys_export`, unless SKIP_BUILD is set
# (then the binaries already in $CARGO_TARGET_DIR/release are used).
build_nsys_tools() {
  [ -n "${SKIP_BUILD:-}" ] || {
    cargo build --release --quiet --bin sightline &&
      cargo build --release --quiet -p sightline-test-support --bin make_nsys_export
  }
}

# bench_report_tools: the release `sightline` and `make_bench_report`, unless SKIP_BUILD is set
# (then the binaries already in $CARGO_TARGET_DIR/release are used); sets $bin (their folder),
# $kernels (KERNELS, default 2000) and $data (BENCH_DATA, default $out, created).
bench_report_tools() {
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
  bin="$CARGO_TARGET_DIR/release"
  kernels=${KERNELS:-2000}
  data=${BENCH_DATA:-$out}
  mkdir -p "$data"
  [ -n "${SKIP_BUILD:-}" ] || cargo build --release --locked --quiet --bin sightline -p sightline -p sightline-test-support --bin make_bench_report
}

# best REPEATS CMD...: prints "wall_s peak_rss_kb" of the fastest of REPEATS runs; the stderr
# of that run is left in $out/best_stderr.txt.
best() {
  local repeats=$1; shift
  local best="" rss=""
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > /dev/null 2> "$out/stderr.txt" || { cat "$out/stderr.txt" >&2; return 1; }
    read -r wall kb < "$out/time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; rss=$kb; cp "$out/stderr.txt" "$out/best_stderr.txt"; fi
  done
  echo "$best $rss"
}
