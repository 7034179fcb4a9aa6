#!/usr/bin/env bash
# On the GPU machine, from the repository root: time tile-shape and occupancy variants of
# src/maxsub/convex_cuda.cu (kRows, kGroupRows, kCols, kMinBlocks), each checked by the convex
# device tests first, with ncu's registers, occupancy and time per kernel at 2000^2. Edits
# convex_cuda.cu in place (run it on a copy of the tree). Usage: convex_variants.sh
# ["rows group_rows cols min_blocks" ...]; default: the list below.
ln -sfn ../.debs .debs
t0=$(date +%s)
source scripts/device-build.sh test_maxsub bench_maxsub > $OUT/build.log 2>&1; echo "build rc $? in $(( $(date +%s)-t0 )) s"; grep -E "error" $OUT/build.log | head -20
F=src/maxsub/convex_cuda.cu
variant() {  # rows group_rows cols min_blocks
  sed -i -E "s/^constexpr int kRows = [0-9]+;/constexpr int kRows = $1;/; s/^constexpr int kGroupRows = [0-9]+;/constexpr int kGroupRows = $2;/; s/^constexpr int kCols = [0-9]+;/constexpr int kCols = $3;/; s/^constexpr int kMinBlocks = [0-9]+;/constexpr int kMinBlocks = $4;/" $F
  cmake --build build-gpu -j "$(nproc)" --target test_maxsub bench_maxsub > /dev/null 2>&1 || echo "variant $* build failed"
  echo "== variant rows $1 group_rows $2 cols $3 min_blocks $4"
  build-gpu/tests/test_maxsub --gtest_filter="*onvex*" 2>&1 | tail -1
  ncu --clock-control none --launch-skip 4000 --launch-count 4 --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active build-gpu/bin/bench_maxsub --methods convex --sizes 2000 --max-convex 0 --max-convex-gpu 4000 --k-sizes 0 --threads-at 0 --out /tmp/x.txt 2>&1 \
    | grep -E "^  [a-z_ ]*[a-z_]+kernel|gpu__time|launch__reg|sm__warps" | sed -E 's/\(const.*//; s/ +/ /g' | paste -sd' ' | sed 's/ unnamed>::/\n  /g'
  echo
  build-gpu/bin/bench_maxsub --methods convex --sizes 2000,4000 --max-convex 0 --max-convex-gpu 4000 --k-sizes 0 --threads-at 0 --out /tmp/v.txt 2>&1 | grep "convex cuda"
}
if [ "$#" -eq 0 ]; then
  set -- "16 4 64 4" "16 4 64 3" "16 2 64 2" "8 2 64 4" "16 4 32 8" "32 4 64 2"
fi
for v in "$@"; do variant $v; done
