#!/usr/bin/env bash
# On the GPU machine (Ubuntu, nvcc, no apt): unpack the carried Debian packages from .debs/ into
# a prefix, build celeris with CUDA (sm_90) and run the tests (all, or those matching $1 as a
# ctest -L label regex; `gpu`: the tests that need the device). Usage: bash scripts/device.sh
# [label-regex] ; $OUT gets the logs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/device-env.sh
jobs=$(nproc)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCELERIS_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCELERIS_PYTHON=python3 -DGTest_DIR="$lib/cmake/GTest" -DCLI11_DIR="$prefix/usr/share/cmake/CLI11"
cmake --build build-gpu -j "$jobs" -- -k || echo "BUILD HAD ERRORS (continuing with what built)"
build-gpu/bin/celeris version
cd build-gpu
set +e
if [ -n "${1:-}" ]; then
  ctest --output-on-failure -j "$jobs" -L "$1"
else
  ctest --output-on-failure -j "$jobs"
fi
