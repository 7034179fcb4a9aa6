#!/usr/bin/env bash
# On the GPU machine, after scripts/device-extract-gpu.sh (build-gpu/ built, /tmp/cmp holding its
# simulations): simulates the benchmark frames, times the CPU path (all host cores) and the GPU
# front end stage by stage (bench_extract_stages), source-extractor on the same frames, and
# cupyx.scipy.ndimage.label on the same threshold mask. Prints everything; logs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=build-gpu/bin
work=/tmp/gpubench
mkdir -p "$work"
$bin/celeris simulate image --size 2048 --seed 31 -o $work/sparse2k.fits >/dev/null
$bin/celeris simulate image --size 4096 --seed 32 -o $work/sparse4k.fits >/dev/null
cp /tmp/cmp/sim_crowded4k.fits $work/crowded4k.fits 2>/dev/null ||
  $bin/celeris simulate image --size 4096 --seed 21 --density crowded -o $work/crowded4k.fits >/dev/null
$bin/celeris simulate image --size 8192 --seed 33 --density crowded -o $work/crowded8k.fits >/dev/null
for f in sparse2k sparse4k crowded4k crowded8k; do
  echo "== $f"
  $bin/bench_extract_stages $work/$f.fits --repeat ${REPEAT:-5}
  if command -v source-extractor >/dev/null; then
    /usr/bin/time -f "source-extractor: %e s wall" source-extractor $work/$f.fits \
      -CATALOG_NAME $work/$f.se.cat -VERBOSE_TYPE QUIET 2>&1 | tail -1
  fi
done
# The labelling baseline on crowded4k's mask.
$bin/celeris extract $work/crowded4k.fits -CATALOG_TYPE NONE -CHECKIMAGE_TYPE -BACKGROUND,FILTERED \
  -CHECKIMAGE_NAME $work/value.fits,$work/filtered.fits > $work/summary.txt 2>&1
thresh=$(awk '/threshold/ {print $2}' $work/summary.txt)
python3 bench/extract/label_cupy.py $work/value.fits $work/filtered.fits "$thresh" --repeat 20
