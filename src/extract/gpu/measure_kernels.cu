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
// No growth curve: the form of photometry_kernel that leaves it to growth_kernel, compiled
// without it (its registers are the apertures' and AUTO's alone).
struct NoFluxRadius {
  template <class... Args>
  __device__ void operator()(Args&&...) const {}
};

template <bool WithGrowth, int BlocksPerSm>
__global__ void __launch_bounds__(kBlock, BlocksPerSm)
    photometry_kernel(const PhotometryArgs a, int64_t warp_blocks) {
  __shared__ double cumul[kWarpsPerBlock][phot::kGrowthNStep];
  __shared__ alignas(16) unsigned char terms[kWarpsPerBlock][32 * WarpScratch::kTermBytes];
  if (blockIdx.x < warp_blocks) {
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t t = int64_t(blockIdx.x) * kWarpsPerBlock + w;
    if (t >= a.n_warp) return;
    const WarpScratch scratch{terms[w], cumul[w]};
    if constexpr (WithGrowth)
      measure_object_warp(a, a.order[t], lane, scratch);
    else
      measure_object_with(a, a.order[t], WarpSumBox{lane, scratch}, NoFluxRadius{}, lane == 0);
    return;
  }
  const int64_t t = a.n_warp + (int64_t(blockIdx.x) - warp_blocks) * kBlock + threadIdx.x;
  if (t >= a.n) return;
  if constexpr (WithGrowth)
    measure_object(a, a.order[t]);
  else
    measure_object_with(a, a.order[t], phot::SumBoxOnOneThread{}, NoFluxRadius{}, true);
}

// The growth kernels' shape: warp t of the launch measures object order[t], with its share of
// the block's shared memory; body(i, lane, scratch).
template <class Body>
__device__ void growth_warp(const PhotometryArgs& a, Body&& body) {
  __shared__ double cumul[kWarpsPerBlock][phot::kGrowthNStep];
  __shared__ alignas(16) unsigned char terms[kWarpsPerBlock][32 * WarpScratch::kTermBytes];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t t = int64_t(blockIdx.x) * kWarpsPerBlock + w;
  if (t >= a.n) return;
  body(a.order[t], lane, WarpScratch{terms[w], cumul[w]});
}

// The growth curve alone (PhotometryArgs::growth_apart), object order[t] by warp t, after
// photometry_kernel made the apertures and AUTO without it: flux_auto as that kernel wrote it
// (the same float the single kernel passes on), its FLAGS bits ORed into the first kernel's.
// The warp form only (lanes holding two bins each in registers): the thread form's 64 bins and
// their 64 sums in local memory did not fit the SM's L1 beside four blocks of 128 threads (stop
// 38, Nsight Compute: 2.0 M spill requests, 10 of 16 warps per SM).
// BlocksPerSm: the registers the compiler may give each thread (4: 114, none spilled; 6: 80; 8:
// 64, 232 bytes spilled), against the warps an SM holds; PhotometryArgs::growth_blocks_per_sm
// picks one at run time. Stop 39, H200, crowded 4096^2, both kernels (against 3.20-3.27 ms for
// the single one): 4: 2.47-2.54 ms, 6: 2.33-2.45, 8: 2.58-2.71.
template <int BlocksPerSm>
__global__ void __launch_bounds__(kBlock, BlocksPerSm) growth_kernel(const PhotometryArgs a) {
  growth_warp(a, [&](int64_t i, int lane, WarpScratch scratch) {
    uint16_t flags = 0;
    float hl = 0.5f;
    flux_radius_warp(a.field, a.shapes[i], static_cast<float>(a.flux_auto[i]), a.fractions,
                     a.n_fluxfrac, a.autoparams.min_search, a.flux_radius + i * a.n_fluxfrac, flags,
                     a.hl_radius ? &hl : nullptr, lane, scratch,
                     a.growth_first ? a.growth_first + i * phot::GrowthCurve::kFirstFill : nullptr);
    if (lane == 0) {
      a.hl_radius_out[i] = hl;
      a.flags[i] |= flags;
    }
  });
}

// The growth curve's first fill alone (growth_first_fill_warp), object order[t] by warp t, into
// a.growth_first: it needs no FLUX_AUTO, so it runs beside photometry_kernel, on another
// stream, and growth_kernel goes on from it. The launch bounds of growth_kernel's default.
__global__ void __launch_bounds__(kBlock, 6) growth_first_kernel(const PhotometryArgs a) {
  growth_warp(a, [&](int64_t i, int lane, WarpScratch scratch) {
    growth_first_fill_warp(a.field, a.shapes[i], a.autoparams.min_search,
                           a.growth_first + i * phot::GrowthCurve::kFirstFill, lane, scratch);
  });
}

}  // namespace

void measure_photometry(const PhotometryArgs& args, cudaStream_t stream, const GrowthFork* fork) {
  if (args.n == 0) return;
  const int64_t warp_blocks = (args.n_warp + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const unsigned blocks =
      static_cast<unsigned>(warp_blocks + (args.n - args.n_warp + kBlock - 1) / kBlock);
  if (!args.growth || !args.growth_apart) {
    photometry_kernel<true, kBlocksPerSm><<<blocks, kBlock, 0, stream>>>(args, warp_blocks);
    cuda::cuda_check_launch("photometry_kernel");
    return;
  }
  const unsigned growth_blocks =
      static_cast<unsigned>((args.n + kWarpsPerBlock - 1) / kWarpsPerBlock);
  const bool first_beside = args.growth_first && fork;
  if (first_beside) {  // the aux stream starts after the uploads queued on `stream`
    CELERIS_CUDA_CHECK(cudaEventRecord(fork->fork, stream));
    CELERIS_CUDA_CHECK(cudaStreamWaitEvent(fork->aux, fork->fork, 0));
  }
  // The photometry first: its largest objects, first in its order, are the kernels' tail.
  photometry_kernel<false, 5><<<blocks, kBlock, 0, stream>>>(args, warp_blocks);
  cuda::cuda_check_launch("photometry_kernel");
  PhotometryArgs finish = args;
  if (first_beside) {
    growth_first_kernel<<<growth_blocks, kBlock, 0, fork->aux>>>(args);
    cuda::cuda_check_launch("growth_first_kernel");
    CELERIS_CUDA_CHECK(cudaEventRecord(fork->join, fork->aux));
    CELERIS_CUDA_CHECK(cudaStreamWaitEvent(stream, fork->join, 0));
  } else {
    finish.growth_first = nullptr;  // growth_kernel makes the first fill too
  }
  switch (args.growth_blocks_per_sm) {
    case 4:
      growth_kernel<4><<<growth_blocks, kBlock, 0, stream>>>(finish);
      break;
    case 8:
      growth_kernel<8><<<growth_blocks, kBlock, 0, stream>>>(finish);
      break;
    default:  // 6, the fastest on the H200 (stop 39)
      growth_kernel<6><<<growth_blocks, kBlock, 0, stream>>>(finish);
  }
  cuda::cuda_check_launch("growth_kernel");
}

}  // namespace celeris::extract::gpu
