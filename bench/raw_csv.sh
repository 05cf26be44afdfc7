#!/usr/bin/env bash
# Raw page benchmark (issue 24 item 6): `sightline raw REPORT --csv` (every metric of every
# kernel as `ncu --import REPORT --page raw --csv` prints it) against NVIDIA's readers dumping
# the same report, in the same run: the Python reader (`../shared/tools/ncu-oracle/dump.py`, the
# full dump of every metric) and, when installed, the 2024.1 command line itself
# (`../shared/tools/ncu-cli-oracle`, `ncu --import REPORT --page raw --csv`).
#
#   bench/raw_csv.sh                     # the 2,000-kernel report of bench/reader.sh (~229 MB)
#   KERNELS=200 bench/raw_csv.sh         # a smaller report
#   REPEATS=1 bench/raw_csv.sh           # one run each (default: best of 3)
#   SKIP_BUILD=1 bench/raw_csv.sh        # use the binaries already in $CARGO_TARGET_DIR/release
#   SKIP_PYTHON=1 / SKIP_CLI=1           # leave a peer out
#   CORPUS_REPORT=R                      # the report for the second table (default: the corpus's
#                                        # 100-kernel report, which ncu 2024.1 reads)
#
# Wall time and peak RSS (`/usr/bin/time`) of the best run of each command; the output size.
# ncu 2024.1.1 crashes (SIGSEGV) on the generated report's raw page, so a second table times
# both CSV writers on a corpus report that ncu reads, and compares their outputs.
# Results go to bench/out/raw_csv.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --locked --quiet --bin sightline -p sightline -p sightline-test-support --bin make_bench_report
kernels=${KERNELS:-2000}
repeats=${REPEATS:-3}
report="$out/bench-$kernels.ncu-rep"
[ -f "$report" ] || "$CARGO_TARGET_DIR/release/make_bench_report" "$report" "$kernels"
size=$(stat -c %s "$report")

source bench/lib.sh   # best()

results="$out/raw_csv.md"
{
  echo "report: $report ($kernels kernels, $((size / 1000000)) MB)"
  echo
  echo "| command | wall s | peak RSS MB | output MB |"
  echo "|---|---|---|---|"
} > "$results"
# row LABEL OUTFILE CMD...: best of $repeats runs; with an OUTFILE, one more run keeps the
# output there (for the size and the comparison).
row() {
  local label=$1 file=$2; shift 2
  local wall rss mb="-"
  read -r wall rss < <(best "$repeats" "$@")
  if [ -n "$file" ]; then
    "$@" > "$file" 2> /dev/null
    mb=$(awk "BEGIN{printf \"%.1f\", $(stat -c %s "$file")/1000000}")
  fi
  printf '| %s | %s | %.1f | %s |\n' "$label" "$wall" "$(awk "BEGIN{print $rss/1024}")" "$mb" \
    | tee -a "$results"
}

row "sightline raw --csv" "$out/raw_sightline.csv" "$CARGO_TARGET_DIR/release/sightline" raw "$report" --csv
if [ -z "${SKIP_CLI:-}" ] && [ -f ../shared/tools/ncu-cli-oracle/setup.sh ]; then
  ncu=$(bash ../shared/tools/ncu-cli-oracle/setup.sh 2> /dev/null | tail -n 1)
  home=$(mktemp -d)
  # ncu copies its section files into $HOME on every start: a scratch HOME.
  cli=(env HOME="$home" "$ncu" --import "$report" --page raw --csv)
  status=0
  "${cli[@]}" > "$out/raw_ncu.csv" 2> /dev/null || status=$?
  if [ "$status" -ne 0 ]; then
    # 2024.1.1 dies with SIGSEGV (exit 139) on the generated report's raw page.
    echo "| ncu --import --page raw --csv (2024.1.1) | failed (exit $status) | - | - |" | tee -a "$results"
  else
    row "ncu --import --page raw --csv (2024.1.1)" "$out/raw_ncu.csv" "${cli[@]}"
    if cmp -s "$out/raw_sightline.csv" "$out/raw_ncu.csv"; then
      echo "identical to ncu's output" | tee -a "$results"
    else
      echo "differs from ncu's output: $(cmp "$out/raw_sightline.csv" "$out/raw_ncu.csv" | head -n 1)" | tee -a "$results"
    fi
  fi
  rm -rf "$home"
fi
if [ -z "${SKIP_PYTHON:-}" ] && [ -f ../shared/tools/ncu-oracle/setup.sh ]; then
  py=$(bash ../shared/tools/ncu-oracle/setup.sh | tail -n 1)
  row "dump.py (NVIDIA's Python reader, full dump)" "" \
    "$py" ../shared/tools/ncu-oracle/dump.py "$report"
fi
# The command line's own speed on a report it reads: the corpus's 100-kernel report.
corpus=${CORPUS_REPORT:-../shared/corpus/ncu/reports/ncu2023.2.0_rtx3080_fuzigrad_100kernels.ncu-rep}
if [ -z "${SKIP_CLI:-}" ] && [ -f "$corpus" ] && [ -n "${ncu:-}" ]; then
  {
    echo
    echo "$(basename "$corpus") ($(($(stat -c %s "$corpus") / 1000)) kB):"
    echo
    echo "| command | wall s | peak RSS MB | output MB |"
    echo "|---|---|---|---|"
  } | tee -a "$results"
  row "sightline raw --csv" "$out/raw_sightline.csv" "$CARGO_TARGET_DIR/release/sightline" raw "$corpus" --csv
  home=$(mktemp -d)
  row "ncu --import --page raw --csv (2024.1.1)" "$out/raw_ncu.csv" \
    env HOME="$home" "$ncu" --import "$corpus" --page raw --csv
  rm -rf "$home"
  if cmp -s "$out/raw_sightline.csv" "$out/raw_ncu.csv"; then
    echo "identical outputs" | tee -a "$results"
  else
    echo "outputs differ: $(cmp "$out/raw_sightline.csv" "$out/raw_ncu.csv" | head -n 1)" | tee -a "$results"
  fi
fi
rm -f "$out/raw_sightline.csv" "$out/raw_ncu.csv"
echo "results in $results"
