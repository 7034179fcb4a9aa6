// Internal CUDA layer: DynamicSharedLimit, a kernel's dynamic shared-memory limit (an attribute of
// the function, one for every host thread) raised to each launch's need and never lowered, under
// a lock. A launch that set the limit to its own size could lower it between another thread's
// setting and launch: "invalid argument" at launch, seen with 8 frames in the back stages at once
// (stop 34). One object per kernel. Only for .cu files and hosts of the CUDA runtime.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>

#include "core/cuda/cuda_check.hpp"

namespace celeris::cuda {

class DynamicSharedLimit {
 public:
  template <class Kernel>
  void raise(Kernel kernel, size_t bytes) {
    std::lock_guard<std::mutex> lock(m_);
    if (bytes <= allowed_) return;
    CELERIS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
    allowed_ = bytes;
  }

 private:
  std::mutex m_;
  size_t allowed_ = 0;
};

}  // namespace celeris::cuda
