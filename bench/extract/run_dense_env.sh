#!/usr/bin/env bash
# On the GPU machine (carry .devbin): the dense 4096^2 frame's stage times under OpenMP's
# spin settings, which change no result: libgomp's idle threads spin between parallel regions
# (GOMP_SPINCOUNT) and take cores from the threads beside them, the serial clean pass among
# them (stop 76: 8 ms a dense frame on an H100). Variants in turn, ROUNDS times, one binary.
#   ROUNDS=2 REPEAT=5 bash bench/extract/run_dense_env.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/extract/devbin_env.sh
f=$(frame_4k dense)
for r in $(seq 1 "${ROUNDS:-2}"); do
  for v in ${VARIANTS:-X=1 OMP_WAIT_POLICY=passive GOMP_SPINCOUNT=1000}; do
    name=$(echo "env_${v%%=*}_$r" | tr '=' '_')
    env "$v" $bin/bench_extract_stages $f --repeat "${REPEAT:-5}" --devices cuda-pinned \
      >"$out/$name.txt" 2>&1
    echo "round $r, $v: $(grep -E '^device|^  clean: pass|CPU time per frame' "$out/$name.txt" |
      sed 's/objects.*total/total/' | tr -s ' ' | tr '\n' ' ')"
  done
done
