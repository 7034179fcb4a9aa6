#!/usr/bin/env bash
# On the GPU machine (carry .devbin): which vCPUs share a physical core with vCPU 0, which the
# machine's topology does not say (stop 46). The clean pass alone (bench_clean, one thread) is
# timed on vCPU 0, first with every other vCPU idle, then with one busy loop pinned to vCPU j
# for each j in turn: a sibling of 0 slows it by about half, another core hardly at all.
#   bash bench/extract/probe_siblings.sh   (the dense frame made first, as run_ab.sh makes it)
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
f=$(frame_4k dense)
lscpu | grep -E "^(Thread|Core|Socket|NUMA node\(s\)|Model name)" || true
pass() { taskset -c 0 $bin/bench_clean $f --threads 1 --repeat "${REPEAT:-10}" 2>&1 | grep "clean pass" | sed "s/clean pass: //"; }
echo "idle: $(pass)"
for j in $(seq 1 $(($(nproc) - 1))); do
  taskset -c "$j" sh -c 'while :; do :; done' &
  spin=$!
  echo "busy $j: $(pass)"
  kill $spin
  wait $spin 2>/dev/null
done | tee "$out/siblings.txt"
