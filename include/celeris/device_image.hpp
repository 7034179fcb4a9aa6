// An image in GPU memory, for callers whose frames are already there (a CuPy or PyTorch array, a
// frame grabber's buffer) or who extract one frame several times: extract(DeviceImage) reads it
// without a trip through host memory. Memory another library owns is named by its address, an
// integer, as CuPy's `.data.ptr` and `__cuda_array_interface__` give it (public headers hold no
// device pointer types).
#pragma once

#include <cstdint>
#include <memory>

#include "celeris/image.hpp"

namespace celeris {

class DeviceImage {
 public:
  DeviceImage() = default;

  // A copy of `host` in the current device's memory, owned by the DeviceImage (and its copies).
  // Throws celeris::Error without CUDA or a device.
  static DeviceImage upload(ImageView<const float> host);
  // The float32, row-major, width x height image at `address` in the current device's memory,
  // owned by the caller, who keeps it alive and unchanged while the DeviceImage is used. Throws
  // when the address is not device memory or the size is not positive.
  static DeviceImage borrow(std::uintptr_t address, int64_t width, int64_t height);

  int64_t width() const { return width_; }
  int64_t height() const { return height_; }
  int64_t size() const { return width_ * height_; }
  bool empty() const { return size() == 0; }
  std::uintptr_t address() const { return address_; }  // the first pixel's device address

  Image<float> download() const;  // a host copy

 private:
  struct Memory;  // the allocation of an uploaded image
  std::shared_ptr<Memory> memory_;
  std::uintptr_t address_ = 0;
  int64_t width_ = 0, height_ = 0;
};

// Page-locks host memory that will be uploaded (a frame read ahead of its extraction, or one a
// caller extracts many times), so that uploads from it run at the bus's speed. The memory is
// unlocked when the last copy of the handle goes, which must be before the memory is freed.
// An empty handle (nothing done) without CUDA, without a device, or when the driver refuses.
std::shared_ptr<void> lock_host_memory(const void* data, size_t bytes);

}  // namespace celeris
