#!/usr/bin/env bash
# On the GPU machine, one device call of at most 600 s: `mpirun -n N celeris xmatch` (issue 20).
#   bash scripts/device-xmatch-mpi.sh [billion|all|tests|bench|hats|cpucount]   (default: billion)
# Carry .debs (scripts/fetch-device-debs.sh makes it: .debs/*.deb, .debs/mpi/*.deb for OpenMPI,
# .debs/arrow-26.tar.xz for Parquet; 34 MB). Every mode first builds celeris with CUDA + MPI +
# Parquet in build-gpu-mpi/ (kept between calls while the machine stays warm), then:
#   billion  the GPU's xmatch tests (xmatch.mpi_gpu: 1/2/4 ranks sharing the GPU, their --count
#            against the CPU's, the d1 set included; XMatchCuda.*: the GPU join, the GPU count and
#            the sorted count against the CPU; XMatchSortedCount.*, XMatchCountingSort.*), then
#            bench/xmatch/bench_count_billion: the 1.23 B-row self-match at 0.0056 deg counted
#            from a catalog generated in host memory (BILLION_ROWS, default 1230000000; about
#            35 s to generate on 16 cores, about 45 GB of host memory), in one process, then
#            under mpirun -n BILLION_RANKS (default 4; 0: skipped) ranks sharing the GPU, each
#            generating only its own pixels and their margin, BILLION_RANK_GPU_MEMORY each
#            (default 14G), OMP_NUM_THREADS = cores / ranks
#   tests    the MPI and HATS ctests: xmatch.mpi (CPU ranks 1/2/4), xmatch.mpi_gpu (1/2/4 ranks
#            sharing the GPU), xmatch.hats (mpirun -n 1/2), xmatch.hats_simulate, and the
#            test_xmatch unit tests (XMatchCuda.* on the GPU, XMatchChunked.*, XMatchCountBins.*)
#   bench    bench/xmatch/bench_mpi.py: d1, d5, d25 self-matches at 0.0056 deg, --count, with
#            1, 2, 4, 8 ranks, CPU ranks then GPU ranks
#   all      tests + bench
#   hats     bench/xmatch/bench_hats_billion.py on HATS_ROWS rows (default 300 M; 7.4 GB on disk):
#            one streamed process (--memory 12G), then mpirun -n 4 and -n 8 --count, on the GPU
#   cpucount the CPU count without pairs (src/xmatch/count_cpu.hpp; issue 20's >= 3 M pairs/s a
#            core): its unit tests and xmatch.mpi, then bench_count_billion --device cpu on
#            CPU_ROWS_1 rows (default 20 M) with OMP_NUM_THREADS=1 (the rate of one core), on
#            CPU_ROWS rows (default 300 M, about 5 GB of host memory) with every core, and under
#            mpirun -n CPU_RANKS (default 4; 0: skipped) ranks of cores / ranks threads each
# HATS_ROWS: the dev-VM rates of docs/xmatch.md (generation 3.4 M rows/s on 2 cores, a counted
# match about 1 M rows/s on 2 cores) scaled to 16 cores and the GPU give about 20 s to generate
# 300 M rows and 40-100 s for each of the three matches; with a cold build (about 3-4 min) that
# fills the call. Give HATS_ROWS=1230000000 only with a warm build; the -n 4/8 runs of 1.23 B rows
# need about 95-115 GB (HATS_RANK_MEMORY=1G, each rank's chunks within it, for the lower figure).
# Everything goes under $OUT (summary.txt says what passed, failed or timed out; at most 6 files
# come back). Each step runs under `timeout`, capped by what is left of BUDGET seconds (default
# 570), so a hang costs its own step only; a failed step is marked FAILED and the script exits
# non-zero at the end. A failed setup or build stops at once.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-billion}
case "$mode" in billion | all | tests | bench | hats | cpucount) ;; *) echo "usage: $0 [billion|all|tests|bench|hats|cpucount]" >&2; exit 2 ;; esac
out=${OUT:-/tmp/out}
mkdir -p "$out"
budget=${BUDGET:-570}
start=$(date +%s)
failed=0
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
left() { echo $((budget - ($(date +%s) - start))); }
die() { note "FATAL: $*"; exit 1; }

