// The shapes' kernel (shape_kernels.hpp): one object per thread, the CPU's loops.
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/launch.hpp"
#include "extract/gpu/shape_kernels.hpp"

namespace celeris::extract::gpu {

namespace {

__global__ void shape_kernel(const ShapeArgs a) {
  const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= a.objects) return;
  const int64_t b = a.offset[k], n = a.offset[k + 1] - b;
  if (n > a.max_pixels) return;
  const int32_t* index = a.index + b;
  const int32_t w = a.width;
  const auto px = [&](int64_t i) {
    const int32_t q = index[i];
    Pixel p;
    p.y = q / w;
    p.x = q - p.y * w;
    p.value = a.value[q];
    p.cvalue = a.cvalue[q];
    if (a.var) p.var = a.var[q];
    if (a.pixel_thresholds) p.dthresh = a.thresh ? a.thresh[q] : a.detect_thresh;
    return p;
  };
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
    a.fwhm_in[k] = in;
  }
}

// The host's pass (stages/isophotal.cpp finish_iso) on the device: the same pixels, each
// pixel's terms the same arithmetic (fwhm_terms; --fmad=false), glibc's log from its exception
// lists, the sums added in the pixels' order. An object per warp: the lanes make 32 pixels'
// terms at once (the log is the cost), lane 0 adds them in order. The frame's pixels here are
// the value image's, the local background 0 (the GPU shapes' case).
constexpr int kFwhmWarps = 4;  // per block

__global__ void fwhm_kernel(const FwhmArgs a) {
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
  if (lane == 0) a.out[k] = f;
}

}  // namespace

void fwhm_sums(const FwhmArgs& args, cudaStream_t stream) {
  if (args.objects == 0) return;
  fwhm_kernel<<<cuda::blocks_for(args.objects, kFwhmWarps), 32 * kFwhmWarps, 0, stream>>>(args);
  cuda::cuda_check_launch("fwhm_kernel");
}

void shape_sums(const ShapeArgs& args, cudaStream_t stream) {
  if (args.objects == 0) return;
  constexpr int kBlock = 128;
  shape_kernel<<<cuda::blocks_for(args.objects, kBlock), kBlock, 0, stream>>>(args);
  cuda::cuda_check_launch("shape_kernel");
}

}  // namespace celeris::extract::gpu
