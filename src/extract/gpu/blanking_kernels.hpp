// The blanking codes' kernels (blanking_kernels.cu), launched by blanking_gpu.cpp. Plain C++17
// on raw device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace celeris::extract::gpu {

// A pixel's code and where it goes (y * width + x): the objects' pixels, as OwnedCodes gives them.
struct OwnedCode {
  int32_t pixel;
  int32_t code;
};

// code[p] = -1 where `value` is not NaN and `cvalue` is above `threshold` (above
// pixel_threshold[p] where given: detection weights) (detected), else 0; then
// code[owned[i].pixel] = owned[i].code: the host Blanking's two passes.
void blanking_codes(const float* value, const float* cvalue, float threshold, int64_t n,
                    const OwnedCode* owned, int64_t m, int32_t* code, cudaStream_t stream,
                    const float* pixel_threshold = nullptr);

// The first pass alone (code[p] = -1 or 0 over n pixels).
void detected_codes(const float* value, const float* cvalue, float threshold, int64_t n,
                    int32_t* code, cudaStream_t stream, const float* pixel_threshold = nullptr);
// The codes of objects no cleaning merged away, from their pixels' indexes on the device: object
// first + k's pixels index[offset[k] .. offset[k + 1]) (y * width + x) get first + k + 1, for
// k < objects.
void object_codes(const int32_t* index, const int64_t* offset, int64_t objects, int64_t first,
                  int32_t* code, cudaStream_t stream);
// code[owned[i].pixel] = owned[i].code for i < m (the second pass alone).
void owned_codes(const OwnedCode* owned, int64_t m, int32_t* code, cudaStream_t stream);

}  // namespace celeris::extract::gpu
