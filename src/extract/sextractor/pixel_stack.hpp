// SExtractor's pixel stack (scan.c, scanimage): the detection scan keeps the pixels of every
// object still open in one pool of MEMORY_PIXSTACK entries. lutz_scan (lutz.hpp) models its
// occupancy and, when it would run out, does what scanimage does:
//  - a pixel above the threshold takes an entry; the pool is exhausted when that leaves only
//    its last entry (scanimage keeps it as the end of the free list), i.e. when MEMORY_PIXSTACK
//    - 1 entries are held;
//  - then the open object holding the most pixels is the "victim" (ties: the first found,
//    parked objects by column first, then the objects open on this row, oldest first); it
//    keeps only the first pixel of its chain, the others go back to the pool, and it carries
//    FLAGS 128 (OBJ_OVERFLOW) from then on; the scan goes on, the victim growing again;
//  - an object's entries return to the pool when it completes (whether or not it has
//    DETECT_MINAREA pixels left), never line by line;
//  - a victim is never deblended (sortit skips parcelout for OBJ_OVERFLOW), and it keeps
//    FLAGS 8 when a pixel it lost was on the border.
// Occupancy costs one counter per foreground pixel; the victim search runs only on overflow.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace celeris::extract {

// MEMORY_PIXSTACK's default and the range SExtractor accepts (preflist.h).
constexpr int64_t kDefaultPixStack = 300000;
constexpr int64_t kMinPixStack = 1000, kMaxPixStack = 100000000;

struct PixelStackOverflow {
  int x = 0, y = 0;  // 0-based pixel whose entry exhausted the stack
};

// A bounded pixel stack for lutz_scan: `size` entries (MEMORY_PIXSTACK); filled by the scan
// with where it overflowed (scan order) and the most entries held at once.
struct PixelStack {
  int64_t size = kDefaultPixStack;
  std::vector<PixelStackOverflow> overflows;
  int64_t peak = 0;
};

// SExtractor's warning for one overflow ("Pixel stack overflow at position x,y", 1-based).
std::string pixel_stack_warning(const PixelStackOverflow& o);

}  // namespace celeris::extract
