// Internal to src/xmatch: the orders and the greedy rule of `find`, shared by the in-memory
// selection (select_pairs, select.cpp) and the streamed one (streamed_crossmatch, stream.cpp), so
// that both keep the same pairs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "celeris/xmatch.hpp"

namespace celeris::xmatch::order {

inline bool by_ij(const Pair& a, const Pair& b) {
  return a.i != b.i ? a.i < b.i : a.j < b.j;
}

// Is `a` a better (closer) candidate than `b`? Ties: smaller i, then smaller j.
inline bool closer(const Pair& a, const Pair& b) {
  if (a.sep_arcsec != b.sep_arcsec) return a.sep_arcsec < b.sep_arcsec;
  return by_ij(a, b);
}

// Grouped by left (right) row, the closest first: the first pair of each group is that row's
// nearest (find best1 / best2).
inline bool by_i_then_closer(const Pair& a, const Pair& b) {
  return a.i != b.i ? a.i < b.i : closer(a, b);
}
inline bool by_j_then_closer(const Pair& a, const Pair& b) {
  return a.j != b.j ? a.j < b.j : closer(a, b);
}

// find best: fed the pairs in `closer` order, keeps a pair unless one of its rows is already in a
// kept pair (in a self-match a row counts on either side).
class GreedyBest {
 public:
  GreedyBest(size_t n_left, size_t n_right, bool self)
      : used_i_(self ? std::max(n_left, n_right) : n_left),
        used_j_(self ? 0 : n_right),
        self_(self) {}
  bool take(const Pair& p) {
    std::vector<bool>& uj = self_ ? used_i_ : used_j_;
    if (used_i_[size_t(p.i)] || uj[size_t(p.j)]) return false;
    used_i_[size_t(p.i)] = uj[size_t(p.j)] = true;
    return true;
  }

 private:
  std::vector<bool> used_i_, used_j_;
  bool self_;
};

}  // namespace celeris::xmatch::order
