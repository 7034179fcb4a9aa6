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
//             amid them, sees them all as not yet made); blanked again once the lagging
//             blanker reaches the row, if it had not at the merge (`immediate` only).
// A plain view (pointer and sizes) so that host code and CUDA kernels ask it the same question.
struct BlankingView {
  const int32_t* code = nullptr;
  int64_t width = 0;
  int blank_lag = 0;
  // Dual-image mode's measurement image: SExtractor's scan (scan.c) blanks a detected pixel of
  // the measurement image as soon as it scans it, and blank_lag rows behind the scan again, as
  // it does the detection image; so its rows are blanked from the line after theirs on.
  bool immediate = false;

  // Whether (x, y) is blanked for the object with owner id `id` measured at scan line `time`.
  CELERIS_HD bool blanked(int x, int y, int32_t id, int64_t time) const {
    const int32_t c = code[int64_t(y) * width + x];
    if (c == 0 || c == id) return false;
    const int64_t lagged = int64_t(y) + blank_lag;  // the scan line the blanker reaches it by
    if ((immediate ? int64_t(y) + 1 : lagged) > time) return false;  // not reached yet
    if (c >= -1) return true;
    const int64_t r = -(c + 2);
    return time <= r || (lagged > r && lagged <= time);
  }
};

}  // namespace celeris::extract
