#!/usr/bin/env bash
# The Python Report Interface's first answer on a big report (issue 47: "a 2 GB report's first
# metric in <= 1 s"): bench/python_first_metric.py with Sightline's module and NVIDIA's, in the
# same run, each with the report evicted from the page cache (cold) and then cached (warm).
# The report alone is evicted, with posix_fadvise(DONTNEED) (no root, and the other processes'
# caches are left alone); `fincore` shows what stays resident when it is installed.
#
#   bench/python_first_metric.sh                      # 18,000 kernels (2.06 GB)
#   KERNELS=18000 BENCH_DATA=DIR                      # the report's size and folder
#   SIGHTLINE_PY=.../bin/python                       # a venv with `pip install ./python`
#   SKIP_BUILD=1 REPEATS=3                            # warm runs: best of REPEATS
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
source bench/lib.sh
export KERNELS=${KERNELS:-18000}
repeats=${REPEATS:-3}
bench_report_tools
report="$data/bench-$kernels.ncu-rep"
[ -f "$report" ] || "$bin/make_bench_report" "$report" "$kernels"
sightline=${SIGHTLINE_PY:-$out/venv-sightline/bin/python}
if [ ! -x "$sightline" ]; then
  python3 -m venv "$out/venv-sightline"
  "$out/venv-sightline/bin/pip" install --quiet ./python
fi
nvidia=$(bash ../shared/tools/ncu-oracle/setup.sh | tail -n 1)

evict() {
  python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)' "$1"
  if command -v fincore > /dev/null; then
    echo "  resident after eviction: $(fincore --noheadings --output RES "$1")"
  fi
}
first() {
  "$1" bench/python_first_metric.py "$report"
}

echo "run $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "report: $report ($kernels kernels, $(stat -c %s "$report") bytes)"
for module in sightline nvidia; do
  py=${!module}
  evict "$report"
  echo "$module cold: $(first "$py")"
  for _ in $(seq "$repeats"); do
    echo "$module warm: $(first "$py")"
  done
done
