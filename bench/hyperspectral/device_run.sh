#!/usr/bin/env bash
# On the GPU machine, from the repository root: builds the SPP targets, runs the hyperspectral
# tests (GPU ones included) and the benchmark, writing logs to $OUT (default /tmp/spp_out).
# Real scenes: ../shared/data/hyperspectral, or a copy in build-spp-data/hyperspectral (carried).
#   bash bench/hyperspectral/device_run.sh [tests|bench|all] [bench args...]
set -uo pipefail
what=${1:-all}
shift || true
out=${OUT:-/tmp/spp_out}
mkdir -p "$out"
data=../shared/data/hyperspectral
if [ ! -d "$data" ] && [ -d build-spp-data/hyperspectral ]; then
  mkdir -p ../shared/data 2>/dev/null && cp -r build-spp-data/hyperspectral ../shared/data/ ||
    echo "cannot create ../shared/data: real-scene tests will skip"
fi
source scripts/device-build.sh celeris test_hyperspectral bench_spp >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
if [ "$what" = tests ] || [ "$what" = all ]; then
  build-gpu/tests/test_hyperspectral >"$out/tests.log" 2>&1
  echo "tests rc=$?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|tests ran" "$out/tests.log" | tail -25
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  real=$(ls ../shared/data/hyperspectral/{cuprite/Rcuprite50x90x188,jasper_ridge/JasperRidge2_R198,samson/Samson,urban/subimage_Urban_R162}.mat 2>/dev/null || true)
  build-gpu/bin/bench_spp "$@" ${real:+--real $real} | tee "$out/bench.txt"
fi
