#!/usr/bin/env bash
# `sightline stats` (all 37 nsys stats reports) and `sightline analyze` (the expert rules) against
# NVIDIA's `nsys stats` / `nsys analyze` (2023.4, from ../shared/tools/nsys-oracle) on the same
# generated Nsight Systems export, in the same run.
#
#   bench/nsys_reports.sh                 # 10,000,000 events
#   bench/nsys_reports.sh 1000000         # another size (first argument: events)
#   SKIP_NSYS=1 bench/nsys_reports.sh     # Sightline only
#   SKIP_BUILD=1 bench/nsys_reports.sh    # use the binaries already in $CARGO_TARGET_DIR/release
#   NSYS_REPORTS=osrt_sum,nvtx_sum ...    # time nsys stats on these reports only (for a size at
#                                         # which all 37 would take too long); the table says so
#
# The export comes from crates/test-support/src/bin/make_nsys_export.rs (seed 1, THREADS=4
# threads, STREAMS=8 streams: kernels with their launching calls, nested NVTX, memcpy/memset,
# OS runtime; the 2024.5 schema) and is kept in $BENCH_DIR (default /tmp/sightline-nsys-bench),
# so a rerun of the same size reuses it. It measures, with /usr/bin/time (wall, CPU = user + sys,
# peak RSS):
#   - `sightline stats FILE --report ALL37 --format csv --output PREFIX` (one process; nothing is
#     printed), best of REPEATS (default 3);
#   - each report alone (`--report R`, one process each, best of REPEATS): the slowest one;
#   - `sightline analyze FILE --format csv --output PREFIX --timing` (all of Sightline's rules;
#     each rule's own time from --timing), best of REPEATS; `--timeout $ANALYZE_TIMEOUT` (default
#     3600 s) so a rule is not cut off by the default 10 s budget at large sizes;
#   - `nsys stats --report ALL37 --format csv --output PREFIX` and `nsys analyze --rule SAME
#     --format csv --output PREFIX`, once each (one process each, like Sightline), on a fresh copy
#     of the export (nsys must not see a file another run touched). Both sides run Sightline's
#     rules (nsys 2023.4 has seven; a rule or report Sightline lacks is named on stderr).
# Then it compares, report by report and rule by rule, Sightline's CSV with nsys's byte for byte
# and lists any that differ or that only one side wrote (nsys's SKIPPED lines are in
# $BENCH_DIR/run_N/nsys_*.log). Results go to bench/out/nsys_reports.md.
# Needs /usr/bin/time; nsys needs ../shared beside the repository (skipped with a note if absent).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000000}
threads=${THREADS:-4}
streams=${STREAMS:-8}
repeats=${REPEATS:-3}
analyze_timeout=${ANALYZE_TIMEOUT:-3600}
bench_dir=${BENCH_DIR:-${TMPDIR:-/tmp}/sightline-nsys-bench}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
out=bench/out
mkdir -p "$out" "$bench_dir"

if [ -z "${SKIP_BUILD:-}" ]; then
  cargo build --release --locked --quiet --bin sightline
  cargo build --release --locked --quiet -p sightline-test-support --bin make_nsys_export
fi
# Copies, so a build running beside the benchmark cannot swap the binaries mid-run.
mkdir -p "$bench_dir/bin"
cp "$CARGO_TARGET_DIR/release/sightline" "$CARGO_TARGET_DIR/release/make_nsys_export" "$bench_dir/bin/"
sl="$bench_dir/bin/sightline"
gen="$bench_dir/bin/make_nsys_export"

nsys=""
if [ -z "${SKIP_NSYS:-}" ] && [ -f ../shared/tools/nsys-oracle/setup.sh ]; then
  nsys=$(bash ../shared/tools/nsys-oracle/setup.sh 2>/dev/null | tail -n 1)
elif [ -z "${SKIP_NSYS:-}" ]; then
  echo "note: ../shared/tools/nsys-oracle not found: no nsys figures (Sightline only)" >&2
fi

