#!/usr/bin/env bash
# Gainsight benchmark: `sightline gainsight` against a plain-Python reference frontend
# (bench/gainsight_reference.py) on generated GPGPU-Sim logs, in the same run.
#
#   bench/gainsight.sh                      # 2 GB and 0.5 GB logs; reference on a 100 MB log
#   FULL_REFERENCE=1 bench/gainsight.sh     # also time the reference on the 2 GB log (minutes)
#   BIG=4000000000 bench/gainsight.sh       # another size for the big log
#   REPEATS=5 bench/gainsight.sh            # best of 5 runs (default 3)
#   SKIP_WHATIF=1 bench/gainsight.sh        # leave out `cargo bench --bench gainsight_whatif`
#   HUGE=10000000000 bench/gainsight.sh     # also a 10 GB log, 2 threads: a cold read (the
#                                           # file's pages dropped from the page cache first)
#                                           # and a warm one, beside `cat FILE > /dev/null`
#                                           # cold and warm (the disk's own speed)
#   DELETE_HUGE=1                           # delete the HUGE log at the end
#
# Logs are generated into $GS_TMP (default /tmp/sightline-gainsight-bench), never into the
# repository. Measures wall time, CPU time and peak RSS (/usr/bin/time) of Sightline with 1 and
# 2 worker threads, checks that Sightline's four outputs equal the reference's byte for byte
# (on the reference's log), runs the what-if benchmark (10 M lifetimes), and writes
# bench/out/gainsight.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/target-release}
export SOURCE_DATE_EPOCH=1700000000
tmp=${GS_TMP:-/tmp/sightline-gainsight-bench}
big=${BIG:-2000000000}
mid=${MID:-500000000}
small=${SMALL:-100000000}
repeats=${REPEATS:-3}
mkdir -p "$tmp" bench/out
out=${OUT:-bench/out/gainsight.md}

# SIGHTLINE=PATH and GENERATOR=PATH use binaries built elsewhere instead of building here.
if [ -z "${SIGHTLINE:-}" ] || [ -z "${GENERATOR:-}" ]; then
  nice -n 10 cargo build --release --quiet --bin sightline && cargo build --release --quiet -p sightline-test-support --bin make_gainsight_log
fi
bin=${SIGHTLINE:-$CARGO_TARGET_DIR/release/sightline}
gen=${GENERATOR:-$CARGO_TARGET_DIR/release/make_gainsight_log}
huge=${HUGE:-}
for size in "$big" "$mid" "$small" $huge; do
  [ -f "$tmp/log-$size.log" ] || "$gen" --bytes "$size" "$tmp/log-$size.log"
done

# measure KEY LABEL CMD...: best wall time of $repeats runs, with that run's CPU time and peak
# RSS; prints a table row and sets W_KEY (wall s), C_KEY (CPU s), R_KEY (RSS MB).
measure() {
  local key=$1 label=$2; shift 2
  local best="" cpu="" rss=""
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/time.txt" "$@" > /dev/null 2> "$tmp/stderr.txt"
    read -r wall user sys kb < "$tmp/time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
      best=$wall
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')
      rss=$(awk -v k="$kb" 'BEGIN{printf "%.0f", k / 1024}')
    fi
  done
  printf '| %s | %s | %s | %s |\n' "$label" "$best" "$cpu" "$rss" | tee -a "$out"
  printf -v "W_$key" '%s' "$best"
  printf -v "C_$key" '%s' "$cpu"
  printf -v "R_$key" '%s' "$rss"
}

