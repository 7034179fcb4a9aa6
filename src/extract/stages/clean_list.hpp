// SExtractor's clean list (clean.c: the objects kept so far, compared with each newcomer in list
// order, the last entry taking the slot of one removed) and the indexes that its two write-out
// rules need, which SExtractor applies by scanning the whole list: the entry of smallest ycmax
// (the first such) when the object stack is full, and the entries of ycmin at most a given row
// when the line buffer moves on.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace celeris::extract {

// A key per list position, with their minimum: a complete 8-ary tree whose leaves are the
// positions and whose nodes hold the smallest key of their eight children. An update walks up
// only while the minimum changes (about two levels on average), and an entry moving to another
// position is two leaf updates. A node's eight children are one 64-byte line, so a level costs
// one line's load and seven minima: four levels for 4096 positions, where a binary tree took
// twelve dependent loads (the clean pass's evictions and joins walk it at every newcomer of a
// crowded frame). Keys pack (value, position), so the minimum is the smallest value, then the
// first.
class PositionMinTree {
 public:
  static constexpr uint64_t kEmpty = std::numeric_limits<uint64_t>::max();

  // Sized for `positions` positions at first; it grows if asked for more.
  explicit PositionMinTree(size_t positions = 1) { resize(positions); }

  // The key of `value` at `position`: value (biased to unsigned) in the high 32 bits.
  static uint64_t key(int32_t value, size_t position) {
    return (uint64_t{static_cast<uint32_t>(value) ^ 0x80000000u} << 32) | position;
  }
  static int32_t value_of(uint64_t key) {
    return static_cast<int32_t>(static_cast<uint32_t>(key >> 32) ^ 0x80000000u);
  }
  static size_t position_of(uint64_t key) { return static_cast<size_t>(key & 0xffffffffu); }

  uint64_t min() const { return keys()[offset_.back()]; }  // kEmpty when the tree is empty
  uint64_t at(size_t position) const { return keys()[position]; }

  // Sets the key at `position` (kEmpty: clears it). A node's line is scanned only where the
  // child that changed held the node's minimum and grew; otherwise the node's new minimum is
  // known from the child's old and new keys (keys are unique but for kEmpty, and an empty
  // child equal to its node's kEmpty takes the scan), which saves most scans: a newcomer's key
  // seldom beats its line's.
  void set(size_t position, uint64_t k) {
    if (position >= leaves_) resize(position + 1);
    uint64_t* t = keys();
    uint64_t old = t[position];
    t[position] = k;
    size_t i = position;
    for (size_t l = 0; l + 1 < offset_.size(); ++l) {
      const size_t line = offset_[l] + (i & ~size_t{kArity - 1});
      i /= kArity;
      uint64_t& up = t[offset_[l + 1] + i];
      uint64_t m;
      if (k < up)
        m = k;  // the child's new key is the line's minimum
      else if (old != up)
        break;  // the minimum was another child's, and stays
      else
        m = min_of_line(t + line);  // the child held the minimum and grew
      if (up == m) break;           // the minima above do not change
      old = up;
      up = m;
      k = m;
    }
  }

 private:
  static constexpr size_t kArity = 8;
  struct alignas(64) Line {
    uint64_t k[kArity];
  };
  static uint64_t min_of_line(const uint64_t* c) {
    const uint64_t a = std::min(c[0], c[1]), b = std::min(c[2], c[3]), d = std::min(c[4], c[5]),
                   e = std::min(c[6], c[7]);
    return std::min(std::min(a, b), std::min(d, e));
  }
  uint64_t* keys() { return lines_.data()->k; }
  const uint64_t* keys() const { return lines_.data()->k; }

  void resize(size_t positions) {
    size_t leaves = kArity;
    while (leaves < positions) leaves *= kArity;
    // Each level's keys from a line's start: leaves, leaves / 8, ..., 1 (the root, a line alone).
    std::vector<size_t> offset;
    size_t total = 0;
    for (size_t n = leaves;; n /= kArity) {
      offset.push_back(total);
      total += std::max(n, kArity);
      if (n == 1) break;
    }
    std::vector<Line> lines(total / kArity);
    uint64_t* t = lines.data()->k;
    std::fill(t, t + total, kEmpty);
    for (size_t p = 0; p < leaves_; ++p) t[p] = keys()[p];
    // Each level's nodes from the level below: `nodes` of them, a line of children each.
    size_t nodes = leaves;
    for (size_t l = 0; l + 1 < offset.size(); ++l) {
      nodes /= kArity;
      for (size_t i = 0; i < nodes; ++i)
        t[offset[l + 1] + i] = min_of_line(t + offset[l] + i * kArity);
    }
    lines_ = std::move(lines);
    offset_ = std::move(offset);
    leaves_ = leaves;
  }
  size_t leaves_ = 0;
  std::vector<Line> lines_;     // the levels' keys, each level from a line's start
  std::vector<size_t> offset_;  // per level (the leaves first), its first key
};

