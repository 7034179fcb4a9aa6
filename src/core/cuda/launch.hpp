// Internal CUDA layer: the grid of a one-dimensional launch, one thread per item.
// Plain C++ (no CUDA headers needed), for .cu files.
#pragma once

#include <cstdint>

namespace celeris::cuda {

// Blocks of `threads` covering n items (0 for none: callers skip the launch then).
inline unsigned blocks_for(int64_t n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

}  // namespace celeris::cuda
