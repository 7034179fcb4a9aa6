#!/usr/bin/env bash
# On the GPU machine, with the binaries scripts/device-bundle.sh built here (carry .devbin): the
# back end's defaults on the paper's workload (dense 4096^2, about 150k catalog rows). The
# device tests that cover the back end and the front end (the dense frame's GPU == CPU test
# among them), the frame's stage timings on both devices as defaults, paired rounds against one
# chunk (--ab chunk-objects=0) on both devices, the CLI's catalog from either device compared
# byte for byte, and a stream of dense frames on both devices (rate, catalogs compared).
#   ROUNDS=9 NDENSE=4 bash bench/extract/run_dense_default.sh
# Logs go to $OUT (file names without '=').
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
work=/tmp/densedefault
mkdir -p "$work/stream"
$bin/celeris simulate image --size 4096 --seed 7 --density dense -o $work/dense4k.fits >/dev/null &
for i in $(seq 1 "${NDENSE:-4}"); do
  $bin/celeris simulate image --size 4096 --density dense --seed $((300 + i)) \
    -o "$work/stream/d$i.fits" >/dev/null &
done
CELERIS_BIN="$(cd "$bin" && pwd)/celeris" timeout "${TEST_SECONDS:-240}" $bin/test_extract \
  --gtest_filter="${TESTS:-GpuBackEnd.*:GpuFrontEnd.*:BackEnd.*:GpuCleanZones.*:GpuShapes.*:GpuMeasure.*:CatalogBesidePass.*:CleanPass.*}" \
  >"$out/gtest.txt" 2>&1
echo "test_extract exit status $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|tests ran" "$out/gtest.txt" | head -20
wait
rm -f "$work"/stream/*.truth.fits "$work"/*.truth.fits
f=$work/dense4k.fits
$bin/bench_extract_stages $f --repeat "${REPEAT:-5}" --devices cuda-pinned,cpu \
  >"$out/bench_default.txt" 2>&1
grep -E "^(device|  total|  clean: pass|  deblend  |  measure  )" "$out/bench_default.txt"
# AB="OPTION=VALUE:DEVICE:FRAME ..." (FRAME dense or crowded): paired rounds against the
# defaults; by default one chunk against the default chunks, on both devices.
[ -n "${AB_CROWDED:-}" ] && $bin/celeris simulate image --size 4096 --seed 21 --density crowded \
  -o $work/crowded4k.fits >/dev/null && rm -f $work/crowded4k.truth.fits
for ab in ${AB:-chunk-objects=0:cuda-pinned:dense chunk-objects=0:cpu:dense}; do
  IFS=: read -r opt dev frame <<<"$ab"
  name=$(echo "ab_${opt}_${dev}_$frame" | tr '=' '_')
  $bin/bench_extract_stages $work/${frame}4k.fits --devices $dev --ab "$opt" \
    --rounds "${ROUNDS:-9}" >"$out/$name.txt" 2>&1
  echo "$frame $dev, b = $opt:"
  grep -E "total \(median\)|rounds' differences|catalogs" "$out/$name.txt"
done
for dev in cuda cpu; do
  $bin/celeris extract $f -CATALOG_NAME $work/dense4k.$dev.cat --device $dev 2>"$out/cli_$dev.txt"
done
if cmp -s $work/dense4k.cuda.cat $work/dense4k.cpu.cat; then echo "dense CLI: cuda catalog identical to cpu"
else echo "dense CLI: cuda catalog DIFFERS from cpu"; fi
wc -l <$work/dense4k.cpu.cat
cat "$work"/stream/*.fits >/dev/null
for dev in cuda cpu; do
  mkdir -p "$work/stream/$dev"
  $bin/celeris extract "$work"/stream/d*.fits -CATALOG_NAME "$work/stream/$dev/{stem}.cat" \
    --device $dev --progress none -VERBOSE_TYPE FULL >"$out/stream_$dev.txt" 2>&1
  echo "$dev stream:"
  grep -E "frames/s|frames in" "$out/stream_$dev.txt" | head -3
done
same=0
for g in "$work"/stream/cpu/*.cat; do cmp -s "$g" "$work/stream/cuda/$(basename "$g")" && same=$((same + 1)); done
echo "dense stream: cuda catalogs identical to cpu catalogs: $same of ${NDENSE:-4}"
