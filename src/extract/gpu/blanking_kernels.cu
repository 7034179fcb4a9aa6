// The blanking codes on the GPU (blanking_kernels.hpp): the same predicate and the same codes as
// the host Blanking's constructor (sextractor/scan_order.cpp), pixel for pixel.
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/launch.hpp"
#include "extract/gpu/blanking_kernels.hpp"
#include "extract/sextractor/detected_pixel.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kThreads = 256;

__global__ void detected_kernel(const float* value, const float* cvalue, float threshold, int64_t n,
                                int32_t* code, const float* pixel_threshold) {
  const int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (p < n)
    code[p] = detected_pixel(value[p], cvalue[p], pixel_threshold ? pixel_threshold[p] : threshold)
                  ? -1
                  : 0;
}

__global__ void owned_kernel(const OwnedCode* owned, int64_t m, int32_t* code) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < m) code[owned[i].pixel] = owned[i].code;
}

// One thread per object, over its pixels (objects own disjoint pixels: no two writes meet).
__global__ void object_kernel(const int32_t* index, const int64_t* offset, int64_t objects,
                              int64_t first, int32_t* code) {
  const int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (k >= objects) return;
  const int32_t c = static_cast<int32_t>(first + k + 1);
  for (int64_t i = offset[k]; i < offset[k + 1]; ++i) code[index[i]] = c;
}

}  // namespace

void detected_codes(const float* value, const float* cvalue, float threshold, int64_t n,
                    int32_t* code, cudaStream_t stream, const float* pixel_threshold) {
  if (n == 0) return;
  detected_kernel<<<cuda::blocks_for(n, kThreads), kThreads, 0, stream>>>(value, cvalue, threshold,
                                                                          n, code, pixel_threshold);
  cuda::cuda_check_launch("detected_kernel");
}

void object_codes(const int32_t* index, const int64_t* offset, int64_t objects, int64_t first,
                  int32_t* code, cudaStream_t stream) {
  if (objects == 0) return;
  object_kernel<<<cuda::blocks_for(objects, kThreads), kThreads, 0, stream>>>(index, offset,
                                                                              objects, first, code);
  cuda::cuda_check_launch("object_kernel");
}

void owned_codes(const OwnedCode* owned, int64_t m, int32_t* code, cudaStream_t stream) {
  if (m == 0) return;
  owned_kernel<<<cuda::blocks_for(m, kThreads), kThreads, 0, stream>>>(owned, m, code);
  cuda::cuda_check_launch("owned_kernel");
}

void blanking_codes(const float* value, const float* cvalue, float threshold, int64_t n,
                    const OwnedCode* owned, int64_t m, int32_t* code, cudaStream_t stream,
                    const float* pixel_threshold) {
  if (n == 0) return;
  detected_codes(value, cvalue, threshold, n, code, stream, pixel_threshold);
  // Objects own disjoint pixels: no two writes meet.
  owned_codes(owned, m, code, stream);
}

}  // namespace celeris::extract::gpu
