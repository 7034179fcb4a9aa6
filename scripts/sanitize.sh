#!/usr/bin/env bash
# Sanitizer build: the library, the CLI and the GoogleTest unit tests with AddressSanitizer and
# UndefinedBehaviorSanitizer (CUDA off, no benchmarks), in ./build-sanitize; then the unit tests
# (ctest without the "integration" label: the comparisons with source-extractor, STILTS and
# astropy take minutes under ASan and exercise the same code; nor "gpu", test_core_gpu's, which
# a CUDA-off build lacks. The <module>-gpu tests run: without a device most skip, and some, such
# as GpuMeasureBody, run the kernels' bodies on the host). Any ASan or UBSan report fails
# the test it happens in. Leaks inside wcslib are suppressed (tests/fuzz/lsan.supp says which).
#   bash scripts/sanitize.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release -DCELERIS_CUDA=OFF -DCELERIS_BENCH=OFF \
  -DCELERIS_SANITIZE=address,undefined "${launcher[@]}" >/dev/null
cmake --build build-sanitize -j "$jobs" --target celeris_cli test_core test_extract test_xmatch \
  test_maxsub test_hyperspectral
# Full unwinding at malloc: the library frames the suppressions name are otherwise lost.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd build-sanitize
ctest --output-on-failure -j "$jobs" -LE "integration|parity|^gpu$" "$@"
