// The GPU measurement's kernel: measure_object (measure_kernels.hpp), one object per thread.
#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/measure_kernels.hpp"

namespace celeris::extract::gpu {

namespace {

__global__ void photometry_kernel(const PhotometryArgs a) {
  const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < a.n) measure_object(a, a.order[t]);
}

}  // namespace

void measure_photometry(const PhotometryArgs& args, cudaStream_t stream) {
  if (args.n == 0) return;
  constexpr int kBlock = 128;
  const int64_t blocks = (args.n + kBlock - 1) / kBlock;
  photometry_kernel<<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(args);
  cuda::cuda_check_launch("photometry_kernel");
}

}  // namespace celeris::extract::gpu
