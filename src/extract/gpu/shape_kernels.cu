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
    return p;
  };
  const ShapeSums s = extract::shape_sums(px, n, a.detect_thresh, NoShift{});
  // The barycentre as finish_shape (moments.cpp) makes it: the position errors are about it.
  const CentralMoments m = central_moments(s, a.fixed_centre[k] != 0, a.cx[k], a.cy[k]);
  a.shape[k] = s;
  a.sums[k] = iso_sums(px, n, m.xm + s.xmin, m.ym + s.ymin, a.iso, PlainIsoModel{});
  float heap[kMaxMinarea];
  a.mthresh[k] = a.clean ? clean_threshold(px, n, a.detect_thresh, false, a.minarea, heap) : 0.0f;
}

}  // namespace

void shape_sums(const ShapeArgs& args, cudaStream_t stream) {
  if (args.objects == 0) return;
  constexpr int kBlock = 128;
  shape_kernel<<<cuda::blocks_for(args.objects, kBlock), kBlock, 0, stream>>>(args);
  cuda::cuda_check_launch("shape_kernel");
}

}  // namespace celeris::extract::gpu
