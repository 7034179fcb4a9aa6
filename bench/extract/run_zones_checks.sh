#!/usr/bin/env bash
# On the GPU machine (carry .devbin, built by scripts/device-bundle.sh, plus the build before a
# change to the GPU clean zones as .devbin/bench_extract_stages_a): the zones', back end's and
# cleaning's device tests, dense4k's and crowded4k's CLI catalogs on both devices (cmp), ROUNDS
# a/b rounds of the dense frame in turn with the zones' step lines, and this build's timeline.
#   bash bench/extract/run_zones_checks.sh [ROUNDS]
set -u
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
rounds=${1:-4}
CELERIS_BIN="$(cd .devbin && pwd)/celeris" timeout 240 .devbin/test_extract \
  --gtest_filter="GpuCleanZones.*:GpuBackEnd.*:BackEnd.*:*Clean*:GpuShapes.*" >$out/gtest.txt 2>&1
echo "test_extract rc=$? $(grep -E "^\[  (PASSED|FAILED|SKIPPED) " $out/gtest.txt | tr "\n" " ")"
grep -E "^\[  FAILED" $out/gtest.txt | head
for d in dense crowded; do
  f=$(frame_4k $d)
  .devbin/celeris extract $f --device cuda -CATALOG_NAME $out/cat_cuda.txt >/dev/null 2>&1
  echo "$d cli cuda rc=$?"
  .devbin/celeris extract $f --device cpu -CATALOG_NAME $out/cat_cpu.txt >/dev/null 2>&1
  echo "$d cli cpu rc=$?"
  cmp $out/cat_cuda.txt $out/cat_cpu.txt && echo "$d cli catalogs identical, $(wc -l <$out/cat_cpu.txt) lines"
  rm -f $out/cat_cuda.txt $out/cat_cpu.txt
done
f=$(frame_4k dense)
for r in $(seq 1 "$rounds"); do
  for v in a b; do
    exe=$bin/bench_extract_stages
    [ $v = a ] && exe=$bin/bench_extract_stages_a
    timeout 60 $exe $f --repeat 5 --devices cuda-pinned >$out/ab_${v}_$r.txt 2>&1
    echo "round $r $v: $(grep -E '^device' $out/ab_${v}_$r.txt | sed 's/objects.*total/total/' | tr '\n' ' ')"
    grep -E "gpu zones|clean zones|waits for later|clean: pass" $out/ab_${v}_$r.txt | sed 's/^/    /'
  done
done
timeout 60 $bin/bench_extract_stages $f --devices cuda-pinned --repeat 5 --timeline 1 >$out/timeline_b.txt 2>&1
echo "timeline rc=$?"
