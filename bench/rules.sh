#!/usr/bin/env bash
# Rule engine benchmark: Sightline's embedded RustPython against CPython on NVIDIA's reader
# (ncu-oracle's rules_cpython.py), both running NVIDIA's 2024.1.1 stock rules unmodified.
#
#   bench/rules.sh
#
# Cases: all 100 kernels of ncu2023.2.0_rtx3080_fuzigrad_100kernels, and the first kernel of
# ncu2024.1.1_gtx1660s_vec_add_full. Prints a Markdown table (best wall time of 5 runs, with the
# engines' own figures: interpreter ready, apply time) to bench/out/rules.md.
# Needs ../shared beside the repository (rules, corpus, ncu-oracle).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
if [ ! -d "$shared/reference/ncu/rules/ncu-2024.1.1" ]; then
  echo "bench/rules.sh needs ../shared (NVIDIA's stock rules and the corpus)" >&2
  exit 1
fi
out=bench/out
mkdir -p "$out"
cargo build --release --quiet --bin sightline
rules=$shared/reference/ncu/rules/ncu-2024.1.1
reports=$shared/corpus/ncu/reports
py=$(bash "$shared/tools/ncu-oracle/setup.sh" | tail -n 1)
oracle="$shared/tools/ncu-oracle/rules_cpython.py"
results="$out/rules.md"
printf '| case | tool | best wall s (5 runs) | engine figures (best run) |\n|---|---|---|---|\n' > "$results"

# measure CASE TOOL CMD...: best wall time of 5 runs; stderr of that run holds the figures.
measure() {
  local case=$1 tool=$2; shift 2
  local best="" figures=""
  for _ in 1 2 3 4 5; do
    local start end wall
    start=$(date +%s.%N)
    "$@" > "$out/rules_stdout.json" 2> "$out/rules_stderr.txt"
    end=$(date +%s.%N)
    wall=$(awk "BEGIN{printf \"%.3f\", $end - $start}")
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
      best=$wall
      figures=$(tr '\n' ' ' < "$out/rules_stderr.txt")
    fi
  done
  printf '| %s | %s | %s | %s |\n' "$case" "$tool" "$best" "$figures" | tee -a "$results"
}

fuzi=$reports/ncu2023.2.0_rtx3080_fuzigrad_100kernels.ncu-rep
full=$reports/ncu2024.1.1_gtx1660s_vec_add_full.ncu-rep
measure "fuzigrad, 100 kernels" sightline target/release/sightline rules "$fuzi" --rules-folder "$rules" --json --timing
measure "fuzigrad, 100 kernels" cpython "$py" "$oracle" "$fuzi" "$rules" --time
measure "vec_add full, kernel 0" sightline target/release/sightline rules "$full" --rules-folder "$rules" --kernel 0 --json --timing
measure "vec_add full, kernel 0" cpython "$py" "$oracle" "$full" "$rules" --time
rm -f "$out/rules_stdout.json" "$out/rules_stderr.txt"
echo "results in $results"