# uncache FILE: drops FILE's pages from the page cache (written back first), so the next read
# comes from the disk; other files' cached pages are untouched.
uncache() {
  sync "$1"
  dd if="$1" iflag=nocache count=0 status=none
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", a / b}'; }

mb() { echo $(($1 / 1000000)); }

echo "Run $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out"
{
  echo
  echo "| run | wall s | CPU s | peak RSS MB |"
  echo "|---|---|---|---|"
} | tee -a "$out"
measure big1 "sightline, $(mb "$big") MB, 1 thread" "$bin" gainsight "$tmp/log-$big.log" --out "$tmp/out-rs" --threads 1
measure big2 "sightline, $(mb "$big") MB, 2 threads" "$bin" gainsight "$tmp/log-$big.log" --out "$tmp/out-rs" --threads 2
measure mid2 "sightline, $(mb "$mid") MB, 2 threads" "$bin" gainsight "$tmp/log-$mid.log" --out "$tmp/out-rs" --threads 2
measure small1 "sightline, $(mb "$small") MB, 1 thread" "$bin" gainsight "$tmp/log-$small.log" --out "$tmp/out-rs-small" --threads 1
saved=$repeats; repeats=1
measure py "python reference, $(mb "$small") MB" python3 bench/gainsight_reference.py "$tmp/log-$small.log" "$tmp/out-py-small"
if [ -n "${FULL_REFERENCE:-}" ]; then
  measure pybig "python reference, $(mb "$big") MB" python3 bench/gainsight_reference.py "$tmp/log-$big.log" "$tmp/out-py"
fi
if [ -n "$huge" ]; then
  repeats=1
  log="$tmp/log-$huge.log"
  uncache "$log"
  measure catcold "cat > /dev/null, $(mb "$huge") MB, cold" cat "$log"
  measure catwarm "cat > /dev/null, $(mb "$huge") MB, right after" cat "$log"
  uncache "$log"
  measure hugecold "sightline, $(mb "$huge") MB, 2 threads, cold" "$bin" gainsight "$log" --out "$tmp/out-rs" --threads 2
  measure hugewarm "sightline, $(mb "$huge") MB, 2 threads, right after" "$bin" gainsight "$log" --out "$tmp/out-rs" --threads 2
  [ -z "${DELETE_HUGE:-}" ] || rm -f "$log"
fi
repeats=$saved

same=yes
for f in "$tmp"/out-py-small/*; do
  cmp -s "$f" "$tmp/out-rs-small/$(basename "$f")" || { same=no; echo "DIFFERS: $(basename "$f")"; }
done
{
  echo
  echo "- outputs of Sightline and the reference on the $(mb "$small") MB log identical (cmp, 4 files): $same"
  echo "- vs the reference, same $(mb "$small") MB log, Sightline on 1 thread: $(ratio "$W_py" "$W_small1")x faster (wall)"
  echo "- vs the reference extrapolated to $(mb "$big") MB (reference time x $(ratio "$big" "$small")): $(awk -v p="$W_py" -v b="$big" -v s="$small" -v w="$W_big2" 'BEGIN{printf "%.1f", p * b / s / w}')x faster (Sightline 2 threads, wall)"
  if [ -n "${FULL_REFERENCE:-}" ]; then
    echo "- vs the reference on the same $(mb "$big") MB log: $(ratio "$W_pybig" "$W_big2")x faster with 2 threads (the default here: one per core), $(ratio "$W_pybig" "$W_big1")x on 1 thread (wall)"
  fi
  echo "- per core: $(awk -v b="$big" -v w="$W_big1" 'BEGIN{printf "%.0f", b / w / 1e6}') MB/s wall on 1 thread; $(awk -v b="$big" -v c="$C_big1" 'BEGIN{printf "%.0f", b / c / 1e6}') MB per CPU second"
  echo "- 1 -> 2 threads: $(ratio "$W_big1" "$W_big2")x (wall)"
  echo "- peak RSS: $R_mid2 MB at $(mb "$mid") MB, $R_big2 MB at $(mb "$big") MB"
  if [ -n "$huge" ]; then
    mbs() { awk -v b="$1" -v w="$2" 'BEGIN{printf "%.0f", b / w / 1e6}'; }
    echo "- $(mb "$huge") MB, 2 threads: cold $(mbs "$huge" "$W_hugecold") MB/s (cat: $(mbs "$huge" "$W_catcold") MB/s), right after $(mbs "$huge" "$W_hugewarm") MB/s (cat: $(mbs "$huge" "$W_catwarm") MB/s); peak RSS $R_hugecold / $R_hugewarm MB"
  fi
  if [ -z "${SKIP_WHATIF:-}" ]; then
    echo
    nice -n 10 cargo bench --quiet --bench gainsight_whatif 2>/dev/null | grep -E 'lifetimes' | sed 's/^/- what-if: /'
  fi
} | tee -a "$out"
