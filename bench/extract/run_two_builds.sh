#!/usr/bin/env bash
# On the GPU machine: this build's binaries (.devbin, scripts/device-bundle.sh) against an
# earlier build's (.devbin/old: bench_clean and bench_extract_stages copied there beforehand), in
# turn on the same dense 4096^2 frame: the clean pass alone (bench_clean, one thread) and the
# whole frame on the GPU (bench_extract_stages, cuda-pinned), PAIRS alternations each, then the
# device tests of the back end and, where AB lists them, paired --ab rounds of this build.
#   PAIRS=4 ROUNDS=15 AB="stage-threads=8 stage-threads=4" bash bench/extract/run_two_builds.sh
# Logs go to $OUT (file names without '=').
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
source scripts/device-libs.sh
bin=.devbin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
work=/tmp/twobuilds
mkdir -p "$work"
f=$work/dense4k.fits
$bin/celeris simulate image --size 4096 --seed 7 --density dense -o $f >/dev/null
rm -f $work/*.truth.fits
for p in $(seq 1 "${PAIRS:-4}"); do
  for b in old new; do
    d=$bin/old; [ $b = new ] && d=$bin
    echo "pass alone, $b: $($d/bench_clean $f --threads 1 --repeat 20 2>&1 | tail -2 | tr '\n' ' ')"
  done
done | tee "$out/pass_alone.txt"
for p in $(seq 1 "${PAIRS:-4}"); do
  for b in old new; do
    d=$bin/old; [ $b = new ] && d=$bin
    $d/bench_extract_stages $f --devices cuda-pinned --repeat 5 >"$out/frame_${b}_$p.txt" 2>&1
    echo "frame, $b: $(grep -E '^device' "$out/frame_${b}_$p.txt") pass $(grep -E '^  clean: pass' "$out/frame_${b}_$p.txt" | awk '{print $(NF-1)}') ms," \
      "start $(grep -E "^  clean: the pass's start" "$out/frame_${b}_$p.txt" | awk '{print $(NF-1)}')," \
      "waits $(grep -E "^  clean: the pass's waits" "$out/frame_${b}_$p.txt" | awk '{print $(NF-1)}')"
  done
done | tee "$out/frames.txt"
CELERIS_BIN="$(cd "$bin" && pwd)/celeris" timeout "${TEST_SECONDS:-240}" $bin/test_extract \
  --gtest_filter="${TESTS:-GpuBackEnd.*:CleanPass.*:Clean*:BackEnd.*:CatalogBesidePass.*}" \
  >"$out/gtest.txt" 2>&1
echo "test_extract exit status $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|tests ran" "$out/gtest.txt" | head -20
for ab in ${AB:-}; do
  name=$(echo "ab_$ab" | tr '=' '_')
  $bin/bench_extract_stages $f --devices cuda-pinned --ab "$ab" --rounds "${ROUNDS:-15}" \
    >"$out/$name.txt" 2>&1
  echo "dense cuda-pinned, b = $ab:"
  grep -E "total \(median\)|rounds' differences|clean: pass|pass's start|pass's waits|catalogs" "$out/$name.txt"
done
