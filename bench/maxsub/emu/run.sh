#!/usr/bin/env bash
# Runs src/maxsub/convex_cuda.cu on the CPU under the CUDA emulation shim (cuda_runtime.h: a block's
# threads as std::threads with barriers, warp shuffles emulated) against max_convex, for checking
# the GPU convex search's logic on a machine with no GPU. Slow (a thread per CUDA thread): minutes.
# Usage: bash bench/maxsub/emu/run.sh [iterations]   (from anywhere; g++ >= 11)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inc="-I$root/include -I$root/src"
# kernel<<<grid, block>>>(args) -> emu_launch(kernel, grid, block, args)
sed -E 's/([A-Za-z_]+)<<<([^>]*)>>>\(/emu_launch(\1, \2, /' "$root/src/maxsub/convex_cuda.cu" > "$work/convex_emu.cpp"
cxx="g++ -std=c++20 -O1"
$cxx -DCELERIS_HAVE_CUDA -I"$here" $inc -include "$here/cuda_runtime.h" -c "$work/convex_emu.cpp" -o "$work/convex_emu.o"
$cxx -DCELERIS_HAVE_CUDA $inc -include "$here/cuda_runtime.h" -c "$here/stubs.cpp" -o "$work/stubs.o"
for f in convex rect kmax_overlap; do
  $cxx -fopenmp -DCELERIS_HAVE_CUDA $inc -c "$root/src/maxsub/$f.cpp" -o "$work/$f.o"
done
$cxx $inc -c "$here/harness.cpp" -o "$work/harness.o"
g++ -fopenmp "$work"/*.o -o "$work/harness"
"$work/harness" "${1:-12}"
