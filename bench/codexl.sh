#!/usr/bin/env bash
# Loads a generated ~1 GB CodeXL .atp trace (>= 5 M API calls) with the release build on one
# core and reports MB/s and the bytes held in memory per API call and per timeline event.
# There is no maintained peer reader of .atp files (CodeXL is archived); `wc -l` on the same
# file, in the same run, gives the single-core line-scanning baseline.
#
#   bench/codexl.sh                 # generates /tmp/codexl_bench.atp once, then measures
#   SIZE=200000000 bench/codexl.sh  # a smaller trace
#   ATP=/path/file.atp bench/codexl.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/work/target-release}"
SIZE="${SIZE:-1000000000}"
ATP="${ATP:-/tmp/codexl_bench.atp}"
RUNS="${RUNS:-3}"
OUT=bench/out/codexl.md
mkdir -p bench/out

cargo build --release --bin sightline && cargo build --release -p sightline-test-support --bin make_codexl
BIN="$CARGO_TARGET_DIR/release/make_codexl"
SIGHTLINE="$CARGO_TARGET_DIR/release/sightline"

if [[ ! -s "$ATP" ]]; then
    "$BIN" atp "$ATP" --size "$SIZE"
fi
cat "$ATP" > /dev/null   # page cache warm for every contender

best_wc=""
for _ in $(seq "$RUNS"); do
    start=$(date +%s.%N)
    taskset -c 0 wc -l "$ATP" > /dev/null
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc)
    if [[ -z "$best_wc" ]] || (( $(echo "$t < $best_wc" | bc) )); then best_wc=$t; fi
done

best=""
best_report=""
for _ in $(seq "$RUNS"); do
    report=$(taskset -c 0 /usr/bin/time -f "peak RSS: %M KB" "$BIN" measure "$ATP" 2>&1)
    t=$(echo "$report" | sed -n 's/^load: \([0-9.]*\) s.*/\1/p')
    if [[ -z "$best" ]] || (( $(echo "$t < $best" | bc) )); then best=$t; best_report=$report; fi
done

# The whole path to the timeline: map + parse + timeline model, per-call records and mapped
# pages released (what `sightline FILE.atp` shows).
best_tl=""
best_tl_report=""
for _ in $(seq "$RUNS"); do
    report=$(taskset -c 0 /usr/bin/time -f "peak RSS: %M KB" "$SIGHTLINE" timeline "$ATP" --timing 2>&1 >/dev/null)
    t=$(echo "$report" | sed -n 's/^timing: loaded [0-9]* events in \([0-9.]*\) s.*/\1/p')
    if [[ -z "$best_tl" ]] || (( $(echo "$t < $best_tl" | bc) )); then best_tl=$t; best_tl_report=$report; fi
done

bytes=$(stat -c %s "$ATP")
{
    echo "## CodeXL .atp load ($(date -u +%F), release, one core: taskset -c 0, best of $RUNS)"
    echo
    echo '```'
    echo "$best_report"
    echo "wc -l (baseline, same file, same core): ${best_wc} s, $(echo "scale=1; $bytes / 1000000 / $best_wc" | bc) MB/s"
    echo "on the timeline (sightline timeline --timing): $best_tl_report"
    echo "  = $(echo "scale=1; $bytes / 1000000 / $best_tl" | bc) MB/s to the timeline"
    echo '```'
} | tee "$OUT"