# step NAME CAP CMD...: CMD under timeout (CAP seconds, or what is left), output in $out/NAME.log.
step() {
  local name=$1 cap=$2
  shift 2
  local t
  t=$(left)
  [ "$t" -gt "$cap" ] && t=$cap
  if [ "$t" -lt 15 ]; then
    note "SKIPPED $name: no time left"
    failed=1
    return 0
  fi
  local t0 rc=0
  t0=$(date +%s)
  timeout --kill-after=10 "$t" "$@" >>"$out/$name.log" 2>&1 || rc=$?
  local dt=$(($(date +%s) - t0))
  if [ "$rc" -eq 0 ]; then
    note "ok      $name (${dt} s)"
  else
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      note "TIMEOUT $name after ${dt} s (limit $t s); the end of $name.log:"
    else
      note "FAILED  $name (exit $rc, ${dt} s); the end of $name.log:"
    fi
    tail -20 "$out/$name.log" | tee -a "$summary"
    failed=1
  fi
}

note "# device-xmatch-mpi.sh $mode, $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee -a "$summary" || true

# ---- setup (fatal): carried packages, OpenMPI, Arrow --------------------------------------------
[ -d .debs/mpi ] || die "no .debs/mpi: run scripts/fetch-device-debs.sh here and carry .debs"
source scripts/device-env.sh >"$out/build.log" 2>&1 || die "device-env.sh failed (build.log)"
source scripts/device-mpi-env.sh >>"$out/build.log" 2>&1 || die "device-mpi-env.sh failed (build.log)"
mpirun --version 2>&1 | head -1 | tee -a "$summary"
timeout 60 mpirun -n 2 true >>"$out/build.log" 2>&1 || die "mpirun -n 2 true failed (build.log)"
# Arrow C++ 26 (cmake/parquet.cmake asks a Python for pyarrow's include and library dirs and its
# version): the machine's own pyarrow when it is a 26.x, else the carried libraries, described
# by a stand-in script that answers the same three lines.
if python3 -c "import pyarrow, sys; sys.exit(not pyarrow.__version__.startswith('26.'))" 2>/dev/null; then
  parquet_py=python3
else
  [ -f .debs/arrow-26.tar.xz ] || die "no .debs/arrow-26.tar.xz (scripts/fetch-device-debs.sh)"
  arrow=/tmp/celeris-arrow
  if [ ! -f "$arrow/libparquet.so.2600" ]; then
    mkdir -p "$arrow"
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
      .debs/arrow-26.tar.xz "$arrow" || die "cannot unpack .debs/arrow-26.tar.xz"
  fi
  printf '#!/bin/sh\n# pyarrow stand-in for cmake/parquet.cmake: include dir, library dir, version\necho %s/include\necho %s\necho 26.0.1\n' \
    "$arrow" "$arrow" >"$arrow/python"
  chmod +x "$arrow/python"
  parquet_py=$arrow/python
fi

# ---- build (fatal) ------------------------------------------------------------------------------
bdir=build-gpu-mpi
targets=(celeris_cli test_xmatch bench_simulate_hats bench_count_billion)
# (CELERIS_CUDA=OFF and CMAKE_EXTRA, e.g. a ccache launcher, are for a dry run on a machine
# without a GPU.)
step build 330 bash -c "cmake -S . -B $bdir -DCMAKE_BUILD_TYPE=Release -DCELERIS_CUDA=${CELERIS_CUDA:-ON} \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCELERIS_MPI=ON -DCELERIS_PARQUET=ON ${CMAKE_EXTRA:-} \
  -DCELERIS_PARQUET_PYTHON=$parquet_py -DCELERIS_PYTHON=python3 -DGTest_DIR=$lib/cmake/GTest \
  -DCLI11_DIR=$prefix/usr/share/cmake/CLI11 && cmake --build $bdir -j $(nproc) --target ${targets[*]}"
[ "$failed" -eq 0 ] || die "the build failed or timed out (build.log)"
"$bdir/bin/celeris" version | tee -a "$summary"

# ---- the modes ----------------------------------------------------------------------------------
# ctest_step NAME CAP JOBS REGEX: the ctests matching REGEX as step NAME, their verdict in the summary.
ctest_step() {
  step "$1" "$2" ctest --test-dir "$bdir" --output-on-failure -j "$3" -R "$4"
  grep -E "tests passed|tests failed|Skipped|Failed|\(Failed\)" "$out/$1.log" | tee -a "$summary" || true
}
# The benchmarks' peak memory, where GNU time is installed.
timed=()
[ -x /usr/bin/time ] && timed=(/usr/bin/time -f "peak resident %M kB, %e s")
if [ "$mode" = all ] || [ "$mode" = tests ]; then
  # The MPI tests are RUN_SERIAL; the unit tests of test_xmatch run beside each other.
  ctest_step ctest 240 4 '^xmatch\.(mpi|mpi_gpu|hats|hats_simulate)$|^XMatch(Cuda|Chunked|CountBins)\.'
