#!/usr/bin/env bash
# NVIDIA's multi-report recipes (issue 48): `sightline recipe NAME` against `nsys recipe NAME`
# (Nsight Systems 2023.4, through ../shared/tools/nsys-recipe-oracle/run.sh) on the same
# inputs, whole process, in the same run: the corpus exports (../shared/corpus/nsys/*.sqlite)
# and RANKS generated rank exports (make_nsys_export, EVENTS events each).
#
#   bench/recipe.sh                         # the five summary recipes, corpus + 64 ranks
#   RANKS=256 EVENTS=20000 bench/recipe.sh
#   SKIP_BUILD=1 SKIP_PEER=1 bench/recipe.sh
#   SCALE="10 100 1000" SCALE_EVENTS=2000 bench/recipe.sh   # + memory against the file count
#
# Prints wall time and peak RSS of each (best of REPEATS, default 3; the peer once); results go
# to bench/out/recipe.md. SCALE (default "10 100 1000"; empty: skipped) runs SCALE_RECIPES over
# the first n of max(SCALE) generated ranks (`DIR:n`), to show that memory does not grow with
# the number of files; the peer runs there up to PEER_SCALE_MAX files (default 100).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
source bench/lib.sh   # build_nsys_tools(), best()
build_nsys_tools
bin="$CARGO_TARGET_DIR/release/sightline"
oracle=../shared/tools/nsys-recipe-oracle/run.sh
ranks=${RANKS:-64}
events=${EVENTS:-20000}
repeats=${REPEATS:-3}
data=${DATA:-/tmp/sightline-recipe-bench}
mkdir -p "$data/ranks"
for k in $(seq 1 "$ranks"); do
  f="$data/ranks/rank_$(printf %04d "$k").sqlite"
  [ -f "$f" ] || "$CARGO_TARGET_DIR/release/make_nsys_export" "$f" "$events" --seed "$k" > /dev/null
done
corpus=(../shared/corpus/nsys/*.sqlite)
# Whether the peer's last run wrote tables (its heat maps write none on these inputs: they need
# tables its exporter takes from the .nsys-rep, see its recipe.log); its time is then no figure.
peer_wrote() { compgen -G "$out/recipe-nv/*.parquet" > /dev/null; }
{
  echo "## recipe: $(date -u '+%F %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| recipe | inputs | Sightline wall (s) | peak RSS (MB) | nsys recipe wall (s) | peak RSS (MB) | speed-up |"
  echo "|---|---|---|---|---|---|---|"
} > "$out/recipe.md"
for recipe in ${RECIPES:-cuda_gpu_kern_sum cuda_api_sum osrt_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum}; do
  for set in corpus ranks; do
    if [ "$set" = corpus ]; then inputs=("${corpus[@]}"); label="corpus (${#corpus[@]} exports)"
    else inputs=("$data"/ranks/*.sqlite); label="$ranks ranks × $events events"; fi
    rm -rf "$out/recipe-sl"
    read -r sw skb < <(best "$repeats" "$bin" recipe "$recipe" --input "${inputs[@]}" --output "$out/recipe-sl" --force-overwrite)
    pw=-; pkb=; speed=-
    if [ -z "${SKIP_PEER:-}" ]; then
      rm -rf "$out/recipe-nv"
      /usr/bin/time -f "%e %M" -o "$out/time.txt" bash "$oracle" "$recipe" "$out/recipe-nv" "${inputs[@]}" > /dev/null 2>&1 || true
      read -r pw pkb < "$out/time.txt"
      speed=$(awk "BEGIN{printf \"%.1f×\", $pw / $sw}")
      peer_wrote || { pw="failed ($pw)"; pkb=; speed=-; }
    fi
    echo "| $recipe | $label | $sw | $((skb / 1024)) | $pw | ${pkb:+$((pkb / 1024))} | $speed |" | tee -a "$out/recipe.md"
  done
done

# Memory against the number of files: the first n of max(SCALE) small generated ranks.
scale=(${SCALE-10 100 1000})
[ ${#scale[@]} -gt 0 ] || exit 0
most=$(printf '%s\n' "${scale[@]}" | sort -n | tail -n 1)
scale_events=${SCALE_EVENTS:-2000}
many="$data/many-$scale_events"
mkdir -p "$many"
for k in $(seq 1 "$most"); do
  f="$many/rank_$(printf %04d "$k").sqlite"
  [ -f "$f" ] || "$CARGO_TARGET_DIR/release/make_nsys_export" "$f" "$scale_events" --seed "$k" > /dev/null
done
{
  echo
  echo "| recipe | files (× $scale_events events) | Sightline wall (s) | peak RSS (MB) | nsys recipe wall (s) | peak RSS (MB) |"
  echo "|---|---|---|---|---|---|"
} | tee -a "$out/recipe.md"
for recipe in ${SCALE_RECIPES:-cuda_gpu_kern_sum nvtx_sum cuda_gpu_time_util_map}; do
  for n in "${scale[@]}"; do
    read -r sw skb < <(best "$repeats" "$bin" recipe "$recipe" --input "$many:$n" --output "$out/recipe-sl" --force-overwrite)
    pw=-; pkb=
    if [ -z "${SKIP_PEER:-}" ] && [ "$n" -le "${PEER_SCALE_MAX:-100}" ]; then
      rm -rf "$out/recipe-nv"
      files=("$many"/*.sqlite)
      /usr/bin/time -f "%e %M" -o "$out/time.txt" bash "$oracle" "$recipe" "$out/recipe-nv" "${files[@]:0:$n}" > /dev/null 2>&1 || true
      read -r pw pkb < "$out/time.txt"
      peer_wrote || { pw="failed ($pw)"; pkb=; }
    fi
    echo "| $recipe | $n | $sw | $((skb / 1024)) | $pw | ${pkb:+$((pkb / 1024))} |" | tee -a "$out/recipe.md"
  done
done
