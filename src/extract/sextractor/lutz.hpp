// One-pass connected-component extraction in the manner of Lutz (1980), as SExtractor's scan
// and deblending use it. Beyond the 8-connected partition (which any labelling gives), it
// reproduces two orders SExtractor's results depend on: the order in which components complete
// (the catalog order) and the order of the pixels within a component (its "chain": runs are
// appended as they are scanned, and when a run joins an object from the row above, the two
// chains are concatenated in scan order). CLEAN's mthresh and the deblending pixel draws are
// functions of the chain order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "extract/sextractor/pixel_stack.hpp"

namespace celeris::extract {

// Chain flags: pixels were dropped by a pixel-stack overflow (pixel_stack.hpp), and one of
// the dropped pixels lay on the grid's border (SExtractor's OBJ_TRUNC, set per pixel as it is
// scanned, outlives the pixel).
enum LutzFlag : uint8_t { kLutzOverflow = 1, kLutzDroppedBorder = 2 };

struct LutzComponent {
  std::vector<int64_t> pixels;  // y * width + x, in chain order
  uint8_t flags = 0;            // LutzFlag bits
};

// Scans a width x height grid in raster order; on(x, y) tells whether a pixel is foreground.
// Calls emit(LutzComponent&&) for each 8-connected component with at least `minarea` pixels,
// in completion order. (A template so that the per-pixel test inlines.)
namespace lutz_detail {

// A partially built object: a linked chain of pixels (through `next`) and its size.
struct Chain {
  int64_t first = -1, last = -1;
  int64_t npix = 0;
  uint8_t flags = 0;  // LutzFlag bits, OR'ed on merging (scan.c's update)
};

// Appends chain b to chain a.
inline void append(Chain& a, const Chain& b, std::vector<int64_t>& next) {
  a.npix += b.npix;
  a.flags |= b.flags;
  if (a.first < 0) {
    a.first = b.first;
    a.last = b.last;
  } else if (b.last >= 0) {
    next[a.last] = b.first;
    a.last = b.last;
  }
}

// States of the row above at the current column.
enum class Above { Outside, Inside, Open, Closed };
// Markers left on the row for the next one: start of an object's first run on the row ('S'),
// start of a further run of an object already started on the row ('s'), end of a run whose
// object continues to the right ('f'), end of the object's last run on the row ('F').
enum Marker : uint8_t { kNone = 0, kStartFirst, kStartMore, kEndMore, kEndLast };

// scanimage's victim when the pixel stack runs out at column x (pixel_stack.hpp): the object
// holding the most pixels among those parked on the row (stored[i], still to be picked up or
// already closed on this row: marker 'S' at i) and those open on it. `mark` is the marker read
// at x (cleared from `marker` already). A parked entry whose column started an object still
// open on this row is stale; scanimage's test includes start[0], which is always 0, so column
// 0 counts as stale once the scan has passed it.
inline Chain* pixel_stack_victim(int width, int x, uint8_t mark, const std::vector<uint8_t>& marker,
                                 std::vector<Chain>& stored, std::vector<Chain>& open,
                                 const std::vector<int>& start) {
  Chain* victim = nullptr;
  int64_t most = 0;
  for (int i = 0; i <= width; ++i) {
    if (stored[i].npix <= most) continue;
    if (marker[i] != kStartFirst && !(mark == kStartFirst && i == x)) continue;
    bool stale = false;
    if (i < x) {
      stale = i == 0;
      for (int s : start) stale = stale || s == i;
    }
    if (!stale) {
      most = stored[i].npix;
      victim = &stored[i];
    }
  }
  for (Chain& c : open)
    if (c.npix > most) {
      most = c.npix;
      victim = &c;
    }
  return victim;
}

}  // namespace lutz_detail

// Working buffers of lutz_scan, reusable from call to call (deblending scans thousands of
// small boxes; allocating them each time cost more than the scans).
struct LutzScratch {
  std::vector<int64_t> next;   // per foreground pixel: the next one in its chain (-1: last)
  std::vector<int64_t> where;  // per foreground pixel: y * width + x
  std::vector<uint8_t> marker;
  std::vector<lutz_detail::Chain> stored;  // object chains parked at the start of their first run
  std::vector<lutz_detail::Chain> open;    // stack of objects being built on this row
  std::vector<int> start, end;             // per open object: start of its first run (-1: none yet)
  std::vector<lutz_detail::Above> ps_stack;
};

// With `stack`, the pixels are held in a bounded pixel stack as SExtractor's scan holds them
// (pixel_stack.hpp): on overflow the largest open object loses all but its first pixel. Throws
// celeris::Error when no open object has more than one pixel to give back (scan.c's fatal case).
template <class On, class Emit>
void lutz_scan(int width, int height, On&& on, int minarea, Emit&& emit, LutzScratch& scratch,
               PixelStack* stack) {
  if (width <= 0 || height <= 0) return;
  // Entries held; the stack is exhausted when a pixel leaves only its last entry free.
  int64_t in_use = 0;
  const int64_t exhausted = stack ? stack->size - 1 : INT64_MAX;
  const int w1 = width + 1;
  // Chains link foreground pixels by their ordinal in scan order (not by position), so the
  // buffers grow with the foreground, not with the grid: deblending scans each node's bounding
  // box at every threshold, and most of a frame is background.
  std::vector<int64_t>& next = scratch.next;
  std::vector<int64_t>& where = scratch.where;
  std::vector<uint8_t>& marker = scratch.marker;
  std::vector<lutz_detail::Chain>& stored = scratch.stored;
  std::vector<lutz_detail::Chain>& open = scratch.open;
  std::vector<int>& start = scratch.start;
  std::vector<int>& end = scratch.end;
  std::vector<lutz_detail::Above>& ps_stack = scratch.ps_stack;
  next.clear();
  where.clear();
  marker.assign(w1, lutz_detail::kNone);
  stored.assign(w1, lutz_detail::Chain{});
  open.clear();
  start.clear();
  end.clear();
  ps_stack.clear();
  auto finish = [&](lutz_detail::Chain& c) {
    if (stack) stack->peak = std::max(stack->peak, in_use);  // a maximum comes before each free
    in_use -= c.npix;  // the chain goes back to the pool, kept or not
    if (c.npix < minarea) return;
    LutzComponent comp;
    comp.pixels.reserve(static_cast<size_t>(c.npix));
    comp.flags = c.flags;
    for (int64_t k = c.first; k >= 0; k = next[k]) comp.pixels.push_back(where[k]);
    emit(std::move(comp));
  };

  for (int y = 0; y <= height; ++y) {
    bool in_run = false;  // current pixel continues a run on this row
    lutz_detail::Above ps = lutz_detail::Above::Closed;  // state of the row above at this column
    for (int x = 0; x <= width; ++x) {
      const uint8_t mark = marker[x];
      marker[x] = lutz_detail::kNone;
      const bool lit = y < height && x < width && on(x, y);
      if (lit && ++in_use >= exhausted) {  // scan.c takes the pixel's entry before the test
        stack->peak = std::max(stack->peak, in_use);
        stack->overflows.push_back({x, y});
        lutz_detail::Chain* victim =
            lutz_detail::pixel_stack_victim(width, x, mark, marker, stored, open, start);
        if (!victim || victim->npix <= 1)
          throw Error("pixel stack overflow at " + std::to_string(x + 1) + "," +
                      std::to_string(y + 1) + " with no object to free: MEMORY_PIXSTACK " +
                      std::to_string(stack->size) + " is too small");
        for (int64_t k = next[victim->first]; k >= 0; k = next[k]) {
          const int64_t px = where[k] % width, py = where[k] / width;
          if (px == 0 || py == 0 || px == width - 1 || py == height - 1)
            victim->flags |= kLutzDroppedBorder;
        }
        in_use -= victim->npix - 1;
        next[victim->first] = -1;
        victim->last = victim->first;
        victim->npix = 1;
        victim->flags |= kLutzOverflow;
      }
      if (lit && !in_run) {  // a run starts
        in_run = true;
        if (ps == lutz_detail::Above::Inside) {
          // Under an object of the row above: the run belongs to it.
          if (start.back() < 0) {
            marker[x] = lutz_detail::kStartFirst;
            start.back() = x;
          } else {
            marker[x] = lutz_detail::kStartMore;
          }
        } else {
          ps_stack.push_back(ps);
          marker[x] = lutz_detail::kStartFirst;
          open.push_back(lutz_detail::Chain{});
          start.push_back(x);
          end.push_back(-1);
          ps = lutz_detail::Above::Closed;
        }
      }
      if (mark == lutz_detail::kStartFirst) {
        ps_stack.push_back(ps);
        if (!in_run) {
          ps_stack.push_back(lutz_detail::Above::Closed);
          open.push_back(stored[x]);
          start.push_back(-1);
          end.push_back(-1);
        } else {
          lutz_detail::append(open.back(), stored[x], next);
        }
        ps = lutz_detail::Above::Inside;
      } else if (mark == lutz_detail::kStartMore) {
        if (in_run && ps == lutz_detail::Above::Closed) {
          // This run joins a second part of the same object: merge the two open objects.
          ps_stack.pop_back();
          const int x2 = start.back();
          lutz_detail::Chain top = open.back();
          open.pop_back();
          start.pop_back();
          end.pop_back();
          lutz_detail::append(open.back(), top, next);
          if (start.back() < 0)
            start.back() = x2;
          else
            marker[x2] = lutz_detail::kStartMore;
        }
        ps = lutz_detail::Above::Inside;
      } else if (mark == lutz_detail::kEndMore) {
        ps = lutz_detail::Above::Open;
      } else if (mark == lutz_detail::kEndLast) {
        ps = ps_stack.back();
        ps_stack.pop_back();
        if (!in_run && ps == lutz_detail::Above::Closed) {
          if (start.back() < 0) {
            finish(open.back());  // nothing continues it on this row: complete
          } else {
            marker[end.back()] = lutz_detail::kEndLast;
            stored[start.back()] = open.back();
          }
          open.pop_back();
          start.pop_back();
          end.pop_back();
          ps = ps_stack.back();
          ps_stack.pop_back();
        }
      }
      if (lit) {
        const int64_t k = static_cast<int64_t>(where.size());
        where.push_back(static_cast<int64_t>(y) * width + x);
        next.push_back(-1);
        lutz_detail::append(open.back(), lutz_detail::Chain{k, k, 1}, next);
      } else if (in_run) {  // a run ends
        in_run = false;
        if (ps != lutz_detail::Above::Closed) {
          marker[x] = lutz_detail::kEndMore;
          end.back() = x;
        } else {
          ps = ps_stack.back();
          ps_stack.pop_back();
          marker[x] = lutz_detail::kEndLast;
          stored[start.back()] = open.back();
          open.pop_back();
          start.pop_back();
          end.pop_back();
        }
      }
    }
  }
}

template <class On, class Emit>
void lutz_scan(int width, int height, On&& on, int minarea, Emit&& emit, LutzScratch& scratch) {
  lutz_scan(width, height, on, minarea, emit, scratch, nullptr);
}

template <class On, class Emit>
void lutz_scan(int width, int height, On&& on, int minarea, Emit&& emit) {
  LutzScratch scratch;
  lutz_scan(width, height, on, minarea, emit, scratch, nullptr);
}

}  // namespace celeris::extract
