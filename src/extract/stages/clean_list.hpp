// SExtractor's clean list (clean.c: the objects kept so far, compared with each newcomer in list
// order, the last entry taking the slot of one removed) and the indexes that its two write-out
// rules need, which SExtractor applies by scanning the whole list: the entry of smallest ycmax
// (the first such) when the object stack is full, and the entries of ycmin at most a given row
// when the line buffer moves on.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace celeris::extract {

// A key per list position, with their minimum: a complete binary tree whose leaves are the
// positions and whose nodes hold the smaller key of their two children. An update walks up only
// while the minimum changes (about two levels on average), without the data-dependent branch
// at each level of a binary heap's sift, and an entry moving to another position is two leaf
// updates. Keys pack (value, position), so the minimum is the smallest value, then the first.
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

  uint64_t min() const { return t_[1]; }  // kEmpty when the tree is empty
  uint64_t at(size_t position) const { return t_[leaves_ + position]; }

  // Sets the key at `position` (kEmpty: clears it).
  void set(size_t position, uint64_t k) {
    if (position >= leaves_) resize(position + 1);
    size_t i = leaves_ + position;
    t_[i] = k;
    for (i >>= 1; i >= 1; i >>= 1) {
      const uint64_t m = std::min(t_[2 * i], t_[2 * i + 1]);
      if (t_[i] == m) break;  // the minima above do not change
      t_[i] = m;
    }
  }

  // Calls f(position) for each position whose key has a value at most `bound`, ascending.
  template <class F>
  void each_at_most(int64_t bound, F&& f) const {
    if (bound < std::numeric_limits<int32_t>::min()) return;
    const uint64_t below = bound >= std::numeric_limits<int32_t>::max()
                               ? kEmpty
                               : key(static_cast<int32_t>(bound + 1), 0);
    if (t_[1] < below) visit(1, below, f);
  }

 private:
  template <class F>
  void visit(size_t i, uint64_t below, F& f) const {
    if (i >= leaves_) {
      f(i - leaves_);
      return;
    }
    if (t_[2 * i] < below) visit(2 * i, below, f);
    if (t_[2 * i + 1] < below) visit(2 * i + 1, below, f);
  }
  void resize(size_t positions) {
    const size_t leaves = std::bit_ceil(std::max<size_t>(positions, 1));
    std::vector<uint64_t> t(2 * leaves, kEmpty);
    for (size_t p = 0; p < leaves_; ++p) t[leaves + p] = t_[leaves_ + p];
    for (size_t i = leaves; i-- > 1;) t[i] = std::min(t[2 * i], t[2 * i + 1]);
    t_ = std::move(t);
    leaves_ = leaves;
  }
  size_t leaves_ = 0;
  std::vector<uint64_t> t_;  // t_[1] the root; the leaves at [leaves_, 2 leaves_)
};

// The clean list with both indexes: entries by (ycmax, position) and by (ycmin, position).
// The ycmax index serves only a full object stack, which most frames never see: it is built
// the first time it is asked for (from each position's ycmax, kept alongside the list) and
// kept up to date from then on, so that frames whose stack never fills do not maintain it.
class CleanList {
 public:
  // n objects in all; at most `capacity` in the list at once (it grows past it if need be).
  CleanList(size_t n, size_t capacity) : pos_(n, -1), by_ycmin_(capacity), capacity_(capacity) {
    list_.reserve(capacity);
    ycmax_.reserve(capacity);
  }

  const std::vector<size_t>& entries() const { return list_; }
  size_t size() const { return list_.size(); }
  bool empty() const { return list_.empty(); }
  size_t operator[](size_t li) const { return list_[li]; }
  // The list position of object o, -1 when it is not in the list.
  int64_t position(size_t o) const { return pos_[o]; }

  void push(size_t o, int ycmin, int ycmax) {
    const size_t li = list_.size();
    pos_[o] = static_cast<int64_t>(li);
    list_.push_back(o);
    ycmax_.push_back(ycmax);
    if (ycmax_indexed_) by_ycmax_.set(li, PositionMinTree::key(ycmax, li));
    by_ycmin_.set(li, PositionMinTree::key(ycmin, li));
  }
  // SExtractor's subcleanobj: the last entry takes the freed slot.
  void remove_at(size_t li) {
    const size_t last = list_.size() - 1;
    pos_[list_[li]] = -1;
    if (li != last) {
      list_[li] = list_[last];
      ycmax_[li] = ycmax_[last];
      pos_[list_[li]] = static_cast<int64_t>(li);
      if (ycmax_indexed_) move_key(by_ycmax_, last, li);
      move_key(by_ycmin_, last, li);
    }
    if (ycmax_indexed_) by_ycmax_.set(last, PositionMinTree::kEmpty);
    by_ycmin_.set(last, PositionMinTree::kEmpty);
    list_.pop_back();
    ycmax_.pop_back();
  }
  // The position of the entry with the smallest ycmax, the first such (the list not empty).
  size_t first_of_smallest_ycmax() {
    if (!ycmax_indexed_) {
      by_ycmax_ = PositionMinTree(std::max(capacity_, list_.size()));
      for (size_t li = 0; li < list_.size(); ++li)
        by_ycmax_.set(li, PositionMinTree::key(ycmax_[li], li));
      ycmax_indexed_ = true;
    }
    return PositionMinTree::position_of(by_ycmax_.min());
  }
  // Calls f(position) for each entry whose ycmin is at most `row`, by ascending position.
  template <class F>
  void each_ycmin_at_most(int64_t row, F&& f) const {
    by_ycmin_.each_at_most(row, f);
  }

 private:
  static void move_key(PositionMinTree& t, size_t from, size_t to) {
    t.set(to, PositionMinTree::key(PositionMinTree::value_of(t.at(from)), to));
  }
  std::vector<size_t> list_;
  std::vector<int32_t> ycmax_;  // per position
  std::vector<int64_t> pos_;
  PositionMinTree by_ycmax_, by_ycmin_;
  size_t capacity_;
  bool ycmax_indexed_ = false;
};

}  // namespace celeris::extract
