#!/usr/bin/env bash
# On the GPU machine, one call: build, the GPU tests of the extraction (GPU front end, the
# stream of frames, its pool of page-locked buffers), the byte comparison of --device cuda with
# the CPU path (quick set; COMPARE=0 skips it), the per-stage times of one crowded frame
# (STAGES_BENCH=0 skips them), and the stream benchmark (bench/extract/run_stream_bench.sh, with
# bench_stream's shapes). Logs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
source scripts/device-build.sh celeris_cli test_extract bench_extract_stages bench_stream >"$out/build.log" 2>&1
tail -2 "$out/build.log"  # (sourced, not piped: the carried packages' PATH stays set)
build-gpu/bin/celeris version
build-gpu/tests/test_extract --gtest_filter='GpuFrontEnd.*:Frames.*:FrameNames.*:PinnedFramePool.*:Deblend*:DeviceImage*' 2>&1 | tail -4
# COMPARE_ARGS=--quick: the default configuration only; COMPARE_SECONDS bounds the comparison.
if [ "${COMPARE:-1}" = 1 ]; then
  timeout "${COMPARE_SECONDS:-300}" python3 scripts/compare-builds.py build-gpu/bin/celeris \
    build-gpu/bin/celeris /tmp/cmp --images .data/images --b-args "--device cuda" ${COMPARE_ARGS:-} \
    2>&1 | tee "$out/compare.txt" | tail -3
fi
if [ "${STAGES_BENCH:-1}" = 1 ] && [ -f /tmp/cmp/sim_crowded4k.fits ]; then
  build-gpu/bin/bench_extract_stages /tmp/cmp/sim_crowded4k.fits --repeat 5 2>&1 | tee "$out/stages.txt"
fi
STAGES=${STAGES:-1} bash bench/extract/run_stream_bench.sh "${STREAM_CROWDED:-6}" "${STREAM_SPARSE:-16}" 2>&1 | tee "$out/stream.txt"
