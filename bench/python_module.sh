#!/usr/bin/env bash
# The Python Report Interface: a script reading every metric (and every instance) of every
# result of the 2,000-kernel report (bench/python_every_metric.py), as a whole process, with
# Sightline's module (`pip install ./python` into a venv of its own) against NVIDIA's
# (`ncu-report` from PyPI, ncu-oracle's venv), in the same run. Both must print the same count
# and digest.
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
echo "| module | wall s | peak RSS MB | values read |"
echo "|---|---|---|---|"
row() {
  local label=$1 n=$2 py=$3
  read -r wall kb < <(best "$n" "$py" bench/python_every_metric.py "$report")
  "$py" bench/python_every_metric.py "$report" > "$out/python_$label.txt"
  echo "| $label | $wall | $((kb / 1024)) | $(cut -d' ' -f1 "$out/python_$label.txt") |"
  eval "wall_$label=$wall"
}
row sightline "$repeats" "$venv/bin/python"
row nvidia "$oracle_repeats" "$nvidia"
cmp "$out/python_sightline.txt" "$out/python_nvidia.txt" || { echo "the two modules read different values" >&2; exit 1; }
echo
echo "identical values and digest; Sightline's module $(awk "BEGIN{printf \"%.1f\", $wall_nvidia / $wall_sightline}")x faster"
