#!/usr/bin/env bash
# Seeds fuzz/corpus/section/ (gitignored) with Sightline's own section files and, when
# ../shared is beside the repository, NVIDIA's stock sections and chart files of every version
# (files over 64 KiB are left out: they slow the fuzzer down without adding syntax).
# Usage: fuzz/seed_sections.sh [STOCK_SECTIONS_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stock="${1:-$here/../../shared/reference/ncu}"
corpus="$here/corpus/section"
mkdir -p "$corpus"
count=0
while IFS= read -r -d '' file; do
    [ "$(stat -c %s "$file")" -gt 65536 ] && continue
    name="$(echo "$file" | sed 's|[/ ]|_|g')"
    cp -f "$file" "$corpus/${name: -120}"
    count=$((count + 1))
done < <(find "$here/../sections" "$stock" \( -name '*.section' -o -name '*.chart' \) -print0 2>/dev/null)
echo "seed_sections.sh: $count seed(s) in $corpus"
