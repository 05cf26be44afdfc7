#!/usr/bin/env bash
# Issue 21's scale benchmark: an Nsight Systems export of 10 M events + 10 M CPU samples (each
# with a call stack of 5–30 frames) + 2 M scheduling events, generated once
# (crates/test-support/src/bin/make_nsys_export.rs --samples --sched; cached in bench/out), then
# in the same run, on the same file:
#   - `sqlite3 -readonly` selecting the columns Sightline reads (the read floor);
#   - `sightline timeline FILE --json --timing`: load → timeline, wall time, peak RSS, RSS growth
#     and model bytes per event (from --timing), the event counts (from the JSON);
#   - `sightline profile FILE --view top-down --timing`: load, count the samples per stack and
#     build the top-down tree (what the flame graph draws), each step timed;
#   - the peer: NVIDIA's `nsys stats` (2023.4, ../shared/tools/nsys-oracle) with the six reports
#     of bench/timeline.sh on the same export. nsys stats has no CPU-sampling report; this is the
#     time nsys's own summary path takes on the export.
# Frames while panning/zooming and the flame graph's build/draw time are measured by
# `cargo bench --bench timeline_frames -- 10000000 --samples 10000000 --sched 2000000`.
#
#   bench/timeline_cpu.sh                       # 10 M + 10 M + 2 M
#   EVENTS=1000000 SAMPLES=1000000 SCHED=200000 bench/timeline_cpu.sh
#   SKIP_NSYS=1 SKIP_SQLITE=1 SKIP_BUILD=1 REPEATS=1 bench/timeline_cpu.sh
# Results go to bench/out/timeline_cpu.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out/bin"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ -z "${SKIP_BUILD:-}" ]; then
  cargo build --release --quiet --bin sightline
  cargo build --release --quiet -p sightline-test-support --bin make_nsys_export
fi
# Copies, so a build running beside the benchmark cannot swap the binaries mid-run.
cp "$CARGO_TARGET_DIR/release/sightline" "$out/bin/sightline-cpu"
cp "$CARGO_TARGET_DIR/release/make_nsys_export" "$out/bin/make_nsys_export-cpu"
bin="$out/bin/sightline-cpu"
gen="$out/bin/make_nsys_export-cpu"
repeats=${REPEATS:-2}
events=${EVENTS:-10000000}
samples=${SAMPLES:-10000000}
sched=${SCHED:-2000000}
reports=cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,osrt_sum,nvtx_sum

file="$out/nsys_cpu_${events}_${samples}_${sched}.sqlite"
if [ ! -f "$file" ]; then
  /usr/bin/time -f "%e s" -o "$out/gen_time.txt" "$gen" "$file.partial" "$events" --samples "$samples" --sched "$sched" \
    | tee "$out/gen.txt"
  mv "$file.partial" "$file"
  echo "generated in $(cat "$out/gen_time.txt")" >&2
fi
mb=$(awk "BEGIN{printf \"%.0f\", $(stat -c %s "$file") / 1e6}")
cat "$file" > /dev/null   # warm the page cache for everyone

# best REPEATS STDOUT CMD...: prints "wall_s peak_rss_kb" of the fastest of REPEATS runs; its
# stderr is kept in $out/best_stderr.txt, its stdout goes to STDOUT (e.g. /dev/null).
best() {
  local repeats=$1 stdout=$2; shift 2
  local best="" rss=""
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > "$stdout" 2> "$out/stderr.txt" || { cat "$out/stderr.txt" >&2; return 1; }
    read -r wall kb < "$out/time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
      best=$wall; rss=$kb; cp "$out/stderr.txt" "$out/best_stderr.txt"
    fi
  done
  echo "$best $rss"
}

columns_sql="
SELECT id, value FROM StringIds;
SELECT rowid, nameId, globalTid FROM ThreadNames;
SELECT rowid, start, end, eventClass, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME;
SELECT rowid, start, end, globalTid, nameId FROM OSRT_API WHERE eventClass = 27;
SELECT rowid, start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL;
SELECT rowid, start, end, deviceId, contextId, streamId, correlationId, globalPid, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY;
SELECT rowid, start, end, deviceId, contextId, streamId, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET;
SELECT rowid, start, end, eventType, globalTid, endGlobalTid, text, textId, domainId, color, category, uint64Value, int64Value, doubleValue, jsonText FROM NVTX_EVENTS;
SELECT rowid, id, symbol, module, unresolved, stackDepth FROM SAMPLING_CALLCHAINS;
SELECT rowid, id, start, globalTid FROM COMPOSITE_EVENTS;
SELECT rowid, start, cpu, isSchedIn, globalTid FROM SCHED_EVENTS ORDER BY start;
"
sq="${SQ:-n/a}"
[ -n "${SKIP_SQLITE:-}" ] || read -r sq _ < <(best 1 /dev/null sqlite3 -readonly "$file" "$columns_sql")

read -r tl tl_kb < <(best "$repeats" "$out/timeline_cpu.json" "$bin" timeline "$file" --json --timing)
# The summary line only (--timing also prints each table's time and the previews').
timing=$(grep '^timing: loaded' "$out/best_stderr.txt" || true)
n_events=$(echo "$timing" | sed -E 's/timing: loaded ([0-9]+) events.*/\1/')
rss_pe=$(echo "$timing" | sed -E 's/.*\(([0-9.]+) B\/event\).*/\1/')
model_pe=$(echo "$timing" | sed -E 's/.*model ([0-9.]+) B\/event.*/\1/')
counts=$(grep -o '"counts": {[^}]*}' "$out/timeline_cpu.json" || true)

read -r pr pr_kb < <(best "$repeats" "$out/profile_cpu.txt" "$bin" profile "$file" --view top-down --timing)
profile_timing=$(grep '^timing: loaded' "$out/best_stderr.txt" || true)

ns="n/a"
if [ -z "${SKIP_NSYS:-}" ] && [ -f ../shared/tools/nsys-oracle/setup.sh ]; then
  nsys=$(bash ../shared/tools/nsys-oracle/setup.sh 2>/dev/null | tail -n 1)
  home=$(mktemp -d)
  read -r ns _ < <(best 1 /dev/null env HOME="$home" "$nsys" stats --report "$reports" --format csv --output "$out/ns_cpu" --force-overwrite true "$file")
  rm -rf "$home" "$out"/ns_cpu_*.csv
fi

results="$out/timeline_cpu.md"
{
  echo "export: $file ($mb MB): $(cat "$out/gen.txt" 2>/dev/null | sed 's/^[^:]*: //')"
  echo
  echo "| what | wall s | peak RSS MB | notes |"
  echo "|---|---|---|---|"
  echo "| sqlite3 select (same columns) | $sq | | read floor |"
  echo "| sightline timeline --json --timing | $tl | $((tl_kb / 1024)) | $n_events events; RSS growth $rss_pe B/event; model $model_pe B/event |"
  echo "| sightline profile --view top-down --timing | $pr | $((pr_kb / 1024)) | ${profile_timing#timing: } |"
  echo "| nsys stats (6 reports) | $ns | | peer |"
  echo
  echo "counts: $counts"
} > "$results"
cat "$results"
