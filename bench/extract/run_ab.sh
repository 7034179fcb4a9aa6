#!/usr/bin/env bash
# On the GPU machine, with the binaries of scripts/device-bundle.sh (carry .devbin) and a second
# bench_extract_stages built from the code before a change (.devbin/bench_extract_stages_a): the
# crowded 4096^2 frame's stage times from both, alternated ROUNDS times in one call, so that the
# host's speed (which differs by up to 40% between machines) is the same for both. Logs to $OUT,
# one file per variant (ab_a.txt, ab_b.txt). VARIANTS="a0 a1 b" compares more builds: variant v
# runs .devbin/bench_extract_stages_v, variant b the bundle's own.
#   bash bench/extract/run_ab.sh [ROUNDS] [DEVICES]
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
rounds=${1:-3}
devices=${2:-cpu,cuda-pinned}
work=/tmp/ab
# FRAME=dense: the paper's workload (dense 4096^2, seed 7) instead of the crowded frame.
frame_file=$(frame_4k "${FRAME:-crowded}")
for r in $(seq 1 "$rounds"); do
  for v in ${VARIANTS:-a b}; do
    exe=$bin/bench_extract_stages
    [ $v != b ] && exe=$bin/bench_extract_stages_$v
    echo "=== round $r" >>"$out/ab_$v.txt"
    $exe $frame_file --repeat "${REPEAT:-7}" --devices "$devices" >$work/last.txt 2>&1
    cat $work/last.txt >>"$out/ab_$v.txt"
    echo "round $r $v: $(grep -E '^device' $work/last.txt | sed 's/objects.*total/total/' | tr '\n' ' ')"
  done
done
