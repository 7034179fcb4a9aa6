#!/usr/bin/env bash
# On the GPU machine: builds celeris and checks that `celeris extract --device cuda` gives the CPU
# path's outputs byte for byte (scripts/compare-builds.py: every parameter, every check image, five
# configurations) on the simulations and on the images in $1 (default .data/images, carried),
# then times both paths on a crowded 4096^2 field. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
images=${1:-.data/images}
out=${OUT:-/tmp/out}
mkdir -p "$out"
source scripts/device-build.sh celeris_cli test_extract test_core_gpu bench_extract_stages 2>&1 | tail -3
bin=build-gpu/bin/celeris
$bin version
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
build-gpu/tests/test_core_gpu 2>&1 | tail -3
python3 scripts/compare-builds.py $bin $bin /tmp/cmp --images "$images" --b-args "--device cuda" \
  ${COMPARE_ARGS:-} 2>&1 | tee "$out/compare.txt" | grep -v identical
