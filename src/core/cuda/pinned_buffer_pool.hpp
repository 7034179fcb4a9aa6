// Page-locked host buffers for frames read ahead of their upload (extract/run_frames.cpp), from
// plain C++ (CUDA builds allocate them with cudaHostAlloc, as PinnedBuffer does; other builds
// have none). A fixed number of slots, each lent to one frame at a time and given back when the
// frame has been uploaded. A slot's buffer is allocated the first time a frame needs it and
// grown to the largest frame it has held, so that a stream of frames page-locks its memory once
// instead of registering every frame's memory (cudaHostRegister then cudaHostUnregister of a
// 4096^2 float frame: ~20 ms on the H100 host, as long as reading it). The slots also bound
// the frames read ahead, page-locked or not.
#pragma once

#include <cstddef>
#include <memory>

namespace celeris::cuda {

class PinnedFramePool {
 public:
  // `slots` slots (at least 1). `page_locked` false: slots without memory (the frames are read
  // into ordinary memory; the slots still bound the read-ahead). At most `budget_bytes`
  // page-locked in all: a slot that would pass it lends no memory.
  PinnedFramePool(size_t slots, bool page_locked, size_t budget_bytes);
  ~PinnedFramePool();
  PinnedFramePool(const PinnedFramePool&) = delete;
  PinnedFramePool& operator=(const PinnedFramePool&) = delete;

  class Lease {
   public:
    // `n` floats of the slot's page-locked memory (its buffer grown first where smaller), or
    // nullptr where the pool has none to give (no CUDA, no device, the budget, the driver
    // refuses): the caller then reads into ordinary memory. Valid until the lease goes.
    float* floats(size_t n);
    // Seconds this lease spent allocating page-locked memory (0 when the slot's buffer was
    // large enough).
    double allocation_seconds() const { return allocation_seconds_; }

   private:
    friend class PinnedFramePool;
    struct State;
    std::shared_ptr<State> state_;
    size_t slot_ = 0;
    double allocation_seconds_ = 0;
  };

  // A free slot, waiting for one when all are lent; it comes back when the last copy of the
  // handle goes (from any thread; the pool's memory lives until then, even past the pool).
  std::shared_ptr<Lease> take();

  size_t slots() const;
  size_t page_locked_bytes() const;  // allocated so far, all slots

 private:
  std::shared_ptr<Lease::State> state_;
};

// True when `p` is page-locked host memory of the CUDA runtime (false without CUDA or a device).
bool is_page_locked(const void* p);

}  // namespace celeris::cuda
