// The blanking codes begun before the clean pass ends (blanking_gpu.hpp blanking_draft): the
// stage that has the objects' pixel indexes on the device (shapes_gpu.hpp) adds their codes as
// if no cleaning merged any, on its own stream, and the GPU fills them in while the host runs
// the clean pass; blanking_codes then writes only the pixels of the objects merged away.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/cuda/stream.hpp"

namespace celeris::extract::gpu {

struct CodeImages;

class BlankingDraft {
 public:
  // `pixel_threshold` (device memory, or null): each pixel's detection threshold, which replaces
  // `threshold` (detection weights), as blanking_codes'.
  BlankingDraft(std::shared_ptr<CodeImages> images, const float* value, const float* cvalue,
                int64_t pixels, float threshold, const float* pixel_threshold = nullptr);
  ~BlankingDraft();
  BlankingDraft(const BlankingDraft&) = delete;
  BlankingDraft& operator=(const BlankingDraft&) = delete;

  // Objects first .. first + n - 1, whose pixels are index[offset[k] .. offset[k + 1]) (device
  // memory, y * width + x) for object first + k, on `stream`; the objects so far must be
  // 0 .. first - 1. The first call also marks the detected pixels (-1), before any object's.
  void add(cudaStream_t stream, const int32_t* index, const int64_t* offset, size_t first,
           size_t n);
  // How many objects (0 .. added() - 1) have their codes.
  size_t added() const { return added_; }
  // The codes on the device (null after finish()).
  int32_t* device() const;
  // Makes `stream` wait for every add() so far, the images staying the draft's (add() may go on
  // from another thread: a stream waiting here sees at least the adds made before this call).
  void wait_on(cudaStream_t stream) const;
  // Makes `stream` wait for every add() so far; the codes then belong to the caller.
  std::shared_ptr<CodeImages> finish(cudaStream_t stream);
  int64_t pixels() const { return pixels_; }
  const float* value() const { return value_; }
  const float* cvalue() const { return cvalue_; }
  float threshold() const { return threshold_; }
  const float* pixel_threshold() const { return pixel_threshold_; }

 private:
  std::shared_ptr<CodeImages> images_;
  const float *value_, *cvalue_;
  int64_t pixels_;
  float threshold_;
  const float* pixel_threshold_;
  size_t added_ = 0;
  cuda::OrderEvent last_;  // recorded after the last add()
};

}  // namespace celeris::extract::gpu
