#!/usr/bin/env bash
# On the GPU machine (carry .debs/, made by scripts/fetch-device-debs.sh): builds test_extract and
# bench_extract_stages with CUDA, runs the GPU measurement's tests (GpuMeasure.*: photometry on
# the GPU == on the CPU, bit for bit) and the GPU front end's (GpuFrontEnd.*), then times every
# stage, the GPU measurement's upload, kernel and download included, on a crowded 4096^2 frame
# (CPU and GPU paths, catalogs compared). Logs go to $OUT.
#   bash scripts/device-gpu-measure.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
source scripts/device-build.sh celeris_cli test_extract bench_extract_stages 2>&1 | tail -3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
build-gpu/tests/test_extract --gtest_filter='GpuMeasure.*:GpuFrontEnd.*' >"$out/gtest.txt" 2>&1
echo "test_extract exit status $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|FLUX|FLAGS|KRON|XWIN" "$out/gtest.txt" |
  head -60
bin=build-gpu/bin
work=/tmp/gpumeasure
mkdir -p "$work"
$bin/celeris simulate image --size 4096 --seed 21 --density crowded -o $work/crowded4k.fits \
  >/dev/null
$bin/bench_extract_stages $work/crowded4k.fits --repeat ${REPEAT:-5} 2>&1 | tee "$out/bench.txt"
