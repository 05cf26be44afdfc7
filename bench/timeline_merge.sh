#!/usr/bin/env bash
# Several exports on one timeline (issue 26): loading N copies of a generated export merged
# (`sightline timeline A B ...`) against loading one, per event — merging should cost what the
# files cost alone. The exports come from crates/test-support/src/bin/make_nsys_export.rs.
#
#   bench/timeline_merge.sh                      # 10 M events, 2 files
#   EVENTS=1000000 FILES=4 bench/timeline_merge.sh
#   SKIP_BUILD=1 bench/timeline_merge.sh         # use the binaries already built
#
# Prints wall time and peak RSS (/usr/bin/time) of one file and of the merged files, and the
# model's bytes per event; results go to bench/out/timeline_merge.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
source bench/lib.sh   # build_nsys_tools()
build_nsys_tools
bin="$CARGO_TARGET_DIR/release/sightline"
events=${EVENTS:-10000000}
files=${FILES:-2}
data=${DATA:-/tmp/sightline-nsys-bench}
mkdir -p "$data"
first="$data/nsys_${events}_t4_s8_seed1.sqlite"
[ -f "$first" ] || "$CARGO_TARGET_DIR/release/make_nsys_export" "$first" "$events" --threads 4 --streams 8 --seed 1
inputs=("$first")
for k in $(seq 2 "$files"); do
  copy="$data/nsys_${events}_rank$k.sqlite"
  [ -f "$copy" ] || cp "$first" "$copy"
  inputs+=("$copy")
done
run() {
  /usr/bin/time -f "%e %M" "$bin" timeline "$@" --timing 2>&1 >/dev/null | tail -n 2
}
one=$(run "$first" --no-nvtxt)
all=$(run "${inputs[@]}")
{
  echo "## timeline_merge: $files × $events events ($(date -u +%F))"
  echo
  echo '```'
  echo "one file:   $one"
  echo "$files merged: $all"
  echo '```'
} | tee "$out/timeline_merge.md"
