#!/usr/bin/env bash
# On the GPU machine: like device.sh, but builds only the named targets (default: all) and runs no
# tests, so a benchmark or one test binary can follow in the same call. Usage (from the repo root):
#   source scripts/device-build.sh bench_maxsub maxsub_tests && build-gpu/bin/bench_maxsub ...
# Sourcing keeps LD_LIBRARY_PATH for the commands that follow.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/device-env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCELERIS_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCELERIS_PYTHON=python3 -DGTest_DIR="$lib/cmake/GTest" -DCLI11_DIR="$prefix/usr/share/cmake/CLI11" >/dev/null
if [ "$#" -gt 0 ]; then
  cmake --build build-gpu -j "$(nproc)" --target "$@"
else
  cmake --build build-gpu -j "$(nproc)"
fi
