#!/usr/bin/env bash
# On the GPU machine, with the binaries scripts/device-bundle.sh built here (carry .devbin): the
# GPU tests (GPU == CPU, bit for bit), the stage timings of a crowded 4096^2 frame (CPU on all
# host cores, GPU from page-locked memory), the CLI's outputs with --device cuda and cpu compared
# byte for byte (scripts/compare-builds.py --quick), and a stream of crowded frames on both
# devices with the stream's per-thread accounting (-VERBOSE_TYPE FULL). Logs go to $OUT.
# BIN=build-gpu/bin: binaries built on the device instead (source scripts/device-build.sh first).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
if [ -n "${BIN:-}" ]; then
  bin=$BIN  # binaries built on this machine (scripts/device-build.sh, sourced beforehand)
  tests=${BIN%/bin}/tests  # a build tree's test binaries sit beside its bin/
else
  source scripts/device-libs.sh
  bin=.devbin
  tests=.devbin
fi
if ldd $bin/celeris | grep "not found"; then exit 1; fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
# The tests that run the command-line tool find it through $CELERIS_BIN (the build's path is
# this machine's).
CELERIS_BIN="$(cd "$bin" && pwd)/celeris" $tests/test_extract --gtest_filter='GpuBackgroundFinish.*:Background*:GpuDeblendChildren.*:GpuLabel.*:GpuBlanking.*:GpuShapes.*:GpuCleanZones.*:GpuMeasure.*:GpuFrontEnd.*:GpuBackEnd.*:GpuDeblendTrees.*:GpuDeblendLevels.*:GpuWeightedDetection.*:GpuWeightedFrontEnd.*:DualImage.*:BackEnd.*:OpenMpTeam.*:Frames.*:PinnedFramePool.*:Deblend.*:CleanList.*:CleanPairs.*:CleanPass.*:ExtractRobust.*:Weight*:DeviceMemoryPlan.*' >"$out/gtest.txt" 2>&1
echo "test_extract exit status $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure" "$out/gtest.txt" | head -30
# The CUDA layer's own device tests (glibc's exception lists on the device among them).
if [ -x $tests/test_core_gpu ]; then
  $tests/test_core_gpu >"$out/core_gpu.txt" 2>&1
  echo "test_core_gpu exit status $?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure" "$out/core_gpu.txt" | head -10
fi
work=/tmp/prebuilt
mkdir -p "$work/stream"
$bin/celeris simulate image --size 4096 --seed 21 --density crowded -o $work/crowded4k.fits >/dev/null
for i in $(seq 1 ${NSTREAM:-8}); do
  $bin/celeris simulate image --size 4096 --density crowded --seed $((100 + i)) \
    -o "$work/stream/c$i.fits" >/dev/null &
done
wait
rm -f "$work"/stream/*.truth.fits
$bin/bench_extract_stages $work/crowded4k.fits --repeat ${REPEAT:-5} \
  --devices cpu,cuda-pinned 2>&1 | tee "$out/bench.txt"
# DENSE=1: the paper's workload too (about 150k catalog rows on 4096^2), its stage timings and
# its catalog from either device compared byte for byte.
if [ -n "${DENSE:-}" ]; then
  $bin/celeris simulate image --size 4096 --seed 7 --density dense -o $work/dense4k.fits >/dev/null
  $bin/bench_extract_stages $work/dense4k.fits --repeat ${REPEAT:-5} \
    --devices cpu,cuda-pinned 2>&1 | tee "$out/bench_dense.txt"
  for dev in cuda cpu; do
    $bin/celeris extract $work/dense4k.fits -CATALOG_NAME $work/dense4k.$dev.cat --device $dev \
      2>"$out/dense_$dev.txt"
  done
  if cmp -s $work/dense4k.cuda.cat $work/dense4k.cpu.cat; then echo "dense: cuda catalog identical to cpu"
  else echo "dense: cuda catalog DIFFERS from cpu"; fi
  wc -l $work/dense4k.cpu.cat
fi
# The deblending stage detection by detection: whether all host cores are kept busy.
[ -x $bin/bench_deblend ] && $bin/bench_deblend $work/crowded4k.fits --threads "$(nproc)" \
  --repeat ${REPEAT:-5} --top 3 --cores "$(nproc)" 2>&1 | tee "$out/deblend.txt"
for dev in cuda cpu; do
  mkdir -p "$work/stream/$dev"
  cat "$work"/stream/*.fits >/dev/null
  $bin/celeris extract "$work"/stream/c*.fits -CATALOG_NAME "$work/stream/$dev/{stem}.cat" \
    --device $dev --progress none -VERBOSE_TYPE FULL 2>&1 | tee "$out/stream_$dev.txt"
done
same=0
for f in "$work"/stream/cpu/*.cat; do cmp -s "$f" "$work/stream/cuda/$(basename "$f")" && same=$((same + 1)); done
echo "stream: cuda catalogs identical to cpu catalogs: $same of ${NSTREAM:-8}"
# COMPARE_FULL=1: every configuration on the simulations and the images in .data/images
# (carried) instead of the quick default-configuration pass on the simulations.
if [ -n "${COMPARE_FULL:-}" ]; then compare=(--images .data/images); else compare=(--images /nonexistent --quick); fi
# The quick pass on the H200's host, stop 34: cut at 45 s before its first case; finished, 8 of 8
# identical, within 150 s.
timeout ${COMPARE_SECONDS:-150} python3 scripts/compare-builds.py $bin/celeris $bin/celeris $work/cmp "${compare[@]}" \
  --b-args "--device cuda" >"$out/compare.txt" 2>&1
echo "compare-builds exit status $?"
grep -v identical "$out/compare.txt" | tail -8