// The clean list with both indexes. The ycmin index serves the buffer's write-out events, whose
// row bounds never decrease: each entry is filed under its ycmin row when it joins (a bucket per
// row of the events' range, a linked list through the objects), and an event takes the rows up
// to its bound once, skipping entries already gone; nothing is updated when an entry moves or
// leaves otherwise but a count of each row's entries still in the list, so that a row all of
// whose entries have left is not walked. (A position-ordered tree, updated at every push, removal
// and move, cost a quarter of the clean pass.) The ycmax index serves a full object stack: a
// position min tree, built the first time it is asked for (from each position's ycmax, kept
// alongside the list) and kept up to date from then on. A sparse frame never asks; on a crowded
// 4096^2 frame MEMORY_OBJSTACK's 3000 entries are full at 38,813 of 47,559 newcomers, each then a
// query at the root and a removal. (Filing by ycmax row as well, tried, made each query a scan of
// the first row's entries, and the pass slower.)
class CleanList {
 public:
  // n objects in all (0 .. n - 1); at most `capacity` in the list at once (it grows past it if
  // need be). [row_lo, row_hi]: the range of the row bounds take_ycmin_at_most will mostly be
  // given (a bound outside it is answered too, by scanning the entries filed outside it).
  CleanList(size_t n, size_t capacity, int64_t row_lo = 0, int64_t row_hi = -1)
      : object_(n),
        row_lo_(row_lo),
        row_hi_(std::max(row_hi, row_lo - 1)),
        next_row_(row_lo),
        head_(static_cast<size_t>(row_hi_ - row_lo_ + 1), -1),
        live_(head_.size(), 0),
        capacity_(capacity) {
    list_.reserve(capacity);
    ycmax_.reserve(capacity);
    ycmin_.reserve(capacity);
  }

  const std::vector<size_t>& entries() const { return list_; }
  size_t size() const { return list_.size(); }
  bool empty() const { return list_.empty(); }
  size_t operator[](size_t li) const { return list_[li]; }
  // The list position of object o, -1 when it is not in the list.
  int64_t position(size_t o) const { return object_[o].pos; }
  // A value of the user's per object (-1 at first), kept beside its position: the clean pass
  // reads both for each neighbour of each newcomer, objects at random, one cache line instead
  // of two.
  int32_t tag(size_t o) const { return object_[o].tag; }
  void set_tag(size_t o, int32_t t) { object_[o].tag = t; }

