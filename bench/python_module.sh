#!/usr/bin/env bash
# The Python Report Interface: scripts reading every metric (and every instance) of every
# result of the 2,000-kernel report, as whole processes, with Sightline's module (`pip install
# ./python` into a venv of its own) against NVIDIA's (`ncu-report` from PyPI, ncu-oracle's
# venv), in the same run: bench/python_read_metrics.py (the issue's goal: reads and keeps every
# value, a checksum at the end) and bench/python_every_metric.py (also hashes the repr of every
# name, kind and value, a strict digest: more Python work per value, the same for both).
# Both modules must print the same counts, checksums and digests.
#
#   bench/python_module.sh            # builds the wheel, the report when absent, both runs
#   SKIP_BUILD=1                      # reuse $out/venv-sightline and the release tools
#   REPEATS=3 ORACLE_REPEATS=1        # best of N runs (the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
source bench/lib.sh
repeats=${REPEATS:-3}
oracle_repeats=${ORACLE_REPEATS:-1}
bench_report_tools
report="$data/bench-$kernels.ncu-rep"
[ -f "$report" ] || "$bin/make_bench_report" "$report" "$kernels"
venv="$out/venv-sightline"
if [ -z "${SKIP_BUILD:-}" ] || [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet ./python
fi
[ -f ../shared/tools/ncu-oracle/setup.sh ] || { echo "../shared/tools/ncu-oracle not found" >&2; exit 1; }
nvidia=$(bash ../shared/tools/ncu-oracle/setup.sh | tail -n 1)

echo "run $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "report: $report ($kernels kernels, $(stat -c %s "$report") bytes)"
echo
echo "| module | script | wall s | peak RSS MB | values read |"
echo "|---|---|---|---|---|"
row() {
  local label=$1 n=$2 py=$3 script=$4
  read -r wall kb < <(PYTHONHASHSEED=0 best "$n" "$py" "$script" "$report")
  PYTHONHASHSEED=0 "$py" "$script" "$report" > "$out/python_$label.txt"
  echo "| $label | $(basename "$script") | $wall | $((kb / 1024)) | $(cut -d' ' -f1 "$out/python_$label.txt") |"
  eval "wall_$label=$wall"
}
row sightline_read "$repeats" "$venv/bin/python" bench/python_read_metrics.py
row nvidia_read "$oracle_repeats" "$nvidia" bench/python_read_metrics.py
row sightline_digest "$repeats" "$venv/bin/python" bench/python_every_metric.py
row nvidia_digest "$oracle_repeats" "$nvidia" bench/python_every_metric.py
for kind in read digest; do
  cmp "$out/python_sightline_$kind.txt" "$out/python_nvidia_$kind.txt" ||
    { echo "the two modules read different values ($kind)" >&2; exit 1; }
done
echo
echo "identical values, checksums and digests; Sightline's module" \
  "$(awk "BEGIN{printf \"%.1f\", $wall_nvidia_read / $wall_sightline_read}")x faster reading," \
  "$(awk "BEGIN{printf \"%.1f\", $wall_nvidia_digest / $wall_sightline_digest}")x with the digest"
