// The clean list's indexes (stages/clean_list.hpp) against SExtractor's way of answering the same
// questions: scanning the whole list. Random pushes and removals (the last entry taking the
// freed slot), with values repeated so that ties are decided by position.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "extract/stages/clean_list.hpp"

using namespace celeris::extract;

namespace {

struct Naive {
  std::vector<size_t> list;
  std::vector<int> ycmin, ycmax;  // per position
  void push(size_t o, int lo, int hi) {
    list.push_back(o), ycmin.push_back(lo), ycmax.push_back(hi);
  }
  void remove_at(size_t li) {
    list[li] = list.back(), ycmin[li] = ycmin.back(), ycmax[li] = ycmax.back();
    list.pop_back(), ycmin.pop_back(), ycmax.pop_back();
  }
  size_t first_of_smallest_ycmax() const {
    size_t best = 0;
    for (size_t li = 1; li < list.size(); ++li)
      if (ycmax[li] < ycmax[best]) best = li;
    return best;
  }
  std::vector<size_t> ycmin_at_most(int64_t row) const {
    std::vector<size_t> out;
    for (size_t li = 0; li < list.size(); ++li)
      if (ycmin[li] <= row) out.push_back(li);
    return out;
  }
};

// The positions take_ycmin_at_most(row) gives, asked of a copy of the list: taking entries is
// answered once (the caller removes them), so each question goes to a fresh copy.
std::vector<size_t> taken_on_copy(const CleanList& list, int64_t row) {
  CleanList copy = list;
  std::vector<size_t> got;
  copy.take_ycmin_at_most(row, [&](size_t li) { got.push_back(li); });
  return got;
}

TEST(CleanList, IndexesEqualScanningTheList) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const size_t n = 2000;
    // A small capacity in some trials: the tree must grow.
    CleanList list(n, trial % 3 == 0 ? 3 : 1 + rng() % 600);
    Naive naive;
    const int range = trial % 2 == 0 ? 20 : 100000;  // many ties, or few
    size_t next = 0;
    for (int step = 0; step < 6000; ++step) {
      const unsigned r = rng() % 10;
      if (next < n && (r < 5 || naive.list.empty())) {
        const int lo = static_cast<int>(rng() % range) - range / 2;
        const int hi = lo + static_cast<int>(rng() % range);
        list.push(next, lo, hi);
        naive.push(next, lo, hi);
        ++next;
      } else if (!naive.list.empty()) {
        const size_t li = r < 8 ? rng() % naive.list.size() : naive.first_of_smallest_ycmax();
        list.remove_at(li);
        naive.remove_at(li);
      }
      ASSERT_EQ(list.entries(), naive.list);
      for (size_t li = 0; li < naive.list.size(); ++li)
        ASSERT_EQ(list.position(naive.list[li]), static_cast<int64_t>(li));
      // Asked after one step in three: removals and pushes also follow one another unasked (a
      // removal's cleared position taken by the next push).
      if (naive.list.empty() || step % 3 != 0) continue;
      ASSERT_EQ(list.first_of_smallest_ycmax(), naive.first_of_smallest_ycmax()) << step;
    }
  }
}

// The end of the scan: drain_in_end_order gives the objects in the order that removing the
// first entry again and again (the last moving into its place) writes them out, and leaves
// every object out of the list; a list may be drained with its ycmax index built or not.
TEST(CleanList, DrainGivesTheOrderOfRemovingTheFirstEntry) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    const size_t n = 500;
    CleanList list(n, 1 + rng() % 300);
    Naive naive;
    size_t next = 0;
    for (int step = 0; step < 800 && next < n; ++step) {
      if (rng() % 3 != 0 || naive.list.empty()) {
        const int lo = static_cast<int>(rng() % 50), hi = lo + static_cast<int>(rng() % 50);
        list.push(next, lo, hi);
        naive.push(next, lo, hi);
        ++next;
      } else {
        const size_t li = rng() % naive.list.size();
        list.remove_at(li);
        naive.remove_at(li);
      }
      if (trial % 2 == 0 && !naive.list.empty()) list.first_of_smallest_ycmax();
    }
    std::vector<size_t> expected;
    while (!naive.list.empty()) {
      expected.push_back(naive.list[0]);
      naive.remove_at(0);
    }
    std::vector<size_t> drained;
    list.drain_in_end_order([&](size_t o) { drained.push_back(o); });
    ASSERT_EQ(drained, expected) << "trial " << trial;
    EXPECT_TRUE(list.empty());
    for (size_t o = 0; o < next; ++o) ASSERT_EQ(list.position(o), -1) << o;
  }
}

