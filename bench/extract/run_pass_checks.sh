#!/usr/bin/env bash
# On the GPU machine (carry .devbin, built by scripts/device-bundle.sh, plus an earlier build's
# bench_clean copied in as .devbin/bench_clean_a): the back end's, cleaning's, measurement's and
# deblending's device tests, dense4k's CLI catalog on both devices (cmp), the clean pass alone
# with the earlier build (a) and this one (b) in turn on one vCPU, and the frame's stage lines.
#   bash bench/extract/run_pass_checks.sh
set -u
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh >/dev/null
f=$(frame_4k dense)
CELERIS_BIN="$(cd .devbin && pwd)/celeris" timeout 240 .devbin/test_extract --gtest_filter="BackEnd.*:GpuBackEnd.*:*Clean*:CatalogBesidePass.*:GpuMeasure.*:*Deblend*" > $out/gtest.txt 2>&1
echo "test_extract rc=$? $(grep -E "^\[  (PASSED|FAILED|SKIPPED) " $out/gtest.txt | tr "\n" " ")"
.devbin/celeris extract $f --device cuda -CATALOG_NAME $out/cat_cuda.txt > /dev/null 2>&1; echo "cli cuda rc=$?"
.devbin/celeris extract $f --device cpu -CATALOG_NAME $out/cat_cpu.txt > /dev/null 2>&1; echo "cli cpu rc=$?"
cmp $out/cat_cuda.txt $out/cat_cpu.txt && echo "cli catalogs identical, $(wc -l < $out/cat_cpu.txt) lines"
rm -f $out/cat_cuda.txt $out/cat_cpu.txt
echo "--- the pass alone, a (0d4dc6f) and b (this stop's), in turn, pinned to vCPU 3"
for i in 1 2 3 4 5 6; do
  for v in a b; do
    bin_v=.devbin/bench_clean; [ $v = a ] && bin_v=.devbin/bench_clean_a
    echo "$i $v $(taskset -c 3 $bin_v $f --repeat 11 --threads 1 2>&1 | tail -2 | tr '\n' ' ')"
  done
done
echo "--- the frame"
timeout 120 .devbin/bench_extract_stages $f --devices cuda-pinned --repeat 9 --timeline 1 > $out/frame.txt 2>&1
grep -E "total|clean: pass|pass's CPU|faults|pass ends" $out/frame.txt
