// The blanking map as CUDA kernels and host code both read it (scan_order.hpp builds it): plain
// C++17, free of the library's other headers, so that a .cu file includes it without them.
#pragma once

#include <cstdint>

#include "celeris/host_device.hpp"

namespace celeris::extract {

// Which detected pixels are blanked, and when, as one int32 per pixel (`code`):
//   0         not detected;
//   k + 1     a pixel of object k (blanked for every other object);
//   -1        detected and owned by no object (or given back after the blanker passed), blanked
//             for every object once the blanker has reached its row;
//   -(r + 2)  given back by cleaning at scan line r: blanked from the blanker's pass to the
//             write-outs at scan line r included, which SExtractor makes when the line begins,
//             before that line's merges (a write-out because the object stack is full, made
//             amid them, sees them all as not yet made).
// A plain view (pointer and sizes) so that host code and CUDA kernels ask it the same question.
struct BlankingView {
  const int32_t* code = nullptr;
  int64_t width = 0;
  int blank_lag = 0;

  // Whether (x, y) is blanked for the object with owner id `id` measured at scan line `time`.
  CELERIS_HD bool blanked(int x, int y, int32_t id, int64_t time) const {
    const int32_t c = code[int64_t(y) * width + x];
    if (c == 0 || c == id) return false;
    if (int64_t(y) + blank_lag > time) return false;  // the blanker has not reached the row
    return c >= -1 || time <= int64_t(-(c + 2));
  }
};

}  // namespace celeris::extract
