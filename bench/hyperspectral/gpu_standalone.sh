#!/usr/bin/env bash
# Builds and runs spp_gpu_check with nvcc alone (no CMake, CFITSIO or matio needed), from the
# repository root: bash bench/hyperspectral/gpu_standalone.sh [build-dir]
set -euo pipefail
out=${1:-/tmp/spp_gpu}
mkdir -p "$out"
flags="-O3 -std=c++20 -Iinclude -Isrc -DCELERIS_HAVE_CUDA=1"
for f in src/hyperspectral/{cube,spp,spp_reference}.cpp src/sim/cube_sim.cpp src/core/device.cpp \
         bench/hyperspectral/spp_gpu_check.cpp; do
  g++ $flags -fopenmp -DSPP_STANDALONE -c "$f" -o "$out/$(basename "$f").o" &
done
# envi.cpp holds the ENVI list helpers cube.cpp uses.
g++ $flags -fopenmp -c src/hyperspectral/envi.cpp -o "$out/envi.o" &
nvcc $flags -arch=sm_90 -Xcompiler -fopenmp -c src/hyperspectral/spp_cuda.cu -o "$out/spp_cuda.o" &
nvcc $flags -arch=sm_90 -c src/core/device_cuda.cu -o "$out/device_cuda.o" &
wait
nvcc -arch=sm_90 -Xcompiler -fopenmp "$out"/*.o -o "$out/spp_gpu_check"
"$out/spp_gpu_check"
