#!/usr/bin/env bash
# Cancel in the real app (issue 25 item 4): opens a ~1 GB CodeXL trace and a ~1 GB NVTXT file
# under Xvfb, clicks Cancel in the status bar while the file is being read, and prints the
# process's resident memory before the click and every 0.5 s after it.
#
#   bench/cancel.sh          # generates /tmp/codexl_bench.atp and /tmp/big.nvtxt once
#   WAIT=2.5 bench/cancel.sh # seconds between opening and clicking Cancel
#
# Needs Xvfb and xdotool (apt-get install xvfb xdotool). The window is 1600×1000 at the top
# left, so the status bar's Cancel button is at (242, 987).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet --bin sightline
cargo build --release --quiet -p sightline-test-support --bin make_codexl --bin make_nvtxt
bin="$CARGO_TARGET_DIR/release"
[ -s /tmp/codexl_bench.atp ] || "$bin/make_codexl" atp /tmp/codexl_bench.atp --size 1000000000
[ -s /tmp/big.nvtxt ] || "$bin/make_nvtxt" /tmp/big.nvtxt --bytes 1000000000
export DISPLAY=${DISPLAY:-:81}
Xvfb "$DISPLAY" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 1
home=$(mktemp -d)
for file in /tmp/codexl_bench.atp /tmp/big.nvtxt; do
  HOME=$home XDG_CONFIG_HOME=$home/.config XDG_DATA_HOME=$home/.local/share \
    "$bin/sightline" "$file" >/dev/null 2>&1 &
  app=$!
  window=$(xdotool search --sync --pid "$app" | head -1)
  xdotool windowsize "$window" 1600 1000
  xdotool windowmove "$window" 0 0
  sleep "${WAIT:-1.2}"
  echo "$file: before Cancel $(grep VmRSS /proc/$app/status)"
  xdotool mousemove 242 987 click 1
  for t in 0.5 1.0 1.5 2.0; do
    sleep 0.5
    echo "  ${t} s after Cancel: $(grep VmRSS /proc/$app/status)"
  done
  kill "$app"
done
