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

// code[p] = -1 where `value` is not NaN and `cvalue` is above `threshold` (detected), else 0;
// then code[owned[i].pixel] = owned[i].code: the host Blanking's two passes.
void blanking_codes(const float* value, const float* cvalue, float threshold, int64_t n,
                    const OwnedCode* owned, int64_t m, int32_t* code, cudaStream_t stream);

}  // namespace celeris::extract::gpu
