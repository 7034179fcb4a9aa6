// Internal CUDA layer: RAII streams and events.
//   Stream  a stream of its own (non-blocking by default: it does not synchronise with the legacy
//           default stream, so copies on it overlap kernels there); implicitly a cudaStream_t.
//   Event   a recorded point in a stream, to order streams (Stream::wait) or to time them
//           (elapsed_ms; EventTimer in event_timer.hpp times a sequence of stages).
//   OrderEvent  an Event for ordering only, default-constructed as such, so that an array of
//           them takes its size from a constant.
// Move-only; destroyed with the object (work already queued completes regardless).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "core/cuda/cuda_check.hpp"

namespace celeris::cuda {

class Event {
 public:
  // timing = false: cheaper, for ordering only (elapsed_ms refuses it).
  explicit Event(bool timing = true) {
    CELERIS_CUDA_CHECK(
        cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }

  cudaEvent_t get() const { return e_; }
  // Marks the point the stream (nullptr: the legacy default stream) has reached.
  void record(cudaStream_t stream = nullptr) { CELERIS_CUDA_CHECK(cudaEventRecord(e_, stream)); }
  // Blocks the host until the recorded point is passed.
  void synchronize() const { CELERIS_CUDA_CHECK(cudaEventSynchronize(e_)); }

 private:
  cudaEvent_t e_ = nullptr;
};

// An event without timing (cheaper to record and wait on), for ordering only.
struct OrderEvent : Event {
  OrderEvent() : Event(false) {}
};

// Milliseconds of device time between two recorded timing events (the later one must be done:
// call to.synchronize() first, or it reports cudaErrorNotReady).
inline double elapsed_ms(const Event& from, const Event& to) {
  float ms = 0;
  CELERIS_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms;
}

class Stream {
 public:
  explicit Stream(bool non_blocking = true) {
    CELERIS_CUDA_CHECK(
        cudaStreamCreateWithFlags(&s_, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault));
  }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }

  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }  // NOLINT: passes straight to CUDA calls
  // Later work on this stream waits until `e` has been passed (the host does not wait).
  void wait(const Event& e) { CELERIS_CUDA_CHECK(cudaStreamWaitEvent(s_, e.get(), 0)); }
  // Blocks the host until everything queued so far has finished.
  void synchronize() const { CELERIS_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace celeris::cuda