// The ycmin index as cleaning uses it: write-out events whose row bounds grow (now and then the
// same again, or one that falls back, which the index answers too), each followed by the
// removal of every entry it names in decreasing position, between pushes and removals at
// random. Entries are filed below, inside and above the rows the index is told of.
TEST(CleanList, TakenRowsEqualScanningTheList) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const size_t n = 3000;
    const int range = trial % 2 == 0 ? 40 : 4000;
    const int64_t lo = trial % 3 == 0 ? 0 : -static_cast<int64_t>(rng() % 50);
    const int64_t hi = trial % 5 == 0 ? lo - 1 : lo + static_cast<int64_t>(rng() % range);
    CleanList list(n, 1 + rng() % 400, lo, hi);
    Naive naive;
    size_t next = 0;
    int64_t row = lo - 3;
    for (int step = 0; step < 9000; ++step) {
      const unsigned r = rng() % 12;
      if (next < n && (r < 6 || naive.list.empty())) {
        // ycmin near the rows being taken, as the scan's objects are.
        const int ylo = static_cast<int>(row) + static_cast<int>(rng() % 60) - 20;
        const int yhi = ylo + static_cast<int>(rng() % 100);
        list.push(next, ylo, yhi);
        naive.push(next, ylo, yhi);
        ++next;
      } else if (r < 9 && !naive.list.empty()) {
        const size_t li = rng() % naive.list.size();
        list.remove_at(li);
        naive.remove_at(li);
      } else {
        const unsigned how = rng() % 10;
        row += how < 7 ? 1 : how < 8 ? 0 : how < 9 ? 5 : -3;
        std::vector<size_t> got;
        list.take_ycmin_at_most(row, [&](size_t li) { got.push_back(li); });
        ASSERT_EQ(got, naive.ycmin_at_most(row)) << "trial " << trial << " step " << step;
        for (size_t v = got.size(); v--;) {
          list.remove_at(got[v]);
          naive.remove_at(got[v]);
        }
      }
      ASSERT_EQ(list.entries(), naive.list);
    }
  }
}

// The ycmax index is built only when first asked for (a full object stack): after thousands of
// pushes and removals it must answer as the scan, and go on answering after later changes.
TEST(CleanList, YcmaxIndexBuiltLateEqualsScanningTheList) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 5000;
    CleanList list(n, trial % 2 == 0 ? 4 : 800);
    Naive naive;
    const int range = trial % 4 < 2 ? 20 : 100000;
    const int first_query = 500 + static_cast<int>(rng() % 4000);
    size_t next = 0;
    for (int step = 0; step < 8000; ++step) {
      if (next < n && (rng() % 10 < 6 || naive.list.empty())) {
        const int lo = static_cast<int>(rng() % range) - range / 2;
        const int hi = lo + static_cast<int>(rng() % range);
        list.push(next, lo, hi);
        naive.push(next, lo, hi);
        ++next;
      } else if (!naive.list.empty()) {
        const size_t li = rng() % naive.list.size();
        list.remove_at(li);
        naive.remove_at(li);
      }
      if (step < first_query || naive.list.empty()) continue;
      ASSERT_EQ(list.first_of_smallest_ycmax(), naive.first_of_smallest_ycmax())
          << "trial " << trial << " step " << step;
      if (rng() % 3 == 0) {  // a full stack writes out that entry
        const size_t li = naive.first_of_smallest_ycmax();
        list.remove_at(li);
        naive.remove_at(li);
      }
    }
    ASSERT_EQ(list.entries(), naive.list);
  }
}

