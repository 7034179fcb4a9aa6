// Internal to src/maxsub: the paper's parallel mesh algorithms, one cell per pixel, as the program
// every cell runs at each synchronous step (Bae's Algorithm 38, 2-D prefix sums, and Algorithm 39,
// mesh Kadane; papers/maximum-subarray.txt, Sections 2.1-2.3 and the Appendix). The same cell
// functions drive the CUDA mesh (mesh_cuda.cu: one thread per cell, one launch per step) and
// `mesh_emulate` below (a serial loop over steps and cells), which the tests run without a GPU.
//
// Time and space indices (0-based): at step k cell (i, j) is active when j <= k (the paper's
// control C1), and then holds the strip of rows t..i with t = max(0, i + j - k), over columns
// 0..j: its left neighbour held the same strip one step earlier (columns 0..j-1), and so did the
// cell above for rows t..i-1 (P2). Every row pair (t, b) passes the last column at cell (b, n-1),
// step b + n - 1 - t, and the best rectangle flows down to cell (m-1, n-1) by step m + n - 2
// (P5), so m + n - 1 steps (2n - 1 for a square) find the maximum.
//
// Differences from the paper's pseudo-code, for celeris's conventions (maxsub.hpp):
// - A rectangle is never empty: the prefix method subtracts the minimum of the prefixes *before*
//   column j (the paper's min includes s[i][j] itself, allowing the empty sum 0).
// - Every cell carries locations as well as sums, compared in the documented tie order.
// - Cells excluded by the K-disjoint search (blocked) break the strip they lie in.
// Plain C++17 types only: the .cu includes this.
#pragma once

#include <cstdint>
#include <vector>

#include "tie_order.hpp"

namespace celeris::maxsub::detail {

// A rectangle in image coordinates, ordered as maxsub.hpp's `better`; top < 0: none.
template <class T>
struct MeshRect {
  T sum;
  int top, left, bottom, right;
};

template <class T>
CELERIS_HD inline bool mesh_better(const MeshRect<T>& a, const MeshRect<T>& b) {
  if (a.top < 0) return false;
  if (b.top < 0) return true;
  return tie_order_better(a, b);
}

// The state of one cell. Fields of the other algorithm stay unused.
template <class T>
struct MeshCell {
  T col;            // Alg 39: sum of column j over the strip's rows
  T cur;            // Alg 39: best sum of the strip ending at column j (Kadane); < 0 restarts
  T row;            // Alg 38: r[i][j], the row prefix a[i][0..j] (P1)
  T s;              // Alg 38: s[i][j], the strip's prefix over columns 0..j (P2)
  T mn;             // Alg 38: smallest prefix of the strip over columns < mnl (P3), start mnl
  T mx;             // best rectangle of the strip within columns 0..j (P4): columns mxl..mxr
  MeshRect<T> sol;  // best rectangle seen by this cell (P5)
  int cl, mnl, mxl, mxr;
  int colb;  // the strip's column j holds a blocked cell
};

template <class T>
CELERIS_HD inline MeshCell<T> mesh_initial() {
  MeshCell<T> c;
  c.col = c.row = c.s = c.mn = c.mx = T(0);
  c.cur = T(-1);
  c.sol = MeshRect<T>{T(0), -1, 0, 0, 0};
  c.cl = c.mnl = 0;
  c.mxl = -1;  // no rectangle yet
  c.mxr = 0;
  c.colb = 0;
  return c;
}

// One step of cell (i, j) at step k (the caller runs it only when j <= k). `self`, `up` and
// `left` are the states after step k - 1 (up/left nullptr on the border); a is the pixel,
// blocked its exclusion flag. transposed: grid row i is image column i (see grid.hpp).
template <class T>
CELERIS_HD inline MeshCell<T> mesh_step(bool prefix, const MeshCell<T>& self, const MeshCell<T>* up,
                                        const MeshCell<T>* left, T a, bool blocked, int i, int j,
                                        int k, bool transposed) {
  MeshCell<T> c = self;
  const int t = i + j - k > 0 ? i + j - k : 0;
  c.colb = int(blocked) | (up ? up->colb : 0);
  bool have = false;  // a candidate rectangle ends at column j
  T cand = T(0);
  int cand_l = 0;
  if (prefix) {
    // Algorithm 38: r, s, then the best start is the smallest prefix before column j.
    c.row = (left ? left->row : T(0)) + a;
    c.s = (up ? up->s : T(0)) + c.row;
    const T mn_in = left ? left->mn : T(0);
    const int mnl_in = left ? left->mnl : 0;
    if (c.colb) {
      c.mn = c.s;  // a blocked column: later rectangles start after it
      c.mnl = j + 1;
    } else {
      have = true;
      cand = c.s - mn_in;
      cand_l = mnl_in;
      // Strict: among equal prefixes the first (leftmost start) stays.
      c.mn = c.s < mn_in ? c.s : mn_in;
      c.mnl = c.s < mn_in ? j + 1 : mnl_in;
    }
  } else {
    // Algorithm 39: the column sum grows from above, Kadane's running sum comes from the left.
    c.col = (up ? up->col : T(0)) + a;
    if (c.colb) {
      c.cur = T(-1);
    } else {
      const bool extend = left && left->cur >= T(0);  // >= 0: the leftmost start wins ties
      c.cur = (extend ? left->cur : T(0)) + c.col;
      c.cl = extend ? left->cl : j;
      have = true;
      cand = c.cur;
      cand_l = c.cl;
    }
  }
  // P4: within one strip the order is sum, then start, then end (the tie order for fixed rows).
  c.mx = left ? left->mx : T(0);
  c.mxl = left ? left->mxl : -1;
  c.mxr = left ? left->mxr : 0;
  if (have && (c.mxl < 0 || cand > c.mx || (cand == c.mx && cand_l < c.mxl))) {
    c.mx = cand;
    c.mxl = cand_l;
    c.mxr = j;
  }
  // P5: the best of this cell, its neighbours' and the strip's.
  if (up && mesh_better(up->sol, c.sol)) c.sol = up->sol;
  if (left && mesh_better(left->sol, c.sol)) c.sol = left->sol;
  if (c.mxl >= 0) {
    const MeshRect<T> r =
        transposed ? MeshRect<T>{c.mx, c.mxl, t, c.mxr, i} : MeshRect<T>{c.mx, t, c.mxl, i, c.mxr};
    if (mesh_better(r, c.sol)) c.sol = r;
  }
  return c;
}

// The mesh run serially (tests; tiny arrays): m x n grid a (row-major), blocked (m * n bytes or
// empty). Returns cell (m-1, n-1)'s solution after m + n - 1 steps.
template <class T>
MeshRect<T> mesh_emulate(bool prefix, const std::vector<T>& a, const std::vector<uint8_t>& blocked,
                         int m, int n, bool transposed) {
  std::vector<MeshCell<T>> cur(size_t(m) * n, mesh_initial<T>()), next = cur;
  for (int k = 0; k < m + n - 1; ++k) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j <= k && j < n; ++j) {
        const size_t x = size_t(i) * n + j;
        next[x] =
            mesh_step(prefix, cur[x], i > 0 ? &cur[x - n] : nullptr, j > 0 ? &cur[x - 1] : nullptr,
                      a[x], !blocked.empty() && blocked[x], i, j, k, transposed);
      }
    }
    std::swap(cur, next);
  }
  return cur.back().sol;
}

}  // namespace celeris::maxsub::detail
