// Internal CUDA layer: DeviceBuffer<T>, typed device memory owned by one object.
//
// Move-only (moving hands the allocation over; the source becomes empty), freed on destruction.
// Contents are undefined until written. A buffer of 0 elements allocates nothing and has
// data() == nullptr. Copies to and from the host come in two forms:
//   upload / download              synchronous (cudaMemcpy): done when the call returns;
//   upload_async / download_async  queued on a stream (cudaMemcpyAsync): the host memory must stay
//                                  alive, and for a download unread, until the stream has passed
//                                  the copy; truly asynchronous only with pinned host memory
//                                  (PinnedBuffer), from pageable memory the driver stages it.
// Plain C++ (needs only cuda_runtime.h), so host .cpp files and .cu files both include it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/cuda/cuda_check.hpp"

namespace celeris::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) { allocate(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }

  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }
  bool empty() const { return n_ == 0; }

  // Frees the current allocation and allocates n elements (contents undefined).
  void reset(size_t n) {
    release();
    allocate(n);
  }

  // At least n elements, reallocating (contents lost) only when the buffer is smaller: for
  // work buffers reused over a sequence of frames.
  T* grow(size_t n) {
    if (n > n_) reset(n);
    return p_;
  }

  // host[0, n) -> this[offset, offset + n).
  void upload(const T* host, size_t n, size_t offset = 0) {
    if (n) CELERIS_CUDA_CHECK(cudaMemcpy(p_ + offset, host, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload_async(const T* host, size_t n, cudaStream_t stream, size_t offset = 0) {
    if (n)
      CELERIS_CUDA_CHECK(
          cudaMemcpyAsync(p_ + offset, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  // this[offset, offset + n) -> host[0, n).
  void download(T* host, size_t n, size_t offset = 0) const {
    if (n) CELERIS_CUDA_CHECK(cudaMemcpy(host, p_ + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
  void download_async(T* host, size_t n, cudaStream_t stream, size_t offset = 0) const {
    if (n)
      CELERIS_CUDA_CHECK(
          cudaMemcpyAsync(host, p_ + offset, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  // Every byte set to zero, queued on `stream`.
  void zero_async(cudaStream_t stream) {
    if (n_) CELERIS_CUDA_CHECK(cudaMemsetAsync(p_, 0, bytes(), stream));
  }

 private:
  void allocate(size_t n) {
    if (n == 0) return;
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)),
               "cudaMalloc(" + std::to_string(n * sizeof(T)) + " bytes)");
    n_ = n;
  }
  void release() noexcept {
    if (p_) cudaFree(p_);  // errors here are earlier asynchronous faults, already reported
    p_ = nullptr;
    n_ = 0;
  }

  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace celeris::cuda
