#!/usr/bin/env bash
# Seeds fuzz/corpus/reader/ (gitignored) with the project's fixtures and the real reports of the
# shared corpus that are at most MAX_SEED_BYTES (default 512 KiB: the fuzzer runs ~10x faster without the 1-2 MB reports),
# plus zstd-compressed copies of them (.ncu-repz path) when the `zstd` tool is installed.
# fuzz/regressions/ is not copied: until the reader is fixed its inputs crash the fuzzer at
# start-up (run them one by one instead, see README.md).
# Usage: fuzz/seed.sh [REPORTS_DIR]   (default: ../shared/corpus/ncu/reports beside the repo)
#        MAX_SEED_BYTES=2097152 fuzz/seed.sh   (all reports; then run with -max_len=2097152)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
reports="${1:-$here/../../shared/corpus/ncu/reports}"
corpus="$here/corpus/reader"
if ! compgen -G "$reports/*.ncu-rep" > /dev/null; then
    echo "seed.sh: no .ncu-rep files in $reports; pass the reports folder as an argument" >&2
    exit 1
fi
mkdir -p "$corpus"
count=0
max_bytes="${MAX_SEED_BYTES:-524288}"
for report in "$reports"/*.ncu-rep; do
    if [ "$(stat -c %s "$report")" -gt "$max_bytes" ]; then
        continue
    fi
    name="$(basename "$report")"
    cp -f "$report" "$corpus/$name"
    chmod u+w "$corpus/$name"
    count=$((count + 1))
    if command -v zstd > /dev/null; then
        zstd -q -f -19 "$report" -o "$corpus/${name}z"
        chmod u+w "$corpus/${name}z"
        count=$((count + 1))
    fi
done
# The project's own fixtures: reproductions of format facts of real reports (late string-only
# blocks, sampler metrics, NaN values, derived metrics of several versions).
for fixture in "$here"/../fixtures/*.ncu-rep; do
    [ -f "$fixture" ] || continue
    name="fixture-$(basename "$fixture")"
    cp -f "$fixture" "$corpus/$name"
    chmod u+w "$corpus/$name"
    count=$((count + 1))
done
echo "seed.sh: $count seed(s) in $corpus"
