// Internal CUDA layer: PinnedBuffer<T>, page-locked host memory (cudaHostAlloc) owned by one
// object. Copies between it and the device run at full bus speed and are truly asynchronous
// (DeviceBuffer::upload_async / download_async), unlike copies from pageable memory. Page-locked
// memory is slow to allocate and taken from the OS's pool: allocate once and reuse.
// Move-only, freed on destruction, contents undefined until written; 0 elements allocate nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/cuda/cuda_check.hpp"

namespace celeris::cuda {

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t n) { allocate(n); }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
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
  bool empty() const { return n_ == 0; }
  T& operator[](size_t k) { return p_[k]; }
  const T& operator[](size_t k) const { return p_[k]; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }

  // Frees the current allocation and allocates n elements (contents undefined).
  void reset(size_t n) {
    release();
    allocate(n);
  }

  // At least n elements, reallocating (contents lost) only when the buffer is smaller: for
  // staging buffers reused over a sequence of frames (as DeviceBuffer::grow).
  T* grow(size_t n) {
    if (n > n_) reset(n);
    return p_;
  }

 private:
  void allocate(size_t n) {
    if (n == 0) return;
    cuda_check(cudaHostAlloc(reinterpret_cast<void**>(&p_), n * sizeof(T), cudaHostAllocDefault),
               "cudaHostAlloc(" + std::to_string(n * sizeof(T)) + " bytes)");
    n_ = n;
  }
  void release() noexcept {
    if (p_) cudaFreeHost(p_);
    p_ = nullptr;
    n_ = 0;
  }

  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace celeris::cuda