  // Object o joins at the end (once: an object never joins twice).
  void push(size_t o, int ycmin, int ycmax) {
    const size_t li = list_.size();
    PerObject& ob = object_[o];
    ob.pos = static_cast<int32_t>(li);
    list_.push_back(o);
    ycmax_.push_back(ycmax);
    ycmin_.push_back(ycmin);
    if (ycmax_indexed_) {
      // A key a removal left at this position (a full stack's write-out, then the newcomer) is
      // overwritten: one update instead of two.
      stale_end_ = false;
      by_ycmax_.set(li, PositionMinTree::key(ycmax, li));
    }
    ob.ycmin = ycmin;
    if (ycmin > row_hi_)
      beyond_.push_back(static_cast<uint32_t>(o));
    else if (ycmin < next_row_)  // its row taken already (or below the range)
      overdue_.push_back(static_cast<uint32_t>(o));
    else {
      const size_t row = static_cast<size_t>(ycmin - row_lo_);
      ob.next = head_[row];
      head_[row] = static_cast<int32_t>(o);
      ++live_[row];
    }
  }
  // SExtractor's subcleanobj: the last entry takes the freed slot.
  void remove_at(size_t li) {
    if (ycmax_indexed_) flush_clear();
    const size_t last = list_.size() - 1;
    object_[list_[li]].pos = -1;
    // Filed under a row not yet taken (its row at least next_row_ now, so at its push too): one
    // fewer there for the event to find. (Its ycmin from the position's copy: the object's own
    // record, old and read at random, is a cache miss the pass would wait for.)
    const int32_t ycmin = ycmin_[li];
    if (ycmin >= next_row_ && ycmin <= row_hi_) --live_[static_cast<size_t>(ycmin - row_lo_)];
    if (li != last) {
      list_[li] = list_[last];
      ycmax_[li] = ycmax_[last];
      ycmin_[li] = ycmin_[last];
      object_[list_[li]].pos = static_cast<int32_t>(li);
      if (ycmax_indexed_)
        by_ycmax_.set(li, PositionMinTree::key(PositionMinTree::value_of(by_ycmax_.at(last)), li));
    }
    // The tree keeps last's key until it is next asked, unless a push takes the position first.
    if (ycmax_indexed_) stale_end_ = true;
    list_.pop_back();
    ycmax_.pop_back();
    ycmin_.pop_back();
  }
  // Empties the list as SExtractor's end of the scan does, always writing out the first entry
  // and moving the last into its place: f(object) for the entries at positions 0, n - 1,
  // n - 2, ..., 1, in that order. The indexes are left behind (nothing asks them after the
  // scan; the tree is rebuilt if asked): 3,000 removals and their tree updates saved at the
  // end of a crowded frame's pass, on the GPU path's critical path.
  template <class F>
  void drain_in_end_order(F&& f) {
    const size_t n = list_.size();
    for (size_t k = 0; k < n; ++k) {
      const size_t o = list_[k == 0 ? 0 : n - k];
      object_[o].pos = -1;
      f(o);
    }
    list_.clear();
    ycmax_.clear();
    ycmin_.clear();
    ycmax_indexed_ = false;
    stale_end_ = false;
  }
  // The position of the entry with the smallest ycmax, the first such (the list not empty).
  size_t first_of_smallest_ycmax() {
    if (!ycmax_indexed_) {
      by_ycmax_ = PositionMinTree(std::max(capacity_, list_.size()));
      for (size_t li = 0; li < list_.size(); ++li)
        by_ycmax_.set(li, PositionMinTree::key(ycmax_[li], li));
      ycmax_indexed_ = true;
    }
    flush_clear();
    return PositionMinTree::position_of(by_ycmax_.min());
  }
  // Calls f(position) for each entry whose ycmin is at most `row`, by ascending position, for a
  // caller that then removes every one of them (they are not offered again).
  template <class F>
  void take_ycmin_at_most(int64_t row, F&& f) {
    taken_.clear();
    auto offer = [&](uint32_t o) {
      if (object_[o].pos >= 0) taken_.push_back(static_cast<size_t>(object_[o].pos));
    };
    // Those filed apart: kept while still in the list and above the bound.
    auto sift = [&](std::vector<uint32_t>& apart) {
      size_t kept = 0;
      for (const uint32_t o : apart) {
        const PerObject& ob = object_[o];
        if (ob.pos < 0) continue;
        if (ob.ycmin <= row)
          taken_.push_back(static_cast<size_t>(ob.pos));
        else
          apart[kept++] = o;
      }
      apart.resize(kept);
    };
    sift(overdue_);
    for (const int64_t upto = std::min(row, row_hi_); next_row_ <= upto; ++next_row_) {
      const size_t r = static_cast<size_t>(next_row_ - row_lo_);
      // A row whose entries have all left (on a crowded frame, most: the full stack's
      // write-outs take them first) is not walked: its chain is a dependent load per entry.
      if (live_[r] > 0)
        for (int32_t o = head_[r]; o >= 0; o = object_[o].next) offer(static_cast<uint32_t>(o));
      head_[r] = -1;
      live_[r] = 0;
    }
    if (row > row_hi_) sift(beyond_);
    std::sort(taken_.begin(), taken_.end());
    for (const size_t li : taken_) f(li);
  }

 private:
  std::vector<size_t> list_;
  std::vector<int32_t> ycmax_, ycmin_;  // per position
  // Per object: its list position (-1: not in the list), the ycmin index's entries (its ycmin
  // and the next object filed under the same row) and the user's tag, in one 16-byte record
  // (the pass visits objects at random). Per row of [row_lo_, row_hi_] the last object filed
  // there; the rows before next_row_ are taken.
  struct PerObject {
    int32_t pos = -1, next = -1, ycmin = 0, tag = -1;
  };
  std::vector<PerObject> object_;
  int64_t row_lo_, row_hi_, next_row_;
  std::vector<int32_t> head_;
  std::vector<int32_t> live_;  // per row of [row_lo_, row_hi_] not taken: its entries in the list
  std::vector<uint32_t> overdue_, beyond_;  // ycmin below next_row_ when filed, above row_hi_
  std::vector<size_t> taken_;
  PositionMinTree by_ycmax_;
  // Whether the tree still holds a key at the position just past the list's end (a removal's
  // last), cleared before the tree's minimum is read or another entry is removed.
  bool stale_end_ = false;
  void flush_clear() {
    if (!stale_end_) return;
    by_ycmax_.set(list_.size(), PositionMinTree::kEmpty);
    stale_end_ = false;
  }
  size_t capacity_;
  bool ycmax_indexed_ = false;
};

}  // namespace celeris::extract
