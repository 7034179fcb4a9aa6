#!/usr/bin/env bash
# On a several-GPU machine (issue 21; `run` kind nvidia-h200-x2 or -x4, carry .debs), one call:
#   1. the cross-match: scripts/device-xmatch-mpi.sh billion with one rank per GPU (the GPU ctests,
#      xmatch.mpi_gpu's 1/2/4 ranks now spread over the GPUs; then the 1.23 B-row self-match at
#      0.0056 deg, counted, in one process on one GPU and under mpirun -n GPUS, rank r on GPU r;
#      XMATCH_BUDGET seconds, default 380; BILLION_RANK_GPU_MEMORY, default 100G a rank);
#   2. the frame stream: FRAMES sparse 4096^2 frames (default 64) through `celeris extract
#      --device cuda`, one process on GPU 0, then one process per GPU (CUDA_VISIBLE_DEVICES) with
#      every GPU-th frame and the host's cores split between them; frames/s of each, and every
#      catalog compared with the one-GPU run's (cmp).
# Logs under $OUT (summary.txt, the cross-match's logs, stream.txt).
#   bash scripts/device-multi-gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi -L | tee "$out/gpus.txt"
BUDGET=${XMATCH_BUDGET:-380} BILLION_RANKS=$gpus \
  BILLION_RANK_GPU_MEMORY=${BILLION_RANK_GPU_MEMORY:-100G} OUT=$out \
  bash scripts/device-xmatch-mpi.sh billion
echo "device-xmatch-mpi.sh exit status $?"

# ---- the frame stream over 1 and all GPUs ----------------------------------------------------
bin=build-gpu-mpi/bin/celeris
[ -x "$bin" ] || { echo "no $bin: the build failed"; exit 1; }
work=/tmp/multigpu
rm -rf "$work" && mkdir -p "$work/frames"
n=${FRAMES:-64}
for i in $(seq 1 "$n"); do
  $bin simulate image --size 4096 --seed $((200 + i)) -o "$work/frames/s$(printf %03d "$i").fits" \
    >/dev/null &
done
wait
rm -f "$work"/frames/*.truth.fits
frames=("$work"/frames/*.fits)
cores=$(nproc)
# run_on TAG G: G processes, process k on GPU k with frames k, k + G, ...; prints frames/s.
run_on() {
  local tag=$1 g=$2
  mkdir -p "$work/$tag"
  cat "${frames[@]}" >/dev/null  # page cache warm
  local s e
  s=$(date +%s.%N)
  for k in $(seq 0 $((g - 1))); do
    local mine=()
    for j in $(seq "$k" "$g" $((${#frames[@]} - 1))); do mine+=("${frames[$j]}"); done
    CUDA_VISIBLE_DEVICES=$k OMP_NUM_THREADS=$((cores / g)) $bin extract "${mine[@]}" \
      -CATALOG_NAME "$work/$tag/{stem}.cat" --device cuda --progress none \
      -VERBOSE_TYPE NORMAL 2>"$work/$tag/gpu$k.log" &
  done
  wait
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" -v n="${#frames[@]}" -v what="$tag: $g GPU(s), $n frames" \
    'BEGIN { printf "%s: %.2f s, %.1f frames/s\n", what, e - s, n / (e - s) }'
  grep -h "frames/s" "$work/$tag"/gpu*.log | sed 's/^/  /'
}
{
  echo "# frame stream, $(date -u '+%Y-%m-%d %H:%M') UTC, $gpus GPUs, $cores cores, ${#frames[@]} sparse 4096^2 frames"
  run_on warmup 1 >/dev/null
  run_on one 1
  for g in $(seq 2 "$gpus"); do
    run_on "gpus$g" "$g"
    same=0
    for f in "$work/one"/*.cat; do cmp -s "$f" "$work/gpus$g/$(basename "$f")" && same=$((same + 1)); done
    echo "  catalogs identical to the one-GPU run's: $same of ${#frames[@]}"
  done
} 2>&1 | tee "$out/stream.txt"
