// DeviceImage in builds without CUDA: nothing can be made, and asking is an error.
#include "celeris/device_image.hpp"
#include "celeris/error.hpp"

namespace celeris {

struct DeviceImage::Memory {};

DeviceImage DeviceImage::upload(ImageView<const float>) {
  throw Error("DeviceImage: this celeris was built without CUDA");
}

DeviceImage DeviceImage::borrow(std::uintptr_t, int64_t, int64_t) {
  throw Error("DeviceImage: this celeris was built without CUDA");
}

Image<float> DeviceImage::download() const {
  throw Error("DeviceImage: this celeris was built without CUDA");
}

std::shared_ptr<void> lock_host_memory(const void*, size_t) {
  return {};
}

}  // namespace celeris
