#!/usr/bin/env bash
# Reader benchmark: Sightline against NVIDIA's official reader (ncu-oracle's dump.py) on the
# same large report, in the same run.
#
#   bench/reader.sh                 # 2,000-kernel report (~230 MB), all measurements
#   KERNELS=20000 BENCH_DATA=/work/bench-data bench/reader.sh   # the ~2.3 GB report, kept
#                                   # outside the repository
#   SKIP_ORACLE_FULL=1 bench/reader.sh   # skip the official reader's full dump (~100+ s)
#   SKIP_ORACLE=1 bench/reader.sh        # Sightline only
#   SKIP_BUILD=1 bench/reader.sh         # use the binaries already in $CARGO_TARGET_DIR/release
#   REPEATS=5 ORACLE_REPEATS=3           # best of N runs (the defaults) of the per-kernel dumps
#   FULL_REPEATS=3                  # best of N runs of Sightline's full dump (the peer's: once)
#   FULL_OUT=/dev/null              # where Sightline's full dump goes (default $BENCH_DATA;
#                                   # /dev/null when the disk has no room for it: no cmp then)
#   ORACLE_AS=14000000000 ORACLE_TIMEOUT=1800   # the peer's address-space cap (bytes) and
#                                   # time limit (s) per run (the defaults); a run that exceeds
#                                   # either is recorded as failed, with its time
#
# Prints a Markdown table (wall time and peak RSS of each command, the speed-up against the
# peer) and checks that both tools print identical JSON. The report and the full dumps go to
# $BENCH_DATA (default bench/out); the full dumps are deleted at the end. Needs
# ../shared/tools/ncu-oracle beside the repository for the peer. NVIDIA's reader holds the whole
# report in memory (4.5 GB for the 229 MB report), hence the cap.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
source bench/lib.sh
repeats=${REPEATS:-5}
oracle_repeats=${ORACLE_REPEATS:-3}
oracle_as=${ORACLE_AS:-14000000000}
oracle_timeout=${ORACLE_TIMEOUT:-1800}
bench_report_tools
report="$data/bench-$kernels.ncu-rep"
[ -f "$report" ] || "$bin/make_bench_report" "$report" "$kernels"
size=$(stat -c %s "$report")
last=$((kernels - 1))

oracle=()
if [ -n "${SKIP_ORACLE:-}" ]; then
  :
elif [ -f ../shared/tools/ncu-oracle/setup.sh ]; then
  py=$(bash ../shared/tools/ncu-oracle/setup.sh | tail -n 1)
  oracle=(timeout "$oracle_timeout" prlimit --as="$oracle_as" "$py" ../shared/tools/ncu-oracle/dump.py)
else
  echo "note: ../shared/tools/ncu-oracle not found; measuring Sightline only" >&2
fi

results="$out/results.md"
{
  echo "run $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "report: $report ($kernels kernels, $size bytes)"
  echo
  echo "| command | wall s | peak RSS MB |"
  echo "|---|---|---|"
} | tee "$results"
# measure KEY LABEL OUTFILE REPEATS CMD...: best wall time of REPEATS runs, peak RSS of that
# run; sets W_KEY. A failed run (exit status, the peer's memory cap or time limit) is recorded
# as failed with its wall time and ends the repeats; W_KEY is then empty.
measure() {
  local key=$1 label=$2 outfile=$3 repeats=$4; shift 4
  local best="" rss="" status=0
  for _ in $(seq "$repeats"); do
    status=0
    /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > "$outfile" 2> "$out/stderr.txt" || status=$?
    read -r wall kb < <(tail -n 1 "$out/time.txt")
    if [ "$status" -ne 0 ]; then
      printf '| %s | failed (exit %s, %s) after %s | %.1f |\n' "$label" "$status" \
        "$(tail -n 1 "$out/stderr.txt" | cut -c1-120)" "$wall" "$(awk "BEGIN{print $kb/1024}")" | tee -a "$results"
      printf -v "W_$key" '%s' ""
      return 0
    fi
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; rss=$kb; fi
  done
  printf '| %s | %s | %.1f |\n' "$label" "$best" "$(awk "BEGIN{print $rss/1024}")" | tee -a "$results"
  printf -v "W_$key" '%s' "$best"
}

# compare KEY_SIGHTLINE KEY_PEER LABEL FILE_S FILE_O: the speed-up and whether the outputs match.
compare() {
  local s=W_$1 o=W_$2
  [ -n "${!s:-}" ] && [ -n "${!o:-}" ] || return 0
  local same=differ
  cmp -s "$4" "$5" && same="identical output"
  echo "- $3: $(awk -v a="${!o:-}" -v b="${!s:-}" 'BEGIN{printf "%.1f", a / b}')x faster than the peer; $same" | tee -a "$results"
}

measure k0 "sightline dump --kernel 0" "$out/s_k0.json" "$repeats" "$bin/sightline" dump "$report" --kernel 0
measure klast "sightline dump --kernel $last" "$out/s_klast.json" "$repeats" "$bin/sightline" dump "$report" --kernel "$last"
full_out=${FULL_OUT:-$data/s_full.json}
measure full "sightline dump (full) > $full_out" "$full_out" "${FULL_REPEATS:-3}" "$bin/sightline" dump "$report"
[ ! -f "$full_out" ] || echo "- full dump: $(stat -c %s "$full_out") bytes of JSON" | tee -a "$results"
if [ "${#oracle[@]}" -gt 0 ]; then
  measure ok0 "dump.py --kernel 0" "$out/o_k0.json" "$oracle_repeats" "${oracle[@]}" "$report" --kernel 0
  measure oklast "dump.py --kernel $last" "$out/o_klast.json" "$oracle_repeats" "${oracle[@]}" "$report" --kernel "$last"
  if [ -z "${SKIP_ORACLE_FULL:-}" ]; then
    measure ofull "dump.py (full)" "$data/o_full.json" 1 "${oracle[@]}" "$report"
  fi
  compare k0 ok0 "kernel 0" "$out/s_k0.json" "$out/o_k0.json"
  compare klast oklast "kernel $last" "$out/s_klast.json" "$out/o_klast.json"
  compare full ofull "full dump" "$full_out" "$data/o_full.json"
fi
rm -f "$data"/s_full.json "$data"/o_full.json
echo "file size: $size bytes; results in $results"
