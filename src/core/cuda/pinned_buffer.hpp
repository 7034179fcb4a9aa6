// Internal CUDA layer: PinnedBuffer<T>, page-locked host memory owned by one object. Copies between
// it and the device run at full bus speed and are truly asynchronous (DeviceBuffer::upload_async /
// download_async), unlike copies from pageable memory. Page-locked memory is slow to allocate and
// taken from the OS's pool: allocate once and reuse. Buffers of 2 MB or more are ordinary memory on
// transparent huge pages, faulted in and then page-locked with cudaHostRegister: on the H100's
// host, 11.5 ms for a 4096^2 float frame against cudaHostAlloc's 22 ms, and freed in 1.4 ms
// against 6.1 (bench_pinned_alloc); the copies run at the same speed. Where that fails (no huge
// pages is no failure, only slower), cudaHostAlloc. Move-only, freed on destruction, contents
// undefined until written; 0 elements allocate nothing.
#pragma once

#include <cuda_runtime.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
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
      : p_(std::exchange(o.p_, nullptr)),
        n_(std::exchange(o.n_, 0)),
        registered_(std::exchange(o.registered_, false)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      registered_ = std::exchange(o.registered_, false);
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
  static constexpr size_t kHugePage = size_t{2} << 20;

  void allocate(size_t n) {
    if (n == 0) return;
    const size_t bytes = n * sizeof(T);
    if (bytes >= kHugePage && (p_ = static_cast<T*>(registered_huge_pages(bytes)))) {
      n_ = n;
      registered_ = true;
      return;
    }
    cuda_check(cudaHostAlloc(reinterpret_cast<void**>(&p_), bytes, cudaHostAllocDefault),
               "cudaHostAlloc(" + std::to_string(bytes) + " bytes)");
    n_ = n;
  }
  // Ordinary memory, huge pages asked for, faulted in (the kernel zeroes it a huge page at a
  // time), then registered; nullptr where any step fails.
  static void* registered_huge_pages(size_t bytes) {
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) return nullptr;
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without it, ordinary pages
    std::memset(p, 0, rounded);
    if (cudaHostRegister(p, rounded, cudaHostRegisterDefault) != cudaSuccess) {
      cudaGetLastError();  // not sticky: cleared, and cudaHostAlloc is tried instead
      std::free(p);
      return nullptr;
    }
    return p;
  }
  void release() noexcept {
    if (p_ && registered_) {
      cudaHostUnregister(p_);
      std::free(p_);
    } else if (p_) {
      cudaFreeHost(p_);
    }
    p_ = nullptr;
    n_ = 0;
    registered_ = false;
  }

  T* p_ = nullptr;
  size_t n_ = 0;
  bool registered_ = false;  // registered_huge_pages' (else cudaHostAlloc's)
};

}  // namespace celeris::cuda
