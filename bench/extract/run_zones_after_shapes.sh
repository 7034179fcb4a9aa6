#!/usr/bin/env bash
# On the GPU machine (from the repo root, carry .debs): stop 68's change, written when no device
# was lent. Builds, runs the device tests that cover it, then times it on the crowded 4096^2
# frame: the clean zones found right after the GPU shapes (Config::gpu_zones_after_shapes, off
# until this has run) in paired rounds within one process (a: off, b: on), and an Nsight Systems
# timeline of two frames where nsys is installed. Summaries last (the tool returns the output's
# tail). Logs to $OUT.
#   bash bench/extract/run_zones_after_shapes.sh [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
rounds=${1:-12}
{ time source scripts/device-build.sh celeris_cli test_extract bench_extract_stages; } \
  >"$out/build.txt" 2>&1
echo "build exit status $?"
bin=build-gpu/bin
tests=build-gpu/tests
work=/tmp/zones
mkdir -p $work
frame=$work/crowded4k.fits
[ -f $frame ] ||
  $bin/celeris simulate image --size 4096 --seed 21 --density crowded -o $frame >/dev/null
CELERIS_BIN="$(pwd)/$bin/celeris" $tests/test_extract \
  --gtest_filter='GpuShapes.*:GpuCleanZones.*:GpuBackEnd.*:BackEnd.*:CleanPass.*:CleanPairs.*' \
  >"$out/gtest.txt" 2>&1
echo "test_extract exit status $?"
$bin/bench_extract_stages $frame --devices cuda-pinned --ab zones-after-shapes=1 \
  --rounds "$rounds" >"$out/ab.txt" 2>&1
echo "ab exit status $?"
if command -v nsys >/dev/null; then
  timeout 150 nsys profile -o $work/timeline --force-overwrite true -t cuda,osrt --sample=none \
    $bin/bench_extract_stages $frame --devices cuda-pinned --repeat 2 >"$out/nsys.txt" 2>&1
  timeout 90 nsys stats -r cuda_gpu_trace -f csv -o "$out/trace" $work/timeline.nsys-rep \
    >>"$out/nsys.txt" 2>&1
fi
grep -E "PASSED|FAILED|passed|failed" "$out/gtest.txt" | head -20
grep -v "pass census" "$out/ab.txt" | head -80
