#!/usr/bin/env bash
# HERE (not on the device): builds the GPU binaries with this machine's nvcc for sm_90 in
# ./build-dev (no MPI, no Parquet: fewer libraries to carry) and copies them, with the Debian
# packages of the shared libraries the device lacks, into ./.devbin (ignored by git; carry it).
# scripts/device-prebuilt.sh then runs them on the device without building there, which saves
# the two to three device-minutes a build costs when a session has little device time left.
#   bash scripts/device-bundle.sh && run(carry=[".devbin"], command="bash scripts/device-prebuilt.sh")
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DCELERIS_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCELERIS_MPI=OFF -DCELERIS_PARQUET=OFF -DCELERIS_PYTHON=python3 "${launcher[@]}" >/dev/null
cmake --build build-dev -j "$(nproc)" --target celeris_cli test_extract bench_extract_stages bench_stream bench_clean \
  bench_deblend bench_gpu_photometry test_core_gpu
# The libm study (bench/extract/libm_rounding.cpp), where this machine's GCC has libquadmath: the
# device's own glibc against the lists found here.
cmake --build build-dev -j "$(nproc)" --target libm_rounding 2>/dev/null || true
rm -rf .devbin && mkdir -p .devbin/debs
cp build-dev/bin/celeris build-dev/bin/bench_extract_stages build-dev/bin/bench_deblend \
  build-dev/bin/bench_gpu_photometry build-dev/bin/bench_stream build-dev/bin/bench_clean \
  build-dev/tests/test_extract build-dev/tests/test_core_gpu .devbin/
[ -x build-dev/bin/libm_rounding ] && cp build-dev/bin/libm_rounding .devbin/
# The Debian packages of the libraries the binaries load that a bare device lacks.
for deb in .debs/libwcs7_*.deb .debs/libexpat1_*.deb; do
  [ -f "$deb" ] || { echo "missing $deb: run scripts/fetch-device-debs.sh" >&2; exit 1; }
  cp "$deb" .devbin/debs/
done
du -sh .devbin
