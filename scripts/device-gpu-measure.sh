#!/usr/bin/env bash
# On the GPU machine (carry .debs/, made by scripts/fetch-device-debs.sh): builds test_extract and
# bench_extract_stages with CUDA, runs the GPU measurement's tests (GpuMeasure.*: photometry on
# the GPU == on the CPU, bit for bit) and the GPU front end's (GpuFrontEnd.*), then times every
# stage, the GPU measurement's upload, kernel and download included, on a crowded 4096^2 frame
# (CPU and GPU paths, catalogs compared), and compares the CLI's outputs with --device cuda and
# --device cpu byte for byte (scripts/compare-builds.py: every parameter and check image, on the
# parity simulations and a crowded 4096^2 field; FULL=1: its five configurations, not only the
# defaults). Logs go to $OUT.
#   bash scripts/device-gpu-measure.sh            (carry .debs)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
# Sourced outside a pipeline, so that its environment (LD_LIBRARY_PATH) stays for what follows.
source scripts/device-build.sh celeris_cli test_extract bench_extract_stages >"$out/build.txt" 2>&1
tail -3 "$out/build.txt"
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
quick=--quick
[ "${FULL:-0}" = 1 ] && quick=
python3 scripts/compare-builds.py $bin/celeris $bin/celeris $work/cmp --images /nonexistent \
  --b-args "--device cuda" $quick >"$out/compare.txt" 2>&1
echo "compare-builds exit status $?"
grep -v identical "$out/compare.txt" | tail -20
