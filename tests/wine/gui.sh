#!/usr/bin/env bash
# The Windows build's window under Wine and Xvfb (the GUI half of tests/it/wine.rs, which
# covers the headless commands): opens a report and waits for its Details page, clicks the
# second kernel and checks the page changed, then opens an Nsight Systems export on the
# timeline. Screenshots go to $OUT (default target/wine-gui/) for a person to look at.
#
#   tests/wine/gui.sh [EXE]     EXE: default $SIGHTLINE_WINDOWS_EXE, else
#                               target/x86_64-pc-windows-gnu/release/sightline.exe
#
# Needs Wine, Xvfb, ImageMagick (import, compare) and xdotool (.ci/windows-setup) and the
# Wine prefix the Rust tests create (target/wine/prefix, with its bcryptprimitives.dll: run
# `cargo test --test it wine::` first). Exits non-zero when a window or page does not appear.
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${CARGO_TARGET_DIR:-$PWD/target}
exe=${1:-${SIGHTLINE_WINDOWS_EXE:-$target/x86_64-pc-windows-gnu/release/sightline.exe}}
out=${OUT:-$target/wine-gui}
report=${REPORT:-fixtures/sample.ncu-rep}
export_file=${EXPORT:-fixtures/nsys/synth_2k.sqlite}
wait_s=${WAIT:-90}
mkdir -p "$out"
[ -f "$exe" ] || { echo "no $exe" >&2; exit 1; }
[ -f "$target/wine/prefix/drive_c/windows/system32/bcryptprimitives.dll" ] ||
    { echo "no Wine prefix with bcryptprimitives.dll: run cargo test --test it wine:: first" >&2; exit 1; }

export WINEPREFIX=$target/wine/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
export HOME=$target/wine/home XDG_CACHE_HOME=$target/wine/home/.cache
export XDG_CONFIG_HOME=$target/wine/home/.config XDG_DATA_HOME=$target/wine/home/.local/share
export SIGHTLINE_DISABLE_DEPLOYMENT=1 SIGHTLINE_STARTUP_TRACE=1
display=${XVFB_DISPLAY:-:77}
Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
app=""
cleanup() {
    [ -z "$app" ] || kill "$app" 2>/dev/null || true
    DISPLAY=$display wineserver -k 2>/dev/null || true
    kill "$xvfb" 2>/dev/null || true
}
trap cleanup EXIT
export DISPLAY=$display
sleep 1

# wait_for LOG TEXT: waits until LOG holds TEXT (a startup milestone), or fails.
wait_for() {
    for _ in $(seq 1 $((wait_s * 10))); do
        grep -q "$2" "$1" && return 0
        sleep 0.1
    done
    echo "no \"$2\" within $wait_s s; the app's stderr:" >&2
    cat "$1" >&2
    exit 1
}

# shot NAME: a screenshot of the whole screen into $out/NAME.png.
shot() {
    import -window root "$out/$1.png"
    echo "$out/$1.png"
}

# Start: the report's Details page.
log=$out/details.log
# stdout and stderr through pipes: under Wine 8 the rule interpreter does not start when its
# standard handles are files or /dev/null (README, "Windows").
wine "$exe" "$report" 2> >(cat >"$log") > >(cat >/dev/null) &
app=$!
wait_for "$log" "first Details page"
window=$(xdotool search --sync --name '^Sightline' | head -n 1)
sleep 2
shot details
# Input: click the second kernel of the list, the page must change.
eval "$(xdotool getwindowgeometry --shell "$window")"
xdotool mousemove --window "$window" 120 140 click 1
sleep 3
shot details_kernel1
changed=$(compare -metric AE "$out/details.png" "$out/details_kernel1.png" null: 2>&1 || true)
echo "pixels changed by the click: $changed"
[ "${changed%% *}" != "0" ] || { echo "the window did not answer the click" >&2; exit 1; }
kill "$app"
wait "$app" 2>/dev/null || true
app=""

# The timeline of an Nsight Systems export.
log=$out/timeline.log
wine "$exe" "$export_file" 2> >(cat >"$log") > >(cat >/dev/null) &
app=$!
wait_for "$log" "first frame"
xdotool search --sync --name '^Sightline' >/dev/null
sleep 8
shot timeline
colors=$(identify -format %k "$out/timeline.png")
echo "colors in the timeline screenshot: $colors"
[ "$colors" -gt 50 ] || { echo "the timeline window looks empty" >&2; exit 1; }
echo "window ${WIDTH}x${HEIGHT}; screenshots in $out"
