#!/usr/bin/env bash
# On the GPU machine, after build-gpu/ is built (scripts/device-build.sh celeris_cli
# bench_stream): the frame rate of one `celeris extract --device cuda` stream of N sparse
# 4096^2 frames from the page cache (issue 17's >= 100 frames/s target), the CLI's own count
# over RUNS timed runs after a warm-up run, its threads' steps; the cuda stream's catalogs
# compared with a cpu stream's (cmp, every frame); then bench_stream's shapes (SHAPES).
# Lighter than run_stream_bench.sh: no one-process-per-frame runs, no source-extractor.
#   bash bench/extract/run_stream_rate.sh [N_SPARSE]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=build-gpu/bin/celeris
work=/tmp/streamrate
n=${1:-64}
mkdir -p "$work/frames"
for i in $(seq 1 "$n"); do
  f="$work/frames/s$i.fits"
  [ -f "$f" ] || $bin simulate image --size 4096 --seed $((200 + i)) -o "$f" >/dev/null &
  (( i % 8 == 0 )) && wait
done
wait
rm -f "$work"/frames/*.truth.fits
# The frames written back to disk first: a writeback running under the timed runs takes cores
# and slowed them by up to a third on the H100 host.
sync
cat "$work"/frames/*.fits >/dev/null
run() {  # run DEVICE DIR
  rm -rf "$work/$2" && mkdir -p "$work/$2"
  $bin extract "$work"/frames/*.fits -CATALOG_NAME "$work/$2/{stem}.cat" --device "$1" \
    --progress none -VERBOSE_TYPE FULL 2>"$work/$2.log"
}
run cuda warm
for r in $(seq 1 "${RUNS:-2}"); do
  run cuda "cuda$r"
  echo "cuda stream, run $r:"
  sed -n '/^celeris extract:/,/^  stages/p' "$work/cuda$r.log" | grep -v '^  stages'
done
run cpu cpu
same=0
for f in "$work"/cpu/*.cat; do cmp -s "$f" "$work/cuda1/$(basename "$f")" && same=$((same + 1)); done
echo "cuda stream catalogs identical to the cpu stream's: $same of $n"
if [ -x build-gpu/bin/bench_stream ]; then
  build-gpu/bin/bench_stream "$work"/frames/*.fits --device cuda --repeat 2 \
    --shapes "${SHAPES:-6/8/0,6/8/2}"
fi
