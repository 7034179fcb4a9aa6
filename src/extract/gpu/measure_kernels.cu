// The GPU measurement's kernel: the largest objects one warp each (measure_warp.cuh), the others
// one thread each (measure_object, measure_object.hpp).
#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/measure_kernels.hpp"
#include "extract/gpu/measure_warp.cuh"

namespace celeris::extract::gpu {

namespace {

constexpr int kBlock = 128, kWarpsPerBlock = kBlock / 32, kBlocksPerSm = 4;
static_assert(kBlocksPerSm * kWarpsPerBlock == kResidentWarpsPerSm, "measure_kernels.hpp's count");

// Blocks [0, warp_blocks) measure order[0 .. n_warp) a warp per object; the blocks after them
// the rest a thread per object. Blocks start roughly in index order, so the largest first.
// Four blocks per SM (128 registers, some spilled): with the compiler's 227 registers, two, the
// kernel took longer on the H200 (crowded 4096^2, warps from radius 8: 3.00 ms with three
// blocks, 3.61 with two, 2.80 with four).
__global__ void __launch_bounds__(kBlock, kBlocksPerSm)
    photometry_kernel(const PhotometryArgs a, int64_t warp_blocks) {
  __shared__ double cumul[kWarpsPerBlock][phot::kGrowthNStep];
  __shared__ alignas(16) unsigned char terms[kWarpsPerBlock][32 * WarpScratch::kTermBytes];
  if (blockIdx.x < warp_blocks) {
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t t = int64_t(blockIdx.x) * kWarpsPerBlock + w;
    if (t < a.n_warp) measure_object_warp(a, a.order[t], lane, {terms[w], cumul[w]});
    return;
  }
  const int64_t t = a.n_warp + (int64_t(blockIdx.x) - warp_blocks) * kBlock + threadIdx.x;
  if (t < a.n) measure_object(a, a.order[t]);
}

}  // namespace

void measure_photometry(const PhotometryArgs& args, cudaStream_t stream) {
  if (args.n == 0) return;
  const int64_t warp_blocks = (args.n_warp + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const int64_t blocks = warp_blocks + (args.n - args.n_warp + kBlock - 1) / kBlock;
  photometry_kernel<<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(args, warp_blocks);
  cuda::cuda_check_launch("photometry_kernel");
}

}  // namespace celeris::extract::gpu
