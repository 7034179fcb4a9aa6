// The deblending's candidates prepared on the device (deblend_prepare_kernels.hpp).
#include "extract/gpu/deblend_prepare_kernels.hpp"

#include <cfloat>
#include <climits>

#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/deblend_levels.cuh"
#include "extract/stages/order_free_sum.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr unsigned kFullWarp = 0xffffffffu;

// Detection d's candidate, as the stage's launch_with_builder takes it on the host:
// candidate_levels (peak, flux, levels), tree_box_and_sums (box, sums above the first level)
// and the builder's takes() and add(). One warp per detection: its lanes read the pixels 32 at a
// time (a thread per detection left the largest detection's 3 x 256 dependent reads on the
// critical path, about 1 ms of a crowded 4096^2 frame's, H200, stop 64); the sums that depend on
// order (the flux in double, OrderFreeSum's total) are taken by every lane in the pixels' order
// from the values shuffled lane by lane, so that they are the host's bit for bit.
__global__ void prepare_kernel(PrepareArgs a) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int64_t d = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  if (d >= a.detections) return;  // the whole warp
  if (lane == 0) a.slot[d] = -1;
  const int64_t b = a.offsets[d];
  const int n = static_cast<int>(a.offsets[d + 1] - b);
  const int max_pixels = a.class_pixels[kPrepareClasses - 1];
  if (a.peaks[d] < 2 || n <= 0 || n > max_pixels || a.nthresh > kPrepareMaxLevels) return;
  float peak = -FLT_MAX;
  double rv = 0;
  int x0 = INT_MAX, x1 = INT_MIN, y0 = INT_MAX, y1 = INT_MIN;
  for (int base = 0; base < n; base += 32) {
    const int p = base + lane;
    float c = 0;
    if (p < n) {
      c = a.cvalue[b + p];
      peak = peak < c ? c : peak;  // std::max(peak, c): the same in any order
      const int x = a.x[b + p], y = a.y[b + p];
      x0 = min(x0, x);
      x1 = max(x1, x);
      y0 = min(y0, y);
      y1 = max(y1, y);
    }
    const int m = min(32, n - base);
    for (int j = 0; j < m; ++j) rv += __shfl_sync(kFullWarp, c, j);
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(kFullWarp, peak, o);
    peak = peak < other ? other : peak;
  }
  x0 = __reduce_min_sync(kFullWarp, x0);
  x1 = __reduce_max_sync(kFullWarp, x1);
  y0 = __reduce_min_sync(kFullWarp, y0);
  y1 = __reduce_max_sync(kFullWarp, y1);
  const int bw = x1 - x0 + 3, bh = y1 - y0 + 3;
  if (static_cast<int64_t>(bw) * bh > a.max_cells || !(peak > 0)) return;
  float levels[kPrepareMaxLevels];
  if (device_levels(a.t0, peak, a.nthresh, levels) > 0) return;
  OrderFreeSum sums;
  for (int base = 0; base < n; base += 32) {
    const int p = base + lane;
    const float c = p < n ? a.cvalue[b + p] : 0.f;
    const int m = min(32, n - base);
    for (int j = 0; j < m; ++j) {
      const float v = __shfl_sync(kFullWarp, c, j);
      if (levels[1] < v) sums.add(v);
    }
  }
  if (!sums.exact()) return;
  int slot = 0;
  if (lane == 0) slot = atomicAdd(a.counts + kPrepared, 1);
  slot = __shfl_sync(kFullWarp, slot, 0);
  if (lane == 0) {
    a.slot[d] = slot;
    TreeCandidate c;
    c.pixel_begin = b;
    c.pixels = n;
    c.x0 = x0;
    c.y0 = y0;
    c.bw = bw;
    c.bh = bh;
    c.ulp_exponent = sums.ulp_exponent();
    a.candidates[slot] = c;
    a.value0[slot] = static_cast<double>(static_cast<float>(rv)) * a.mincont;
    int k = 0;
    while (n > a.class_pixels[k]) ++k;
    a.launch[k * a.detections + atomicAdd(a.counts + kClassCount + k, 1)] = slot;
    atomicMax(a.counts + kClassPixels + k, n);
    atomicMax(a.counts + kClassCells + k, bw * bh);
  }
  for (int k = lane; k < a.nthresh; k += 32)
    a.thresh[static_cast<int64_t>(slot) * a.nthresh + k] = levels[k];
  for (int p = lane; p < n; p += 32) {
    a.cell[b + p] = (a.y[b + p] - y0 + 1) * bw + (a.x[b + p] - x0 + 1);
    a.cell_cvalue[b + p] = a.cvalue[b + p];
    if (a.cell_value) a.cell_value[b + p] = a.value[b + p];
  }
}

}  // namespace

void prepare_candidates(const PrepareArgs& args, cudaStream_t stream) {
  if (args.detections == 0) return;
  constexpr int kBlock = 128;  // four detections
  const int64_t threads = args.detections * 32;
  prepare_kernel<<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
      args);
  cuda::cuda_check_launch("prepare_kernel");
}

}  // namespace celeris::extract::gpu
