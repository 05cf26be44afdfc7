#!/usr/bin/env bash
# Reader benchmark: Sightline against NVIDIA's official reader (ncu-oracle's dump.py) on the
# same large report, in the same run.
#
#   bench/reader.sh                 # 2,000-kernel report (~230 MB), all measurements
#   KERNELS=200 bench/reader.sh     # a smaller report
#   SKIP_ORACLE_FULL=1 bench/reader.sh   # skip the official reader's full dump (~100+ s)
#
# Prints a Markdown table (wall time and peak RSS of each command) and checks that both tools
# print identical JSON. Needs ../shared/tools/ncu-oracle beside the repository for the peer.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
kernels=${KERNELS:-2000}
cargo build --release --quiet --bin sightline && cargo build --release --quiet -p sightline-test-support --bin make_bench_report
report="$out/bench-$kernels.ncu-rep"
[ -f "$report" ] || target/release/make_bench_report "$report" "$kernels"
size=$(stat -c %s "$report")
last=$((kernels - 1))

oracle=""
if [ -f ../shared/tools/ncu-oracle/setup.sh ]; then
  py=$(bash ../shared/tools/ncu-oracle/setup.sh | tail -n 1)
  oracle="$py ../shared/tools/ncu-oracle/dump.py"
else
  echo "note: ../shared/tools/ncu-oracle not found; measuring Sightline only" >&2
fi

results="$out/results.md"
printf '| command | wall s | peak RSS MB |\n|---|---|---|\n' > "$results"
# measure LABEL OUTFILE REPEATS CMD...: best wall time of REPEATS runs, peak RSS of that run.
measure() {
  local label=$1 outfile=$2 repeats=$3; shift 3
  local best="" rss=""
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > "$outfile"
    read -r wall kb < "$out/time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; rss=$kb; fi
  done
  printf '| %s | %s | %.1f |\n' "$label" "$best" "$(awk "BEGIN{print $rss/1024}")" | tee -a "$results"
}

echo "report: $report ($kernels kernels, $((size / 1000000)) MB)"
measure "sightline dump --kernel 0" "$out/s_k0.json" 5 target/release/sightline dump "$report" --kernel 0
measure "sightline dump --kernel $last" "$out/s_klast.json" 5 target/release/sightline dump "$report" --kernel "$last"
measure "sightline dump (full)" "$out/s_full.json" 1 target/release/sightline dump "$report"
if [ -n "$oracle" ]; then
  measure "dump.py --kernel 0" "$out/o_k0.json" 3 $oracle "$report" --kernel 0
  measure "dump.py --kernel $last" "$out/o_klast.json" 3 $oracle "$report" --kernel "$last"
  cmp "$out/s_k0.json" "$out/o_k0.json" && echo "kernel 0: identical output"
  cmp "$out/s_klast.json" "$out/o_klast.json" && echo "kernel $last: identical output"
  if [ -z "${SKIP_ORACLE_FULL:-}" ]; then
    measure "dump.py (full)" "$out/o_full.json" 1 $oracle "$report"
    cmp "$out/s_full.json" "$out/o_full.json" && echo "full dump: identical output"
  fi
fi
rm -f "$out"/s_full.json "$out"/o_full.json
echo "file size: $size bytes; results in $results"
