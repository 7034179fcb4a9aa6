// How many OpenMP threads one extraction uses. A small frame gains nothing from threads and loses
// to their start-up and spin-waiting: two threads took 23.6 ms on the 149^2 gc_msx_e frame
// against 16.0 ms for one (dev VM), while 0.4 Mpix frames already run 1.5x faster on two.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "celeris/extract.hpp"

namespace celeris::extract {

constexpr int64_t kPixelsPerThread = 128 * 1024;

// `requested` > 0: exactly that many. Otherwise OpenMP's count (all cores, or OMP_NUM_THREADS),
// but at most one thread per kPixelsPerThread pixels.
inline int worker_threads(int requested, int64_t pixels) {
  if (requested > 0) return requested;
  const int64_t by_size = 1 + pixels / kPixelsPerThread;
  return static_cast<int>(std::min<int64_t>(omp_get_max_threads(), by_size));
}

inline int worker_threads(const Config& config, int64_t pixels) {
  return worker_threads(config.threads, pixels);
}

}  // namespace celeris::extract
