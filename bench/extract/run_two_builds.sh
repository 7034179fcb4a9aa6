#!/usr/bin/env bash
# On the GPU machine: a change to the clean pass, this build (.devbin, scripts/device-bundle.sh)
# against the build before it (its bench_clean and bench_extract_stages copied into .devbin as
# bench_clean_a and bench_extract_stages_a), on the dense 4096^2 frame: the pass alone
# (bench_clean, one thread) and then the whole frame on the GPU (run_ab.sh, cuda-pinned), the
# builds in turn PAIRS times each; then the back end's device tests and, where AB lists them,
# paired --ab rounds of this build.
#   PAIRS=4 ROUNDS=15 AB="stage-threads=8 stage-threads=4" bash bench/extract/run_two_builds.sh
# Logs go to $OUT (file names without '=').
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
for exe in bench_clean_a bench_extract_stages_a; do
  [ -x $bin/$exe ] || { echo "missing $bin/$exe: copy the earlier build's there" >&2; exit 2; }
done
f=$(frame_4k dense)  # run_ab.sh's frame too
for p in $(seq 1 "${PAIRS:-4}"); do
  for v in a b; do
    exe=$bin/bench_clean
    [ $v = a ] && exe=$bin/bench_clean_a
    echo "pass alone, $v: $($exe $f --threads 1 --repeat 20 2>&1 | tail -2 | tr '\n' ' ')"
  done
done | tee "$out/pass_alone.txt"
FRAME=dense REPEAT=5 bash bench/extract/run_ab.sh "${PAIRS:-4}" cuda-pinned
# Where this build's pass stood idle in each round (the earlier build may lack the lines).
grep -E "^  clean: (pass|the pass's start|the pass's waits)" "$out/ab_b.txt"
CELERIS_BIN="$(cd "$bin" && pwd)/celeris" timeout "${TEST_SECONDS:-240}" $bin/test_extract \
  --gtest_filter="${TESTS:-GpuBackEnd.*:Clean*:BackEnd.*:CatalogBesidePass.*}" \
  >"$out/gtest.txt" 2>&1
echo "test_extract exit status $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|tests ran" "$out/gtest.txt" | head -20
for ab in ${AB:-}; do
  name=$(echo "ab_$ab" | tr '=' '_')
  $bin/bench_extract_stages $f --devices cuda-pinned --ab "$ab" --rounds "${ROUNDS:-15}" \
    >"$out/$name.txt" 2>&1
  echo "dense cuda-pinned, b = $ab:"
  grep -E "total \(median\)|rounds' differences|clean: pass|pass's start|pass's waits|catalogs" \
    "$out/$name.txt"
done
