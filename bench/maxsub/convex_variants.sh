#!/usr/bin/env bash
# On the GPU machine, from the repository root: profile the convex kernels (ncu) at 2000^2 and time
# tile-shape variants of src/maxsub/convex_cuda.cu (kRows, kGroupRows, kCols), each checked by the
# convex device tests first. Edits convex_cuda.cu in place (run it on a copy of the tree).
ln -sfn ../.debs .debs
t0=$(date +%s)
source scripts/device-build.sh test_maxsub bench_maxsub > $OUT/build.log 2>&1; echo "build rc $? in $(( $(date +%s)-t0 )) s"; grep -E "error" $OUT/build.log | head -20
ncu --clock-control none --launch-skip 4000 --launch-count 8 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes.sum build-gpu/bin/bench_maxsub --methods convex --sizes 2000 --max-convex 0 --max-convex-gpu 4000 --k-sizes 0 --threads-at 0 --out /tmp/x.txt > $OUT/ncu.txt 2>&1
grep -E "^  [a-z_]+kernel|gpu__time|dram__|sm__warps" $OUT/ncu.txt | sed 's/(celeris.*//' | head -40
F=src/maxsub/convex_cuda.cu
variant() {  # rows group_rows cols
  sed -i -E "s/^constexpr int kRows = [0-9]+;/constexpr int kRows = $1;/; s/^constexpr int kGroupRows = [0-9]+;/constexpr int kGroupRows = $2;/; s/^constexpr int kCols = [0-9]+;/constexpr int kCols = $3;/" $F
  cmake --build build-gpu -j 16 --target test_maxsub bench_maxsub > /dev/null 2>&1 || echo "variant $* build failed"
  echo "== variant rows $1 group_rows $2 cols $3"
  build-gpu/tests/test_maxsub --gtest_filter="*onvex*" 2>&1 | tail -1
  build-gpu/bin/bench_maxsub --methods convex --sizes 2000,4000 --max-convex 0 --max-convex-gpu 4000 --k-sizes 0 --threads-at 0 --out /tmp/v.txt 2>&1 | grep "convex cuda"
}
variant 32 8 64
variant 16 8 128
variant 16 8 64
variant 32 4 128
