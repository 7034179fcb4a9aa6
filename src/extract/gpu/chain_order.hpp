// The chain order of one 8-connected component (sextractor/lutz.hpp: the order in which
// SExtractor's scan links an object's pixels, which deblending's draws and CLEAN depend on),
// computed from the component's own pixels in raster order, as the GPU has them after its
// labelling. Written once for the host (the tests) and the device (chain_kernels.cu).
//
// Why this equals lutz_scan's order: the scan's state only changes where a run of the current
// row starts or ends, or where it meets a marker left by a run of the row above (the markers
// sit on run boundaries), and all of those belong to the component itself (a lit pixel at a
// marker is 8-adjacent to the run above). Between two such events it only appends pixels to
// the object on top of its stack. So the scan is replayed event by event over the runs of two
// rows, pixels being appended as "pieces" (ranges of consecutive raster ordinals), which makes
// the work proportional to the runs, not the pixels, and the scratch proportional to the
// component (chain_scratch_*).
//
// Plain C++17 on raw pointers, no heap, no exceptions: a broken invariant (a stack larger
// than its bound, not exactly one completed object) makes chain_pieces return false.
#pragma once

#include <cstdint>

#include "celeris/host_device.hpp"

namespace celeris::extract::chain {

// One run of the component: columns [x0, x1) of row y; `first` is the raster ordinal of its
// pixel x0 (the pixels of a run have consecutive ordinals). Runs come in raster order.
struct Run {
  int32_t y = 0, x0 = 0, x1 = 0, first = 0;
};

// A chain of pieces, each piece named by its first ordinal: piece p holds ordinals
// [p, piece_end[p]) and is followed by piece_next[p] (-1: last).
struct Link {
  int32_t first = -1, last = -1;
};

// An object open on the current row (lutz.hpp's open / start / end stacks): `start` and `end`
// name runs of the current row (-1: none yet) instead of columns.
struct Open {
  Link chain;
  int32_t start = -1, end = -1;
};

// Markers (lutz.hpp lutz_detail::Marker) and states of the row above (lutz_detail::Above).
enum : uint8_t { kNone = 0, kStartFirst, kStartMore, kEndMore, kEndLast };
enum : uint8_t { kOutside = 0, kInside, kOpen, kClosed };

// Working memory of one component of `count` pixels and `nruns` runs (nruns <= count).
// Per run: its two markers and the chain parked at its start. Per ordinal: piece_end,
// piece_next. Stacks: `open` holds at most the runs of two rows, `above` at most two entries
// per run of the row above and one per run of the current row.
struct Scratch {
  uint8_t* mark_start;  // nruns
  uint8_t* mark_end;    // nruns
  Link* stored;         // nruns
  int32_t* piece_end;   // count, indexed by ordinal - base
  int32_t* piece_next;  // count
  Open* open;           // open_capacity(nruns)
  uint8_t* above;       // above_capacity(nruns)
};
CELERIS_HD constexpr int64_t open_capacity(int64_t nruns) {
  return nruns + 2;
}
CELERIS_HD constexpr int64_t above_capacity(int64_t nruns) {
  return 2 * nruns + 4;
}

namespace detail {

struct State {
  Scratch s;
  int32_t base;  // ordinal of the component's first pixel
  int64_t nruns;
  int32_t nopen = 0, nabove = 0;
  bool ok = true;

