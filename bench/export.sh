#!/usr/bin/env bash
# Export benchmark (issue 26 item 3): `sightline export` of generated Nsight Systems exports
# (crates/test-support/src/bin/make_nsys_export.rs, as bench/timeline.sh makes them: kernels on 8
# streams with their launching calls, nested NVTX, memcpy/memset, OS runtime) to a Perfetto
# protobuf trace and to Chrome JSON: wall time and peak RSS (`/usr/bin/time`), the whole command
# (load the export, lay out, write the trace).
#
#   bench/export.sh                    # 1 M and 10 M events
#   SIZES="1000000" bench/export.sh    # only 1 M
#   SKIP_BUILD=1 bench/export.sh       # use the binaries already in $CARGO_TARGET_DIR/release
#   INPUTS=/tmp/sightline-nsys-bench   # take nsys_<N>_t4_s8_seed1.sqlite from there when present
#
# Best wall time of REPEATS runs (default 2). Goal at 10 M events: ≤ 10 s and ≤ 1 GB peak RSS.
# Results go to bench/out/export.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
source bench/lib.sh   # build_nsys_tools(), best()
build_nsys_tools
mkdir -p "$out/bin"
cp "$CARGO_TARGET_DIR/release/sightline" "$out/bin/"
gen="$CARGO_TARGET_DIR/release/make_nsys_export"
bin="$out/bin/sightline"
repeats=${REPEATS:-2}
inputs=${INPUTS:-/tmp/sightline-nsys-bench}


results="$out/export.md"
{
  echo "| events | format | wall s | peak RSS MB | output MB | summary |"
  echo "|---|---|---|---|---|---|"
} > "$results"

for n in ${SIZES:-1000000 10000000}; do
  file="$inputs/nsys_${n}_t4_s8_seed1.sqlite"
  if [ ! -f "$file" ]; then
    file="$out/nsys_$n.sqlite"
    if [ ! -f "$file" ]; then
      "$gen" "$file" "$n" > /dev/null
    fi
  fi
  cat "$file" > /dev/null   # warm the page cache
  for format in perfetto chrome-json; do
    ext=perfetto-trace; [ "$format" = chrome-json ] && ext=json
    trace="$out/export_$n.$ext"
    read -r wall kb < <(best "$repeats" "$bin" export "$file" --format "$format" -o "$trace")
    summary=$(grep '^exported' "$out/best_stderr.txt" || true)
    mb=$(awk "BEGIN{printf \"%.0f\", $(stat -c %s "$trace") / 1e6}")
    rss=$(awk "BEGIN{printf \"%.0f\", $kb / 1024}")
    echo "| $n | $format | $wall | $rss | $mb | $summary |" >> "$results"
    echo "$n $format: $wall s, $rss MB: $summary" >&2
    rm -f "$trace"
  done
done
cat "$results"
