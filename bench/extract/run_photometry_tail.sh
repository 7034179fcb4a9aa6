#!/usr/bin/env bash
# On the GPU machine (carry .devbin): the GPU photometry's tail after the clean pass on a 4096^2
# frame ("gpu measure kernel": the wait for the batches queued beside the pass): paired rounds of
# other batch sizes against the default (run_ab_options.sh; 0: every row after the pass, one
# launch), then, where nsys exists, the kernels' GPU time over REPEAT frames (cuda_gpu_kern_sum).
# Two builds (another MeasureContext::kBatchStreams, say): run_ab.sh with FRAME=dense.
#   FRAME=dense ROUNDS=9 BATCHES="0 16384 1024" bash bench/extract/run_photometry_tail.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
opts=$(for b in ${BATCHES:-0 16384 1024}; do echo -n "photometry-batch=$b "; done)
OPTS="$opts" LINES="gpu measure kernel|^  measure  " AB_SECONDS="${AB_SECONDS:-100}" \
  bash bench/extract/run_ab_options.sh
source bench/extract/devbin_env.sh >/dev/null
f=$(frame_4k "${FRAME:-dense}")
if command -v nsys >/dev/null; then
  timeout 120 nsys profile -o /tmp/phot --force-overwrite true -t cuda \
    $bin/bench_extract_stages "$f" --devices cuda-pinned --repeat "${REPEAT:-3}" >/dev/null 2>&1
  nsys stats --report cuda_gpu_kern_sum --format csv /tmp/phot.nsys-rep 2>/dev/null |
    cut -d, -f1-4,9 | head -25 | tee "$out/kern_sum.csv"
else
  echo "no nsys"
fi