TEST(CleanList, RowBoundsBeyondInt32) {
  CleanList list(3, 4);
  list.push(0, std::numeric_limits<int32_t>::min(), 0);
  list.push(1, std::numeric_limits<int32_t>::max(), 5);
  list.push(2, 7, -3);
  EXPECT_EQ(list.first_of_smallest_ycmax(), 2u);
  EXPECT_EQ(taken_on_copy(list, std::numeric_limits<int64_t>::max()),
            (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(taken_on_copy(list, std::numeric_limits<int32_t>::max()),
            (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(taken_on_copy(list, std::numeric_limits<int32_t>::max() - 1),
            (std::vector<size_t>{0, 2}));
  EXPECT_EQ(taken_on_copy(list, 6), (std::vector<size_t>{0}));
  EXPECT_EQ(taken_on_copy(list, std::numeric_limits<int32_t>::min()), (std::vector<size_t>{0}));
  EXPECT_TRUE(taken_on_copy(list, std::numeric_limits<int64_t>::min()).empty());
}

// The same with the rows of the events given: entries filed in the range, below it and above it.
TEST(CleanList, RowBoundsBeyondInt32WithEventRows) {
  CleanList list(3, 4, 0, 10);
  list.push(0, std::numeric_limits<int32_t>::min(), 0);
  list.push(1, std::numeric_limits<int32_t>::max(), 5);
  list.push(2, 7, -3);
  EXPECT_EQ(taken_on_copy(list, std::numeric_limits<int64_t>::max()),
            (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(taken_on_copy(list, std::numeric_limits<int32_t>::max() - 1),
            (std::vector<size_t>{0, 2}));
  EXPECT_EQ(taken_on_copy(list, 7), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(taken_on_copy(list, 6), (std::vector<size_t>{0}));
  EXPECT_TRUE(taken_on_copy(list, std::numeric_limits<int64_t>::min()).empty());
}

}  // namespace

namespace {

// The tree's minimum against a scan of its keys, after every set: random keys (many equal
// values, so positions break ties), cleared keys, and positions past its size, so that it grows
// across powers of eight (its levels: 8, 64, 512, 4096 leaves).
TEST(PositionMinTree, MinimumEqualsScanningTheKeys) {
  std::mt19937_64 rng(7);
  for (const size_t start : {size_t{1}, size_t{8}, size_t{9}, size_t{63}, size_t{600}}) {
    PositionMinTree tree(start);
    std::vector<uint64_t> keys;
    auto scan = [&] {
      uint64_t m = PositionMinTree::kEmpty;
      for (const uint64_t k : keys) m = std::min(m, k);
      return m;
    };
    ASSERT_EQ(tree.min(), PositionMinTree::kEmpty);
    for (int step = 0; step < 20000; ++step) {
      // Mostly within the keys set so far, one step in four a little past them (the tree grows).
      const bool past = step % 4 == 0 && keys.size() < 5000;
      const size_t p = past ? keys.size() + static_cast<size_t>(rng() % 8)
                            : static_cast<size_t>(rng() % std::max<size_t>(keys.size(), 1));
      if (p >= keys.size()) keys.resize(p + 1, PositionMinTree::kEmpty);
      const uint64_t k = rng() % 5 == 0
                             ? PositionMinTree::kEmpty
                             : PositionMinTree::key(static_cast<int32_t>(rng() % 40) - 20, p);
      keys[p] = k;
      tree.set(p, k);
      ASSERT_EQ(tree.at(p), k) << "start " << start << ", step " << step;
      ASSERT_EQ(tree.min(), scan()) << "start " << start << ", step " << step;
    }
    EXPECT_GT(keys.size(), 4096u);  // grown past three levels
  }
}

TEST(PositionMinTree, KeysOrderByValueThenPosition) {
  EXPECT_LT(PositionMinTree::key(-5, 9), PositionMinTree::key(3, 0));
  EXPECT_LT(PositionMinTree::key(3, 0), PositionMinTree::key(3, 1));
  EXPECT_EQ(PositionMinTree::value_of(PositionMinTree::key(-7, 12)), -7);
  EXPECT_EQ(PositionMinTree::position_of(PositionMinTree::key(-7, 12)), 12u);
}

}  // namespace