  CELERIS_HD void append(Link& a, const Link& b) {
    if (a.first < 0) {
      a = b;
    } else if (b.last >= 0) {
      s.piece_next[a.last] = b.first;
      a.last = b.last;
    }
  }
  // Appends ordinals [lo, hi) (relative to base) to chain a, extending its last piece when
  // they follow it.
  CELERIS_HD void append_pixels(Link& a, int32_t lo, int32_t hi) {
    if (a.last >= 0 && s.piece_end[a.last] == lo) {
      s.piece_end[a.last] = hi;
      return;
    }
    s.piece_end[lo] = hi;
    s.piece_next[lo] = -1;
    append(a, Link{lo, lo});
  }
  // The open object on top; with none (a broken invariant) entry 0, which always exists.
  CELERIS_HD Open& top() {
    if (nopen <= 0) ok = false;
    return s.open[nopen > 0 ? nopen - 1 : 0];
  }
  CELERIS_HD void push_open(const Link& chain, int32_t start) {
    if (nopen >= open_capacity(nruns)) {
      ok = false;
      return;
    }
    s.open[nopen++] = Open{chain, start, -1};
  }
  CELERIS_HD void pop_open() { --nopen; }
  CELERIS_HD void push_above(uint8_t a) {
    if (nabove >= above_capacity(nruns)) {
      ok = false;
      return;
    }
    s.above[nabove++] = a;
  }
  CELERIS_HD uint8_t pop_above() {
    if (nabove > 0) return s.above[--nabove];
    ok = false;
    return kClosed;
  }
};

}  // namespace detail

// Replays lutz_scan over the component whose runs are runs(0 .. nruns-1) (`runs(k)` returns a
// Run; ordinals from `base`), and returns in `chain` the component's chain as pieces (ordinals
// relative to base). Returns false on a broken invariant.
template <class Runs>
CELERIS_HD bool chain_pieces(const Runs& runs, int64_t nruns, int32_t base, Scratch s,
                             Link& chain) {
  detail::State st{s, base, nruns};
  if (nruns <= 0) return false;
  int finished = 0;
  constexpr int32_t kFar = 2147483647;
  int64_t prev_begin = 0, prev_end = 0;  // runs of the row above
  int64_t cur_begin = 0;
  int32_t y = runs(0).y;
  const int32_t last_row = runs(nruns - 1).y;
  for (; y <= last_row + 1; ++y) {
    int64_t cur_end = cur_begin;
    while (cur_end < nruns && runs(cur_end).y == y) ++cur_end;
    for (int64_t r = cur_begin; r < cur_end; ++r) {
      s.mark_start[r] = s.mark_end[r] = kNone;
      s.stored[r] = Link{};
    }
    // Boundaries still to reach: run i's start or its end (at_end) above, run j's here.
    int64_t i = prev_begin, j = cur_begin;
    bool i_at_end = false, j_at_end = false;
    bool in_run = false;
    uint8_t ps = kClosed;
    Run above_run = i < prev_end ? runs(i) : Run{};  // run i, when i < prev_end
    Run cur = j < cur_end ? runs(j) : Run{};         // run j, when j < cur_end
    int32_t pending = 0;                             // first ordinal of run j not yet appended
    while (true) {
      const int32_t px = i < prev_end ? (i_at_end ? above_run.x1 : above_run.x0) : kFar;
      const int32_t cx = j < cur_end ? (j_at_end ? cur.x1 : cur.x0) : kFar;
      const int32_t x = px < cx ? px : cx;
      if (x == kFar) break;
      uint8_t mark = kNone;
      int64_t mark_run = -1;  // the run of the row above whose start is at x
      if (px == x) {
        if (!i_at_end) {
          mark = s.mark_start[i];
          mark_run = i;
          i_at_end = true;
        } else {
          mark = s.mark_end[i];
          i_at_end = false;
          if (++i < prev_end) above_run = runs(i);
        }
      }
      const bool starts = cx == x && !j_at_end, ends = cx == x && j_at_end;
      const bool lit = starts || (in_run && !ends);
      // The pixels between the previous event and x went to the object on top.
      if (in_run) {
        const int32_t upto = cur.first - base + (x - cur.x0);
        if (upto > pending) st.append_pixels(st.top().chain, pending, upto);
      }
      if (lit && !in_run) {  // run j starts
        in_run = true;
        if (ps == kInside) {
          // Under an object of the row above: the run belongs to it.
          if (st.top().start < 0) {
            s.mark_start[j] = kStartFirst;
            st.top().start = static_cast<int32_t>(j);
          } else {
            s.mark_start[j] = kStartMore;
          }
        } else {
          st.push_above(ps);
          s.mark_start[j] = kStartFirst;
          st.push_open(Link{}, static_cast<int32_t>(j));
          ps = kClosed;
        }
      }
      if (!st.ok) return false;
      if (mark == kStartFirst) {
        st.push_above(ps);
        if (!in_run) {
          st.push_above(kClosed);
          st.push_open(s.stored[mark_run], -1);
        } else {
          st.append(st.top().chain, s.stored[mark_run]);
        }
        ps = kInside;
      } else if (mark == kStartMore) {
        if (in_run && ps == kClosed) {
          // This run joins a second part of the same object: merge the two open objects.
          st.pop_above();
          const Open top = st.top();
          st.pop_open();
          if (st.nopen <= 0) return false;
          st.append(st.top().chain, top.chain);
          if (top.start < 0 && st.top().start >= 0) return false;  // lutz.hpp: marker[-1]
          if (st.top().start < 0)
            st.top().start = top.start;
          else
            s.mark_start[top.start] = kStartMore;
        }
        ps = kInside;
      } else if (mark == kEndMore) {
        ps = kOpen;
      } else if (mark == kEndLast) {
        ps = st.pop_above();
        if (!in_run && ps == kClosed) {
          if (st.nopen <= 0) return false;
          if (st.top().start < 0) {
            chain = st.top().chain;  // nothing continues it on this row: complete
            ++finished;
          } else {
            if (st.top().end < 0) return false;
            s.mark_end[st.top().end] = kEndLast;
            s.stored[st.top().start] = st.top().chain;
          }
          st.pop_open();
          ps = st.pop_above();
        }
      }
      if (!st.ok) return false;
      if (lit) {
        pending = cur.first - base + (x - cur.x0);
      } else if (in_run) {  // run j ends at x
        in_run = false;
        if (st.nopen <= 0) return false;
        if (ps != kClosed) {
          s.mark_end[j] = kEndMore;
          st.top().end = static_cast<int32_t>(j);
        } else {
          ps = st.pop_above();
          s.mark_end[j] = kEndLast;
          if (st.top().start < 0) return false;
          s.stored[st.top().start] = st.top().chain;
          st.pop_open();
        }
      }
      if (starts) j_at_end = true;
      if (ends) {
        j_at_end = false;
        if (++j < cur_end) cur = runs(j);
      }
      if (!st.ok) return false;
    }
    prev_begin = cur_begin;
    prev_end = cur_end;
    cur_begin = cur_end;
  }
  return finished == 1;
}

}  // namespace celeris::extract::chain
