#!/usr/bin/env bash
# Timeline benchmark: Sightline against the `sqlite3` shell and NVIDIA's `nsys stats` on the same
# generated Nsight Systems exports (crates/test-support/src/bin/make_nsys_export.rs: kernels on 8 streams with their
# launching calls, nested NVTX, memcpy/memset, OS runtime), in the same run.
#
#   bench/timeline.sh                   # 1 M and 10 M events
#   SIZES="1000000" bench/timeline.sh   # only 1 M
#   SKIP_NSYS=1 bench/timeline.sh       # without NVIDIA's nsys stats (slow at 10 M)
#   SKIP_BUILD=1 bench/timeline.sh      # use the binaries already in $CARGO_TARGET_DIR/release
#
# For each size it measures (best wall time of REPEATS runs, default 3; nsys once):
#   - open → timeline ready: `sightline timeline FILE --timing` (load, lay out, print the tree)
#     against `sqlite3 -readonly FILE` selecting the same columns to /dev/null;
#   - `sightline stats` against `nsys stats` for the same six reports (CSV files);
#   - memory: the peak RSS of the open (from /usr/bin/time) and the RSS after load minus before,
#     per event (from `--timing`);
#   - when the first preview of what was read so far was ready (what the app shows first).
# Results go to bench/out/timeline.md. Needs `sqlite3` (apt-get install sqlite3) and, for the
# nsys peer, ../shared/tools/nsys-oracle beside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --quiet --bin sightline && cargo build --release --quiet -p sightline-test-support --bin make_nsys_export
# Copies, so a build running beside the benchmark cannot swap the binaries mid-run.
mkdir -p "$out/bin"
cp "$CARGO_TARGET_DIR/release/sightline" "$CARGO_TARGET_DIR/release/make_nsys_export" "$out/bin/"
bin="$out/bin/sightline"
gen="$out/bin/make_nsys_export"
repeats=${REPEATS:-3}
reports=cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,osrt_sum,nvtx_sum

nsys=""
if [ -z "${SKIP_NSYS:-}" ] && [ -f ../shared/tools/nsys-oracle/setup.sh ]; then
  nsys=$(bash ../shared/tools/nsys-oracle/setup.sh 2>/dev/null | tail -n 1)
elif [ -z "${SKIP_NSYS:-}" ]; then
  echo "note: ../shared/tools/nsys-oracle not found; no nsys stats figures" >&2
fi

# The columns Sightline's loader reads, table by table.
columns_sql="
SELECT id, value FROM StringIds;
SELECT rowid, nameId, globalTid FROM ThreadNames;
SELECT rowid, globalPid, name FROM PROCESSES;
SELECT rowid, start, end, eventClass, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME;
SELECT rowid, start, end, globalTid, nameId FROM OSRT_API WHERE eventClass = 27;
SELECT rowid, start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL;
SELECT rowid, start, end, deviceId, contextId, streamId, correlationId, globalPid, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY;
SELECT rowid, start, end, deviceId, contextId, streamId, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET;
SELECT rowid, start, end, eventType, globalTid, endGlobalTid, text, textId, domainId, color, category, uint64Value, int64Value, doubleValue, jsonText FROM NVTX_EVENTS;
"

source bench/lib.sh   # best()

results="$out/timeline.md"
{
  echo "| events | file MB | sqlite3 select s | sightline timeline s | ratio | first preview s | sightline stats s | nsys stats s | speed-up | peak RSS B/event | RSS growth B/event | model B/event |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$results"

for n in ${SIZES:-1000000 10000000}; do
  file="$out/nsys_$n.sqlite"
  [ -f "$file" ] || "$gen" "$file" "$n" > /dev/null
  mb=$(awk "BEGIN{printf \"%.0f\", $(stat -L -c %s "$file") / 1e6}")
  cat "$file" > /dev/null   # warm the page cache for everyone
  read -r sq _ < <(best "$repeats" sqlite3 -readonly "$file" "$columns_sql")
  read -r tl peak_kb < <(best "$repeats" "$bin" timeline "$file" --timing)
  timing=$(grep '^timing: loaded' "$out/best_stderr.txt" || true)
  first=$(sed -nE 's/^timing: the first preview .* was ready at ([0-9.]+) s/\1/p' "$out/best_stderr.txt")
  events=$(echo "$timing" | sed -E 's/timing: loaded ([0-9]+) events.*/\1/')
  rss_pe=$(echo "$timing" | sed -E 's/.*\(([0-9.]+) B\/event\).*/\1/')
  model_pe=$(echo "$timing" | sed -E 's/.*model ([0-9.]+) B\/event.*/\1/')
  rm -f "$out"/sl_*.csv
  read -r st _ < <(best "$repeats" "$bin" stats "$file" --report "$reports" --output "$out/sl")
  ns="n/a"; speedup="n/a"
  if [ -n "$nsys" ]; then
    home=$(mktemp -d)
    read -r ns _ < <(best 1 env HOME="$home" "$nsys" stats --report "$reports" --format csv --output "$out/ns" --force-overwrite true "$file")
    rm -rf "$home"
    speedup=$(awk "BEGIN{printf \"%.1f\", $ns / $st}")
    for r in ${reports//,/ }; do
      cmp -s "$out/sl_$r.csv" "$out/ns_$r.csv" || echo "warning: $r differs from nsys at $n events" >&2
    done
  fi
  ratio=$(awk "BEGIN{printf \"%.2f\", $tl / $sq}")
  peak_pe=$(awk "BEGIN{printf \"%.1f\", $peak_kb * 1024 / $events}")
  echo "| $events | $mb | $sq | $tl | $ratio | ${first:-none} | $st | $ns | $speedup | $peak_pe | $rss_pe | $model_pe |" >> "$results"
  echo "$n events: $timing" >&2
done
cat "$results"
