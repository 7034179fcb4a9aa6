#!/usr/bin/env bash
# On the GPU machine (carry .devbin): paired rounds of each option against the defaults
# (bench_extract_stages --ab, which also compares the two catalogs) on one 4096^2 frame, under
# each environment setting in turn; one log per pair in $OUT. With TESTS set, that gtest filter
# of test_extract first. LINES: the stage lines printed beside the totals (an extended regex).
# ARGS: more options of bench_extract_stages, for both a and b (e.g. "--timeline 1").
#   FRAME=dense ROUNDS=9 OPTS="pass-alone=0 stage-threads=8" ENVS="X=1 GOMP_SPINCOUNT=1000" \
#     TESTS="BackEnd.*:GpuBackEnd.*" bash bench/extract/run_ab_options.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
if [ -n "${TESTS:-}" ]; then
  CELERIS_BIN="$(cd "$bin" && pwd)/celeris" timeout "${TEST_SECONDS:-240}" $bin/test_extract \
    --gtest_filter="$TESTS" >"$out/gtest.txt" 2>&1
  echo "test_extract exit status $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gtest.txt" | tr '\n' ' ')"
fi
f=$(frame_4k "${FRAME:-dense}")
for e in ${ENVS:-X=1}; do
  for o in ${OPTS:-pass-alone=0}; do
    name=$(echo "ab_${e%%=*}_${o}_${FRAME:-dense}" | tr '=,.' '___')
    env "$e" timeout "${AB_SECONDS:-200}" $bin/bench_extract_stages "$f" --devices cuda-pinned \
      --ab "$o" --rounds "${ROUNDS:-9}" ${ARGS:-} >"$out/$name.txt" 2>&1
    echo "$e, b = $o: $(grep -E "total \(median\)|rounds' differences|catalogs|${LINES:-clean: pass, beside}" \
      "$out/$name.txt" | tr -s ' ' | tr '\n' ' ')"
  done
done
