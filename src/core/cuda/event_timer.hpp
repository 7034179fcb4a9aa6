// Internal CUDA layer: EventTimer, device time between the stages of one GPU run.
//
// A fixed number of marks (timing events); mark(k) records mark k on a stream, ms(a, b) is the
// device time from mark a to mark b. ms waits for mark b to be passed, so reading the times
// synchronises with the device: read them after the run, not between stages.
//   EventTimer t(3);  t.mark(0);  upload...;  t.mark(1);  kernels...;  t.mark(2);
//   times.upload = t.ms(0, 1);  times.search = t.ms(1, 2);
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "core/cuda/stream.hpp"

namespace celeris::cuda {

class EventTimer {
 public:
  explicit EventTimer(int marks) {
    events_.reserve(size_t(marks));
    for (int k = 0; k < marks; ++k) events_.emplace_back(true);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  EventTimer(EventTimer&&) noexcept = default;
  EventTimer& operator=(EventTimer&&) noexcept = default;
  int marks() const { return int(events_.size()); }
  // Records mark k on `stream` (nullptr: the legacy default stream).
  void mark(int k, cudaStream_t stream = nullptr) { events_.at(size_t(k)).record(stream); }
  // Milliseconds from mark `from` to mark `to` (both recorded; waits for `to`).
  double ms(int from, int to) const {
    events_.at(size_t(to)).synchronize();
    return elapsed_ms(events_.at(size_t(from)), events_.at(size_t(to)));
  }
  double seconds(int from, int to) const { return ms(from, to) * 1e-3; }

 private:
  std::vector<Event> events_;
};

}  // namespace celeris::cuda
