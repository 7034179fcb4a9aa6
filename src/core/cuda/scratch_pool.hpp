// Internal CUDA layer: ScratchPool, device scratch memory reused across calls.
//
// cudaMalloc/cudaFree cost tens of microseconds and cudaFree synchronises the device, so
// temporary storage (CUB's two-phase temp storage, per-frame work buffers) is taken from one
// grow-only block instead: acquire(bytes) returns the block when it is large enough, else frees
// it and allocates a larger one (rounded up to 1 MiB steps, so slowly growing requests do not
// reallocate each time). Memory is given back only by release() or destruction.
//
// Contract: the pointer of an acquire() stays valid until the next acquire() asks for more than
// capacity(), or release(); the contents are not kept. One pool serves one sequence of work (one
// stream or the default stream): the caller must not acquire a larger block while work queued on
// another stream still uses the old one (cudaFree would wait for the device, but the old pointer
// would be gone). Several pieces needed at once are laid out in one block with Carve.
// Move-only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"

namespace celeris::cuda {

class ScratchPool {
 public:
  static constexpr size_t kGranule = size_t(1) << 20;

  ScratchPool() = default;
  ~ScratchPool() { release(); }
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;
  ScratchPool(ScratchPool&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)),
        cap_(std::exchange(o.cap_, 0)),
        allocations_(std::exchange(o.allocations_, 0)) {}
  ScratchPool& operator=(ScratchPool&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(cap_, o.cap_);
    std::swap(allocations_, o.allocations_);
    return *this;
  }

  // At least `bytes` of device memory (nullptr for 0 bytes when nothing was allocated yet).
  void* acquire(size_t bytes) {
    if (bytes <= cap_) return p_;
    release();
    const size_t want = (bytes + kGranule - 1) / kGranule * kGranule;
    cuda_check(cudaMalloc(&p_, want), "cudaMalloc(" + std::to_string(want) + " bytes) for scratch");
    cap_ = want;
    ++allocations_;
    return p_;
  }
  template <class T>
  T* acquire_as(size_t n) {
    return static_cast<T*>(acquire(n * sizeof(T)));
  }

  size_t capacity() const { return cap_; }
  // How many times the pool has called cudaMalloc (for tests and benchmarks).
  int allocations() const { return allocations_; }
  void release() noexcept {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    cap_ = 0;
  }

 private:
  void* p_ = nullptr;
  size_t cap_ = 0;
  int allocations_ = 0;
};

// Lays several arrays out in one scratch block, each aligned to 256 bytes (cudaMalloc's own
// alignment, enough for any CUB storage). Two passes, as CUB's temp storage: add() every piece
// to learn bytes(), acquire that, then take() the pieces again in the same order.
//   Carve plan;  plan.add<uint32_t>(n);  plan.add<double>(m);  plan.add_bytes(cub_bytes);
//   char* base = static_cast<char*>(pool.acquire(plan.bytes()));
//   Carve cut(base);  auto* a = cut.take<uint32_t>(n);  auto* b = cut.take<double>(m);
//   void* cub_tmp = cut.take_bytes(cub_bytes);
class Carve {
 public:
  static constexpr size_t kAlign = 256;

  Carve() = default;
  explicit Carve(void* base) : base_(static_cast<char*>(base)) {}

  template <class T>
  void add(size_t n) {
    add_bytes(n * sizeof(T));
  }
  void add_bytes(size_t bytes) { offset_ = align(offset_) + bytes; }
  size_t bytes() const { return offset_; }

  template <class T>
  T* take(size_t n) {
    return static_cast<T*>(take_bytes(n * sizeof(T)));
  }
  void* take_bytes(size_t bytes) {
    if (!base_) throw Error("Carve::take without a base pointer");
    offset_ = align(offset_);
    void* p = base_ + offset_;
    offset_ += bytes;
    return p;
  }

 private:
  static size_t align(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
  char* base_ = nullptr;
  size_t offset_ = 0;
};

}  // namespace celeris::cuda
