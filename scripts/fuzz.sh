#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, ASan + UBSan) in ./build-fuzz and runs each
# for a bounded time from its committed seed corpus. Fails on any crash, sanitizer report, leak,
# timeout (one input over 10 s) or out-of-memory (over 2 GB); the input that did it is left in
# build-fuzz/artifacts/ (reproduce: build-fuzz/tests/fuzz/fuzz_<target> <file>).
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 30 s, every target)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fits_image fits_gzip fits_table sex param conv csv envi mat)
jobs=$(nproc 2>/dev/null || echo 2)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCELERIS_FUZZ=ON -DCELERIS_CUDA=OFF \
  -DCELERIS_STATIC_CFITSIO=OFF -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j "$jobs" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS=fast_unwind_on_malloc=0  # library frames for the suppressions
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p build-fuzz/artifacts build-fuzz/work
export TMPDIR=$PWD/build-fuzz/work  # the targets' scratch files
failed=()
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t  # grows during the run; the committed seeds stay untouched
  mkdir -p "$corpus"
  log=build-fuzz/fuzz_$t.log
  if build-fuzz/tests/fuzz/fuzz_$t -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix=build-fuzz/artifacts/$t- "$corpus" tests/fuzz/corpus/$t >"$log" 2>&1; then
    echo "fuzz $t: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs in ${seconds}s)"
  else
    echo "fuzz $t: FAILED (log $log)"
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -5
    failed+=("$t")
  fi
done
rm -rf build-fuzz/work
if ((${#failed[@]})); then
  echo "fuzz: failures in ${failed[*]}"
  exit 1
fi
