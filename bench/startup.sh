#!/usr/bin/env bash
# App startup benchmark: the real window (eframe + glow on Mesa's software OpenGL) under Xvfb.
#
#   bench/startup.sh                     # the bundled sample and the 2,000-kernel report
#   KERNELS=200 bench/startup.sh         # a smaller generated report
#   SCREENSHOT=assets/screenshot.png REPORT=path bench/startup.sh   # also take a screenshot
#   KERNELS=20000 BENCH_DATA=/work/bench-data bench/startup.sh   # the ~2.3 GB report, kept
#                                        # outside the repository (as bench/reader.sh makes it)
#   REPORT=path RUNS=3 bench/startup.sh  # one report, median of 3 runs (default 1 with REPORT)
#   SKIP_BUILD=1 / WAIT=120              # binaries already in $CARGO_TARGET_DIR/release; the
#                                        # seconds to wait for the whole kernel list (default 60)
#
# Starts `sightline REPORT` with SIGHTLINE_STARTUP_TRACE=1, which prints milestones to stderr
# (first frame, first Details page, all kernels listed) in milliseconds since the process
# started, repeats each run RUNS times (default 5) and prints the median of each milestone and
# of the app's peak RSS (VmHWM, read just before the app is stopped).
# Targets: first frame ≤ 500 ms on the sample; the first kernel's Details page of the
# 2,000-kernel (~230 MB) report ≤ 1 s. Needs Xvfb (apt-get install xvfb; imagemagick for
# screenshots). Settings go to a temporary XDG folder, never to the user's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
source bench/lib.sh
runs=${RUNS:-5}
wait_s=${WAIT:-60}
bench_report_tools
big="$data/bench-$kernels.ncu-rep"
[ -n "${REPORT:-}" ] || [ -f "$big" ] || "$bin/make_bench_report" "$big" "$kernels"

display=${XVFB_DISPLAY:-:97}
Xvfb $display -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
home=$(mktemp -d)
trap 'kill $xvfb 2>/dev/null || true; rm -rf "$home"' EXIT
sleep 1

# run_once REPORT LOG: starts the app, waits for "all ... kernels listed" (or $wait_s s), appends
# the app's peak RSS ("peak RSS N kB") to LOG, stops it.
run_once() {
  local report=$1 log=$2
  : > "$log"
  DISPLAY=$display XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" \
    SIGHTLINE_STARTUP_TRACE=1 LIBGL_ALWAYS_SOFTWARE=1 \
    "$bin/sightline" "$report" 2> "$log" &
  local app=$!
  for _ in $(seq 1 $((wait_s * 10))); do
    grep -q "kernels listed" "$log" && break
    sleep 0.1
  done
  if [ -n "${SCREENSHOT:-}" ]; then
    sleep 1.5
    import -display $display -window root -crop 1400x900+0+0 +repage "$SCREENSHOT"
  fi
  echo "peak RSS $(awk '/^VmHWM/ {print $2}' "/proc/$app/status" 2>/dev/null) kB" >> "$log"
  kill $app 2>/dev/null || true
  wait $app 2>/dev/null || true
}

# milestone LOGS... NAME: the median milliseconds of milestone NAME over the logs.
median() {
  sort -n | awk '{a[NR]=$1} END {if (NR==0) print "n/a"; else print a[int((NR+1)/2)]}'
}

measure() {
  local label=$1 report=$2
  local logs=()
  for i in $(seq 1 "$runs"); do
    run_once "$report" "$out/startup-$i.log"
    logs+=("$out/startup-$i.log")
  done
  local size
  size=$(stat -c %s "$report")
  echo "| $label | $((size / 1000000)) MB | $(grep -h "first frame" "${logs[@]}" | awk '{print $(NF-1)}' | median) ms | $(grep -h "first Details page" "${logs[@]}" | awk '{print $(NF-1)}' | median) ms | $(grep -h "kernels listed" "${logs[@]}" | awk '{print $(NF-1)}' | median) ms | $(grep -h "^peak RSS" "${logs[@]}" | awk '{printf "%.0f\n", $3 / 1024}' | median) MB |"
}

if [ -n "${REPORT:-}" ]; then
  echo "| report | size | first frame | first Details page | all kernels listed | peak RSS |"
  echo "|---|---|---|---|---|---|"
  runs=${RUNS:-1} measure "$(basename "$REPORT")" "$REPORT"
  exit 0
fi
echo "| report | size | first frame | first Details page | all kernels listed | peak RSS |"
echo "|---|---|---|---|---|---|"
measure "bundled sample" fixtures/sample.ncu-rep
measure "generated, $kernels kernels" "$big"
