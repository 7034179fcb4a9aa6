#!/usr/bin/env bash
# On the GPU machine (carry .devbin): the GPU photometry's tail after the clean pass on a 4096^2
# frame ("gpu measure kernel": the wait for the batches queued beside the pass): paired rounds of
# other batch sizes (0: every row after the pass, one launch), then, where nsys exists, the
# kernels' GPU time over REPEAT frames (cuda_gpu_kern_sum).
#   FRAME=dense ROUNDS=9 BATCHES="0 16384 1024" bash bench/extract/run_photometry_tail.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
f=$(frame_4k "${FRAME:-dense}")
for b in ${BATCHES:-0 16384 1024}; do
  name="ab_photometry_batch_${b}_${FRAME:-dense}"
  timeout "${AB_SECONDS:-100}" $bin/bench_extract_stages "$f" --devices cuda-pinned \
    --ab "photometry-batch=$b" --rounds "${ROUNDS:-9}" >"$out/$name.txt" 2>&1
  echo "b = photometry-batch=$b: $(grep -E "total \(median\)|rounds' differences|catalogs|gpu measure kernel|^  measure  " \
    "$out/$name.txt" | tr -s ' ' | tr '\n' ' ')"
done
if command -v nsys >/dev/null; then
  timeout 120 nsys profile -o /tmp/phot --force-overwrite true -t cuda \
    $bin/bench_extract_stages "$f" --devices cuda-pinned --repeat "${REPEAT:-3}" >/dev/null 2>&1
  nsys stats --report cuda_gpu_kern_sum --format csv /tmp/phot.nsys-rep 2>/dev/null |
    cut -d, -f1-4,9 | head -25 | tee "$out/kern_sum.csv"
else
  echo "no nsys"
fi
# With .devbin/bench_extract_stages_s8 (a build with 8 batch streams, MeasureContext::
# kBatchStreams, instead of 4): the two builds in turn, ROUNDS times.
if [ -x $bin/bench_extract_stages_s8 ]; then
  for r in $(seq 1 "${ROUNDS:-9}"); do
    for v in main s8; do
      exe=$bin/bench_extract_stages
      [ $v = s8 ] && exe=$bin/bench_extract_stages_s8
      $exe "$f" --devices cuda-pinned --repeat 5 >"$out/streams_${v}_$r.txt" 2>&1
      echo "round $r $v: $(grep -E '^device|gpu measure kernel|^  measure  ' "$out/streams_${v}_$r.txt" |
        sed 's/objects.*total/total/' | tr -s ' ' | tr '\n' ' ')"
    done
  done
fi
