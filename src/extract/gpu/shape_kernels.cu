// The shapes' kernels (shape_kernels.hpp): the CPU's loops, one object per thread; the larger
// objects' pixels first read side by side by a warp into shared memory.
#include <string>

#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/launch.hpp"
#include "extract/gpu/glibc_listed.cuh"
#include "extract/gpu/shape_kernels.hpp"
#include "extract/stages/shape_finish.hpp"

namespace celeris::extract::gpu {

namespace {

// Pixel q's fields, as the CPU's columns hold them.
__device__ Pixel pixel_at(const ShapeArgs& a, int32_t q) {
  Pixel p;
  p.y = q / a.width;
  p.x = q - p.y * a.width;
  p.value = a.value[q];
  p.cvalue = a.cvalue[q];
  if (a.var) p.var = a.var[q];
  if (a.pixel_thresholds) p.dthresh = a.thresh ? a.thresh[q] : a.detect_thresh;
  return p;
}

// Object k's sums from its n pixels px(0) .. px(n - 1), in order, on one thread.
template <class Px>
__device__ void shape_one(const ShapeArgs& a, int64_t k, int64_t n, const Px& px) {
  // The object's threshold: its pixels' smallest with pixel thresholds (weights.hpp
  // object_dthresh), from SExtractor's BIG.
  float thresh = a.detect_thresh;
  if (a.pixel_thresholds) {
    thresh = 1e+30f;
    for (int64_t i = 0; i < n; ++i) thresh = fminf(thresh, px(i).dthresh);
  }
  const ShapeSums s = extract::shape_sums(px, n, thresh, NoShift{});
  // The barycentre as finish_shape (moments.cpp) makes it: the position errors are about it.
  const CentralMoments m = central_moments(s, a.fixed_centre[k] != 0, a.cx[k], a.cy[k]);
  if (a.finished)
    a.finished[k] =
        finish_shape_with(s, n, a.fixed_centre[k] != 0, a.cx[k], a.cy[k], thresh,
                          a.pixel_thresholds, ThetaLater{}, ListedLogRatio{&a.lists, a.log_cap});
  else
    a.shape[k] = s;
  a.sums[k] = iso_sums(px, n, m.xm + s.xmin, m.ym + s.ymin, a.iso, PlainIsoModel{});
  float heap[kMaxMinarea];
  a.mthresh[k] =
      a.clean ? clean_threshold(px, n, a.detect_thresh, a.pixel_thresholds, a.minarea, heap) : 0.0f;
  if (a.fwhm_in) {
    // finish_shape's barycentre, iso_background's BACKGROUND (dbkg 0) and fwhm_cut's bounds.
    FwhmInput in;
    in.mx = m.xm + s.xmin;
    in.my = m.ym + s.ymin;
    in.bkg = back_at_barycentre(a.back, in.mx, in.my, 0.0f);
    const IsoSums& iso = a.sums[k];
    const FwhmCut cut = fwhm_cut(iso.peak, iso.minthresh, 0.0f, a.satur_level, in.bkg);
    in.sat = cut.sat;
    in.thresh0 = cut.thresh0;
    in.dthresh = thresh;
    a.fwhm_in[k] = in;
  }
}

// The objects of fewer than kWarpObjectPixels pixels, one per thread, each pixel read from the
// images as the sums reach it.
__global__ void shape_kernel(const ShapeArgs a) {
  const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= a.objects) return;
  const int64_t b = a.offset[k], n = a.offset[k + 1] - b;
  if (n >= kWarpObjectPixels || n > a.max_pixels) return;
  const int32_t* index = a.index + b;
  shape_one(a, k, n, [&](int64_t i) { return pixel_at(a, index[i]); });
}

// The objects of kWarpObjectPixels pixels or more (up to max_pixels, at most kStagedPixels), in
// any order: each object's sums are its own.
__global__ void list_large_kernel(const ShapeArgs a) {
  const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= a.objects) return;
  const int64_t n = a.offset[k + 1] - a.offset[k];
  if (n >= kWarpObjectPixels && n <= a.max_pixels) a.large[atomicAdd(a.large_count, 1u)] = k;
}

// Those objects, one per warp (a warp takes every `warps`-th of the list): its lanes read the
// object's pixels into shared memory side by side, then one lane makes the sums from there, in
// the same order as shape_kernel. On one thread, each of a large object's pixels waited for its
// reads from global memory in each of the sums' three or four passes: the kernel lasted as long
// as its largest object (crowded 4096^2 on the H200, Nsight Compute: 396 us for every object on
// a thread, against 169 us for these, a warp each, beside 116 us for the others).
constexpr int kStagedWarps = 2;  // per block
constexpr int kStagedPixels = 512;

