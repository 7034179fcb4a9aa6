#!/usr/bin/env bash
# On the GPU machine, with the binaries of scripts/device-bundle.sh (carry .devbin): the host's
# layout (cores, NUMA nodes, transparent huge pages) and the crowded 4096^2 frame's stage times
# under environment settings that change no result: glibc's malloc keeping freed memory
# (no page faults on the next frame's buffers), OpenMP's threads spinning between regions, and
# pinned to cores. Same binary, same frame, one call: the variants compare among themselves.
#   bash bench/extract/run_env_ab.sh [REPEAT]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/device-libs.sh
bin=.devbin
lscpu | grep -E "^(Model name|Socket|Core|Thread|NUMA|L3|CPU\(s\))" || true
cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
work=/tmp/envab
mkdir -p $work
[ -f $work/crowded4k.fits ] ||
  $bin/celeris simulate image --size 4096 --seed 21 --density crowded -o $work/crowded4k.fits >/dev/null
keep="glibc.malloc.mmap_threshold=536870912:glibc.malloc.trim_threshold=4294967296"
variant() {  # variant NAME ENV...
  local name=$1
  shift
  echo "== $name: $*"
  env "$@" $bin/bench_extract_stages $work/crowded4k.fits --repeat "$REPEAT" \
    --devices cpu,cuda-pinned 2>&1 | grep -E "^device|deblend|shapes|clean|blanking|measure |host gather|gpu stages"
}
REPEAT=${1:-9}
variant default X=1
variant malloc-keeps GLIBC_TUNABLES=$keep
variant omp-active OMP_WAIT_POLICY=active
variant omp-bound OMP_PROC_BIND=close OMP_PLACES=cores
variant keeps+active GLIBC_TUNABLES=$keep OMP_WAIT_POLICY=active
variant default-again X=1