fi
if [ "$mode" = all ] || [ "$mode" = bench ]; then
  work=/tmp/xmatch-bench
  for backend in cpu cuda; do
    step "bench-mpi-$backend" 200 python3 -u bench/xmatch/bench_mpi.py "$bdir/bin/celeris" "$work" \
      --sets d1,d5,d25 --ranks 1,2,4,8 --backend "$backend"
    grep "^|" "$out/bench-mpi-$backend.log" | tee -a "$summary" || true
  done
fi
if [ "$mode" = billion ]; then
  ctest_step ctest-gpu 150 2 \
    '^xmatch\.mpi_gpu$|^XMatchCuda\.|^XMatchCountBins\.|^XMatchSortedCount\.|^XMatchCountingSort\.'
  ranks=${BILLION_RANKS:-4}
  # One process first; the ranks' run gets what is left (at least 100 s kept for it).
  cap=$(($(left) - (ranks > 1 ? 100 : 0)))
  step billion "$cap" ${timed[@]+"${timed[@]}"} "$bdir/bin/bench_count_billion" --rows "${BILLION_ROWS:-1230000000}" --device cuda \
    ${BILLION_GPU_MEMORY:+--gpu-memory "$BILLION_GPU_MEMORY"}
  grep -E "^\||^# |^pairs|peak resident" "$out/billion.log" | tee -a "$summary" || true
  if [ "$ranks" -gt 1 ]; then
    step billion-mpi "$(left)" mpirun -n "$ranks" -x OMP_NUM_THREADS=$(($(nproc) / ranks)) \
      "$bdir/bin/bench_count_billion" --rows "${BILLION_ROWS:-1230000000}" --device cuda \
      --gpu-memory "${BILLION_RANK_GPU_MEMORY:-14G}"
    grep -E "^\||^# |^pairs" "$out/billion-mpi.log" | tee -a "$summary" || true
  fi
fi
if [ "$mode" = cpucount ]; then
  ctest_step ctest-cpu 120 4 '^xmatch\.mpi$|^XMatchCountCpu\.|^XMatchCountBins\.|^XMatchSortedCount\.'
  step cpu-1thread 120 env OMP_NUM_THREADS=1 ${timed[@]+"${timed[@]}"} "$bdir/bin/bench_count_billion" \
    --rows "${CPU_ROWS_1:-20000000}" --device cpu
  grep -E "^\||^# |^pairs|peak resident" "$out/cpu-1thread.log" | tee -a "$summary" || true
  ranks=${CPU_RANKS:-4}
  cap=$(($(left) - (ranks > 1 ? 120 : 0)))
  step cpu-all "$cap" ${timed[@]+"${timed[@]}"} "$bdir/bin/bench_count_billion" \
    --rows "${CPU_ROWS:-300000000}" --device cpu
  grep -E "^\||^# |^pairs|peak resident" "$out/cpu-all.log" | tee -a "$summary" || true
  if [ "$ranks" -gt 1 ]; then
    step cpu-mpi "$(left)" mpirun -n "$ranks" -x OMP_NUM_THREADS=$(($(nproc) / ranks)) \
      "$bdir/bin/bench_count_billion" --rows "${CPU_ROWS:-300000000}" --device cpu
    grep -E "^\||^# |^pairs" "$out/cpu-mpi.log" | tee -a "$summary" || true
  fi
fi
if [ "$mode" = hats ]; then
  rows=${HATS_ROWS:-300000000}
  work=/tmp/xmatch-hats
  step hats "$(left)" python3 -u bench/xmatch/bench_hats_billion.py "$bdir/bin" "$work" \
    --rows "$rows" --order 5 --single-memory 12G --ranks 4,8 --device cuda --gpu-memory 8G \
    --timeout 150 ${HATS_RANK_MEMORY:+--rank-memory "$HATS_RANK_MEMORY"}
  grep -E "^\||^# (simulated|matches)|MISMATCH|TIMEOUT" "$out/hats.log" | tee -a "$summary" || true
fi
note "# $(($(date +%s) - start)) s in all"
exit "$failed"