__global__ void staged_shape_kernel(const ShapeArgs a, int64_t warps) {
  __shared__ Pixel staged[kStagedWarps][kStagedPixels];
  const int wi = threadIdx.x / 32, lane = threadIdx.x % 32;
  Pixel* p = staged[wi];
  const int64_t count = *a.large_count;
  for (int64_t t = int64_t(blockIdx.x) * kStagedWarps + wi; t < count; t += warps) {
    const int64_t k = a.large[t];
    const int64_t b = a.offset[k], n = a.offset[k + 1] - b;
    for (int64_t i = lane; i < n; i += 32) p[i] = pixel_at(a, a.index[b + i]);
    __syncwarp();
    if (lane == 0) shape_one(a, k, n, [&](int64_t i) { return p[i]; });
    __syncwarp();
  }
}

// The host's finish_iso (stages/isophotal.cpp) on the device: its pass over the pixels for the
// FWHM fit, the same pixels, each pixel's terms the same arithmetic (fwhm_terms; --fmad=false),
// glibc's log from its exception lists, the sums added in the pixels' order; then the Iso from
// the sums (iso_finish.hpp). An object per warp: the lanes make 32 pixels' terms at once (the
// log is the cost), lane 0 adds them in order and makes the Iso. The frame's pixels here are the
// value image's, the local background 0 (the GPU shapes' case).
constexpr int kFwhmWarps = 4;  // per block

__global__ void iso_finish_kernel(const IsoFinishArgs a) {
  __shared__ FwhmTerms terms[kFwhmWarps][32];
  __shared__ bool taken[kFwhmWarps][32];
  const int wi = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t k = int64_t(blockIdx.x) * kFwhmWarps + wi;
  if (k >= a.objects) return;
  const int64_t b = a.offset[k], n = a.offset[k + 1] - b;
  if (n > a.max_pixels) return;
  const FwhmInput in = a.in[k];
  FwhmSums f;
  if (in.thresh0 > 0.0f) {
    const int32_t w = a.width;
    for (int64_t base = 0; base < n; base += 32) {
      const int64_t i = base + lane;
      bool take = false;
      if (i < n) {
        const int32_t q = a.index[b + i];
        const float v = a.value[q];
        const double pix = static_cast<double>(v);
        take = pix > in.thresh0 && pix < in.sat;
        if (take) {
          const int32_t y = q / w, x = q - y * w;
          terms[wi][lane] = fwhm_terms(pix, x - in.mx, y - in.my, glibcmath::glibc_log(v, a.lists));
        }
      }
      taken[wi][lane] = take;
      __syncwarp();
      if (lane == 0) {
        const int count = static_cast<int>(n - base < 32 ? n - base : 32);
        for (int l = 0; l < count; ++l)
          if (taken[wi][l]) fwhm_accumulate(f, terms[wi][l]);
      }
      __syncwarp();
    }
  }
  if (lane != 0) return;
  const Shape& s = a.shapes[k];
  Iso r = iso_from_sums(s, a.finish, a.sums[k], a.mthresh[k], in.bkg, 0.0f, in.dthresh, 0.0);
  if (in.thresh0 > 0.0f) iso_fwhm(r, s, f);
  a.isos[k] = r;
}

}  // namespace

void finish_isos(const IsoFinishArgs& args, cudaStream_t stream) {
  if (args.objects == 0) return;
  iso_finish_kernel<<<cuda::blocks_for(args.objects, kFwhmWarps), 32 * kFwhmWarps, 0, stream>>>(
      args);
  cuda::cuda_check_launch("iso_finish_kernel");
}

void shape_sums(const ShapeArgs& args, cudaStream_t stream, cudaStream_t warp_stream) {
  if (args.objects == 0) return;
  if (args.max_pixels > kStagedPixels)
    throw Error("internal: shape_sums given objects of up to " + std::to_string(args.max_pixels) +
                " pixels; a warp stages at most " + std::to_string(kStagedPixels));
  constexpr int kBlock = 128;
  CELERIS_CUDA_CHECK(cudaMemsetAsync(args.large_count, 0, sizeof(unsigned), warp_stream));
  list_large_kernel<<<cuda::blocks_for(args.objects, kBlock), kBlock, 0, warp_stream>>>(args);
  cuda::cuda_check_launch("list_large_kernel");
  // Enough warps for a crowded frame's larger objects at once (1,748 of 47,559 on crowded
  // 4096^2), one for every 16 objects; more objects than warps: some take two or more.
  const int64_t warps = (args.objects + 15) / 16;
  staged_shape_kernel<<<cuda::blocks_for(warps, kStagedWarps), 32 * kStagedWarps, 0, warp_stream>>>(
      args, cuda::blocks_for(warps, kStagedWarps) * int64_t{kStagedWarps});
  cuda::cuda_check_launch("staged_shape_kernel");
  shape_kernel<<<cuda::blocks_for(args.objects, kBlock), kBlock, 0, stream>>>(args);
  cuda::cuda_check_launch("shape_kernel");
}

}  // namespace celeris::extract::gpu
