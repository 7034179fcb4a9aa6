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
//   -(2 m + b + 2)  given back by cleaning at moment m (below): blanked from the blanker's pass
//             to the write-outs up to moment m; with b = 1 (`immediate` only) blanked again
//             once the lagging blanker reaches the row, which it had not at the merge.
// Moments order what happens on the scan lines: m = r + T for a merge or a write-out on scan
// line r, T the write-outs made so far because the object stack was full. The buffer's
// write-outs come when a line begins, before its merges; a write-out because the stack is full
// comes amid them (scan.c sortit: before the object that found the stack full is cleaned) and
// counts itself in T, so it sees the merges made before it on that line as made, the others
// not. Without such write-outs, m = r.
// A plain view (pointer and sizes) so that host code and CUDA kernels ask it the same question.
struct BlankingView {
  const int32_t* code = nullptr;
  int64_t width = 0;
  int blank_lag = 0;
  // Dual-image mode's measurement image: SExtractor's scan (scan.c) blanks a detected pixel of
  // the measurement image as soon as it scans it, and blank_lag rows behind the scan again, as
  // it does the detection image; so its rows are blanked from the line after theirs on.
  bool immediate = false;

  // Whether (x, y) is blanked for the object with owner id `id` measured at scan line `time`,
  // moment `moment` (negative: the moment of a write-out when the line begins, without any
  // stack-full write-out before, = time).
  CELERIS_HD bool blanked(int x, int y, int32_t id, int64_t time, int64_t moment = -1) const {
    const int32_t c = code[int64_t(y) * width + x];
    if (c == 0 || c == id) return false;
    const int64_t lagged = int64_t(y) + blank_lag;  // the scan line the blanker reaches it by
    if ((immediate ? int64_t(y) + 1 : lagged) > time) return false;  // not reached yet
    if (c >= -1) return true;
    const int64_t e = -(int64_t(c) + 2);
    return (moment < 0 ? time : moment) <= (e >> 1) || ((e & 1) && lagged <= time);
  }
};

}  // namespace celeris::extract