# The export, generated once per size and kept.
file="$bench_dir/nsys_${n}_t${threads}_s${streams}_seed1.sqlite"
if [ ! -f "$file" ]; then
  echo "generating $file ($n events) ..." >&2
  rm -f "$file.part"
  "$gen" "$file.part" "$n" --threads "$threads" --streams "$streams" --seed 1 > "$file.txt.part"
  mv "$file.part" "$file"
  sed "s|$file.part|$file|" "$file.txt.part" > "$file.txt" && rm -f "$file.txt.part"
fi
events=$(sed -nE 's/.*: ([0-9]+) events.*/\1/p' "$file.txt")
counts=$(sed -nE 's/.*events \((.*)\)/\1/p' "$file.txt")
mb=$(awk "BEGIN{printf \"%.0f\", $(stat -c %s "$file") / 1e6}")
cat "$file" > /dev/null   # warm the page cache

run="$bench_dir/run_$n"
rm -rf "$run"
mkdir -p "$run"/sl "$run"/sl1 "$run"/ns "$run"/sla "$run"/nsa "$run"/time

# The reports and rules, as Sightline lists them.
mapfile -t reports < <("$sl" stats --help-reports | sed -nE 's/^  ([a-z0-9_]+)$/\1/p')
mapfile -t rules < <("$sl" analyze --help-rules | sed -nE 's/^([a-z0-9_]+) -- .*/\1/p')
[ ${#reports[@]} -ge 30 ] || { echo "could not read the report list from 'sightline stats --help-reports'" >&2; exit 1; }
[ ${#rules[@]} -ge 1 ] || { echo "could not read the rule list from 'sightline analyze --help-rules'" >&2; exit 1; }
all_reports=$(IFS=,; echo "${reports[*]}")
all_rules=$(IFS=,; echo "${rules[*]}")

# timed FILE CMD...: runs CMD (stdout and stderr to FILE.err) and writes "wall cpu peak_rss_kb"
# to FILE.
timed() {
  local f=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$f.raw" "$@" > "$f.err" 2>&1 || { cat "$f.err" >&2; return 1; }
  awk '{printf "%.2f %.2f %d\n", $1, $2 + $3, $4}' "$f.raw" > "$f"
}
# best REPEATS NAME CMD...: the fastest (wall) of REPEATS runs; its figures in $run/time/NAME,
# its stderr in $run/time/NAME.err. Prints "wall cpu rss".
best() {
  local reps=$1 name=$2; shift 2
  local b="" t=$run/time/$name
  for _ in $(seq "$reps"); do
    timed "$t.try" "$@"
    read -r wall _ < "$t.try"
    if [ -z "$b" ] || awk "BEGIN{exit !($wall < $b)}"; then
      b=$wall; cp "$t.try" "$t"; cp "$t.try.err" "$t.err"
    fi
  done
  cat "$t"
}

echo "Sightline: ${#reports[@]} reports in one process (best of $repeats) ..." >&2
read -r sl_wall sl_cpu sl_rss < <(best "$repeats" sl_all "$sl" stats "$file" --report "$all_reports" --format csv --output "$run/sl/r")

echo "Sightline: each report alone (best of $repeats) ..." >&2
: > "$run/sl_each.tsv"
for r in "${reports[@]}"; do
  read -r w c k < <(best "$repeats" "sl_one" "$sl" stats "$file" --report "$r" --format csv --output "$run/sl1/r" --timing)
  # What the app waits for: the report computed (--timing), without writing the CSV.
  comp=$(sed -nE 's/.*: computed in ([0-9.]+) s.*/\1/p' "$run/time/sl_one.err" | head -1)
  printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$w" "$c" "$k" "${comp:-0}" >> "$run/sl_each.tsv"
done
sort -t$'\t' -k2,2 -g -r "$run/sl_each.tsv" > "$run/sl_each_sorted.tsv"
read -r slow_name slow_wall slow_cpu _ < "$run/sl_each_sorted.tsv"
read -r comp_name _ _ _ comp_max < <(sort -t$'\t' -k5,5 -g -r "$run/sl_each.tsv" | head -1)

echo "Sightline: analyze, rules $all_rules (best of $repeats) ..." >&2
read -r sla_wall sla_cpu sla_rss < <(best "$repeats" sla "$sl" analyze "$file" --format csv --output "$run/sla/a" --timing --timeout "$analyze_timeout")
rule_times=$(sed -nE 's/^([a-z0-9_:=]+): ([0-9.]+) ms$/\1 \2 ms/p' "$run/time/sla.err" | paste -sd, - | sed 's/,/, /g')

ns_wall="n/a"; ns_cpu="n/a"; ns_rss="n/a"; nsa_wall="n/a"; nsa_cpu="n/a"; nsa_rss="n/a"
ns_reports=("${reports[@]}")
ns_note=""
if [ -n "$nsys" ]; then
  home=$(mktemp -d)
  trap 'rm -rf "$home" "$run/nsys_input.sqlite"' EXIT
  nsys_version=$(HOME=$home "$nsys" --version | grep -o '[0-9][0-9.]*[0-9]' | head -1)
  mapfile -t nsys_reports < <(HOME=$home "$nsys" stats --help-reports 2>&1 | sed -n 's/^  \([a-z0-9_]*\)\(\[.*\]\)\{0,1\} -- .*/\1/p')
  mapfile -t nsys_rules < <(HOME=$home "$nsys" analyze --help-rules 2>&1 | sed -n 's/^  \([a-z0-9_]*\)\(\[.*\]\)\{0,1\} -- .*/\1/p')
  missing=$(comm -23 <(printf '%s\n' "${nsys_reports[@]}" | sort) <(printf '%s\n' "${reports[@]}" | sort) | paste -sd' ' -)
  [ -z "$missing" ] || echo "note: reports nsys has and Sightline lacks: $missing" >&2
  missing_rules=$(comm -23 <(printf '%s\n' "${nsys_rules[@]}" | sort) <(printf '%s\n' "${rules[@]}" | sort) | paste -sd' ' -)
  [ -z "$missing_rules" ] || echo "note: rules nsys has and Sightline lacks (not timed on either side): $missing_rules" >&2
  if [ -n "${NSYS_REPORTS:-}" ]; then
    IFS=, read -r -a ns_reports <<< "$NSYS_REPORTS"
    ns_note=" (nsys timed on ${#ns_reports[@]} of ${#reports[@]} reports: NSYS_REPORTS)"
  fi
  ns_list=$(IFS=,; echo "${ns_reports[*]}")

  echo "nsys $nsys_version: stats, ${#ns_reports[@]} reports in one process ..." >&2
  cp "$file" "$run/nsys_input.sqlite"
  timed "$run/time/ns_all" env HOME="$home" "$nsys" stats --report "$ns_list" --format csv \
    --output "$run/ns/r" --force-overwrite true "$run/nsys_input.sqlite"
  read -r ns_wall ns_cpu ns_rss < "$run/time/ns_all"
  cp "$run/time/ns_all.err" "$run/nsys_stats.log"
  cmp -s "$file" "$run/nsys_input.sqlite" || echo "note: nsys stats modified its copy of the export" >&2

  echo "nsys $nsys_version: analyze, rules $all_rules in one process ..." >&2
  cp "$file" "$run/nsys_input.sqlite"
  timed "$run/time/nsa" env HOME="$home" "$nsys" analyze --rule "$all_rules" --format csv \
    --output "$run/nsa/a" --force-overwrite true "$run/nsys_input.sqlite"
  read -r nsa_wall nsa_cpu nsa_rss < "$run/time/nsa"
  cp "$run/time/nsa.err" "$run/nsys_analyze.log"
  rm -f "$run/nsys_input.sqlite"
fi

# Sightline's reports over the same set nsys ran (for the ratio when NSYS_REPORTS is set).
sl_same_wall=$sl_wall
if [ -n "$ns_note" ]; then
  sl_same_wall=$(awk -F'\t' -v list=",${ns_list:-}," 'index(list, "," $1 ",") {s += $2} END {printf "%.2f", s}' "$run/sl_each.tsv")
fi

# compare KIND SL_DIR NS_DIR NAME...: byte comparison of each NAME.csv (a missing or empty file
# counts as "no CSV": neither tool writes one for an empty result). Prints a summary line, then
# one line per CSV that differs or that only one side wrote.
compare() {
  local kind=$1 sdir=$2 nsdir=$3; shift 3
  local same=0 none=0 name s t diffs=()
  for name in "$@"; do
    s="$sdir/$name.csv"; t="$nsdir/$name.csv"
    [ -s "$s" ] || s=""; [ -s "$t" ] || t=""
    if [ -z "$s" ] && [ -z "$t" ]; then none=$((none + 1))
    elif [ -z "$s" ]; then diffs+=("$kind ${name#*_}: only nsys wrote a CSV")
    elif [ -z "$t" ]; then diffs+=("$kind ${name#*_}: only Sightline wrote a CSV")
    elif cmp -s "$s" "$t"; then same=$((same + 1))
    else diffs+=("$kind ${name#*_}: CSVs differ ($(cmp "$s" "$t" 2>&1 | head -1 | sed 's|.*differ: ||'))")
    fi
  done
  echo "$same identical, $none with no rows on both sides, ${#diffs[@]} differ"
  [ ${#diffs[@]} -eq 0 ] || printf '  DIFFERS: %s\n' "${diffs[@]}"
}
cmp_stats="n/a"; cmp_rules="n/a"
if [ -n "$nsys" ]; then
  # Both write PREFIX_NAME.csv (a rule given options: Sightline NAME_OPTS, nsys its own; the
  # defaults are compared here).
  mapfile -t names < <(printf 'r_%s\n' "${ns_reports[@]}")
  cmp_stats=$(compare stats "$run/sl" "$run/ns" "${names[@]}")
  mapfile -t names < <(printf 'a_%s\n' "${rules[@]}")
  cmp_rules=$(compare analyze "$run/sla" "$run/nsa" "${names[@]}")
fi

# ratio SIGHTLINE NSYS: nsys / Sightline (n/a without nsys or below /usr/bin/time's resolution).
ratio() {
  if [ "$2" = "n/a" ] || awk "BEGIN{exit !($1 <= 0)}"; then echo "n/a"
  else awk "BEGIN{printf \"%.1f\", $2 / $1}"; fi
}
results="$out/nsys_reports.md"
{
  echo "nsys_reports.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "export: $(printf "%'d" "$events") events ($counts), $mb MB; nsys ${nsys_version:-absent}"
  echo
  echo "| what | Sightline wall (CPU, peak RSS) | nsys wall (CPU, peak RSS) | nsys / Sightline |"
  echo "|---|---|---|---|"
  echo "| stats, ${#reports[@]} reports, one process$ns_note | $sl_wall s ($sl_cpu s, $((sl_rss / 1024)) MB) | $ns_wall s ($ns_cpu s, $( [ "$ns_rss" = n/a ] && echo n/a || echo "$((ns_rss / 1024)) MB")) | $(ratio "$sl_same_wall" "$ns_wall")×${ns_note:+ (against Sightline: $sl_same_wall s on the same reports, each alone)} |"
  echo "| slowest single report (Sightline alone) | $slow_name: $slow_wall s ($slow_cpu s) | | |"
  echo "| slowest report computed, CSV not written (what the app waits for) | $comp_name: $comp_max s | | |"
  echo "| analyze, ${#rules[@]} rules, one process | $sla_wall s ($sla_cpu s, $((sla_rss / 1024)) MB) | $nsa_wall s ($nsa_cpu s, $( [ "$nsa_rss" = n/a ] && echo n/a || echo "$((nsa_rss / 1024)) MB")) | $(ratio "$sla_wall" "$nsa_wall")× |"
  echo
  [ -z "$ns_note" ] || echo "Sightline's time on the reports nsys ran (sum of each alone): $sl_same_wall s; nsys ran: ${ns_list:-}."
  echo "Sightline's rules (--timing): $rule_times"
  echo "CSV comparison, stats: $cmp_stats"
  echo "CSV comparison, analyze: $cmp_rules"
  echo
  echo "Sightline, each report alone (wall s, CPU s, computed s), slowest first:"
  awk -F'\t' '{printf "  %-28s %6.2f %6.2f %6.2f\n", $1, $2, $3, $5}' "$run/sl_each_sorted.tsv"
} | tee "$results"
