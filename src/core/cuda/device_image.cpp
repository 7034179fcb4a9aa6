// DeviceImage (include/celeris/device_image.hpp) on the CUDA runtime.
#include "celeris/device_image.hpp"

#include <cuda_runtime.h>

#include <string>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"

namespace celeris {

struct DeviceImage::Memory {
  cuda::DeviceBuffer<float> pixels;
};

DeviceImage DeviceImage::upload(ImageView<const float> host) {
  if (host.width <= 0 || host.height <= 0) throw Error("DeviceImage::upload: empty image");
  cuda::cuda_require_device("DeviceImage");
  DeviceImage d;
  d.memory_ = std::make_shared<Memory>();
  d.memory_->pixels.reset(static_cast<size_t>(host.size()));
  d.memory_->pixels.upload(host.data, static_cast<size_t>(host.size()));
  d.address_ = reinterpret_cast<std::uintptr_t>(d.memory_->pixels.data());
  d.width_ = host.width;
  d.height_ = host.height;
  return d;
}

DeviceImage DeviceImage::borrow(std::uintptr_t address, int64_t width, int64_t height) {
  if (width <= 0 || height <= 0)
    throw Error("DeviceImage::borrow: size " + std::to_string(width) + " x " +
                std::to_string(height) + " is not positive");
  cuda::cuda_require_device("DeviceImage");
  cudaPointerAttributes attr{};
  const cudaError_t e = cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(address));
  if (e != cudaSuccess ||
      (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)) {
    cudaGetLastError();
    throw Error("DeviceImage::borrow: address 0x" + [&] {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(address));
      return std::string(buf);
    }() + " is not device memory");
  }
  DeviceImage d;
  d.address_ = address;
  d.width_ = width;
  d.height_ = height;
  return d;
}

Image<float> DeviceImage::download() const {
  Image<float> out = Image<float>::uninitialized(width_, height_);
  if (!empty())
    CELERIS_CUDA_CHECK(cudaMemcpy(out.data(), reinterpret_cast<const void*>(address_),
                                  static_cast<size_t>(size()) * sizeof(float),
                                  cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace celeris

namespace celeris {

std::shared_ptr<void> lock_host_memory(const void* data, size_t bytes) {
  int devices = 0;
  if (!data || bytes == 0 || cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    return {};
  }
  void* p = const_cast<void*>(data);
  if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
    cudaGetLastError();  // not fatal: uploads run from pageable memory
    return {};
  }
  return {p, [](void* q) { cudaHostUnregister(q); }};
}

}  // namespace celeris
