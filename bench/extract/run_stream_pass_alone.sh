#!/usr/bin/env bash
# On the GPU machine (carry .devbin): a stream of the same 4096^2 frame (bench_stream, from the
# page cache, no catalogs) with the teams that wait for the clean pass asleep (--pass-alone 1,
# the default) or spinning (0), alternated ROUNDS times; the best of REPEAT runs each.
#   FRAME=dense NFRAMES=8 ROUNDS=3 REPEAT=2 bash bench/extract/run_stream_pass_alone.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
f=$(frame_4k "${FRAME:-dense}")
frames=$(for i in $(seq 1 "${NFRAMES:-8}"); do echo -n "$f "; done)
for r in $(seq 1 "${ROUNDS:-3}"); do
  for a in 1 0; do
    name="stream_${FRAME:-dense}_alone${a}_$r"
    # shellcheck disable=SC2086
    timeout "${STREAM_SECONDS:-120}" $bin/bench_stream $frames --device cuda --pass-alone $a \
      --repeat "${REPEAT:-2}" >"$out/$name.txt" 2>&1
    echo "round $r, pass-alone $a: $(grep -E 'frames/s' "$out/$name.txt" | head -2 | tr -s ' ' | tr '\n' ' ')"
  done
done
