// A deblended core's pixels in SExtractor's chain order, from its candidate's grid: written once
// for the host (the tests, against deblend_tree.hpp's deblend_node_chain) and the device
// (deblend_core_kernels.cu, where the GPU's trees are built). A core is the node of level k
// holding a seed pixel: the cells of level >= max(k, 1) 8-connected to the seed's. Its chain is
// the one lutz_scan gives the node alone (chain_order.hpp replays that scan over the node's runs
// in raster order), as deblend_node_chain takes it. A candidate's cores are disjoint (no kept
// node holds another), so their fills may mark one grid, each with a stamp of its own.
// Plain C++17 on raw pointers, no heap, CELERIS_HD.
#pragma once

#include <cstdint>

#include "celeris/host_device.hpp"
#include "extract/gpu/chain_order.hpp"

namespace celeris::extract::cores {

// A candidate's box with a border of one cell, row-major, `bw` cells wide.
struct CandidateGrid {
  const int32_t* grid = nullptr;   // per cell: the pixel there above level 0, else -1
  const uint8_t* level = nullptr;  // per pixel: its level (deblend_levels.hpp count_below)
  const int32_t* cell = nullptr;   // per pixel: its cell
  int32_t* mark = nullptr;         // per cell: 0 at first, then the stamp of the fill that took it
  int32_t bw = 0;
};

// Room for a core of at most `capacity` pixels (and as many runs).
struct CoreScratch {
  int32_t* queue = nullptr;    // capacity
  int32_t* raster = nullptr;   // capacity: the core's pixels in raster order
  chain::Run* runs = nullptr;  // capacity
  chain::Scratch chain{};      // for capacity pixels and runs (chain_order.hpp)
  int32_t capacity = 0;
};

// The node's cells found from its seed: how many (-1 when more than the scratch holds), and
// the first and last cells (rows) and columns of their box.
struct CoreFill {
  int32_t n = -1, c0 = 0, c1 = 0, x0 = 0, x1 = 0;
};

// The cells of level >= max(k, 1) 8-connected to the seed's, marked `stamp` (their order in
// s.queue is of no consequence: core_chain_of_fill finds them by their marks). One thread's
// breadth-first fill; the GPU's warps fill together (deblend_core_kernels.cu).
CELERIS_HD inline CoreFill core_fill(const CandidateGrid& g, int k, int32_t seed, int32_t stamp,
                                     const CoreScratch& s) {
  const int32_t bw = g.bw;
  const int32_t offs[8] = {-bw - 1, -bw, -bw + 1, -1, 1, bw - 1, bw, bw + 1};
  const int floor = k > 1 ? k : 1;
  const int32_t seed_cell = g.cell[seed];
  CoreFill f;
  int32_t n = 0;
  if (s.capacity < 1) return f;
  s.queue[n++] = seed_cell;
  g.mark[seed_cell] = stamp;
  int32_t c0 = seed_cell, c1 = seed_cell;  // the first and last cells (rows)
  int32_t x0 = seed_cell % bw, x1 = x0;    // the columns
  for (int32_t h = 0; h < n; ++h) {
    const int32_t c = s.queue[h];
    const int32_t x = c % bw;
    c0 = c < c0 ? c : c0;
    c1 = c > c1 ? c : c1;
    x0 = x < x0 ? x : x0;
    x1 = x > x1 ? x : x1;
    for (int d = 0; d < 8; ++d) {
      const int32_t q = c + offs[d];
      const int32_t p = g.grid[q];
      if (p < 0 || g.level[p] < floor || g.mark[q] == stamp) continue;
      if (n >= s.capacity) return f;
      g.mark[q] = stamp;
      s.queue[n++] = q;
    }
  }
  f.n = n;
  f.c0 = c0, f.c1 = c1, f.x0 = x0, f.x1 = x1;
  return f;
}

// The filled node's cells in raster order: their pixels into s.raster and their runs into
// s.runs. Returns the runs' count, -1 when the cells are not the fill's n (a broken invariant).
// One thread's; the GPU's warps take a cell a lane (deblend_core_kernels.cu warp_raster).
CELERIS_HD inline int32_t core_raster(const CandidateGrid& g, int32_t stamp, const CoreFill& f,
                                      const CoreScratch& s) {
  const int32_t bw = g.bw;
  int32_t count = 0, nruns = 0;
  for (int32_t y = f.c0 / bw; y <= f.c1 / bw; ++y)
    for (int32_t x = f.x0; x <= f.x1; ++x) {
      const int32_t c = y * bw + x;
      if (g.mark[c] != stamp) continue;
      if (nruns > 0 && s.runs[nruns - 1].y == y && s.runs[nruns - 1].x1 == x)
        ++s.runs[nruns - 1].x1;
      else
        s.runs[nruns++] = chain::Run{y, x, x + 1, count};
      s.raster[count++] = g.grid[c];
    }
  return count == f.n ? nruns : -1;
}

// The node's pixels in chain order into `out` (room for n), from its n pixels in raster order
// and their `nruns` runs (core_raster's): how many, -1 when the chain's invariants break.
CELERIS_HD inline int32_t core_chain_of_runs(int32_t n, int32_t nruns, const CoreScratch& s,
                                             int32_t* out) {
  if (n < 0 || nruns < 0) return -1;
  chain::Link link;
  const chain::Run* runs = s.runs;
  if (!chain::chain_pieces([runs](int64_t r) { return runs[r]; }, nruns, 0, s.chain, link))
    return -1;
  int32_t m = 0;
  for (int32_t p = link.first; p >= 0; p = s.chain.piece_next[p])
    for (int32_t o = p; o < s.chain.piece_end[p]; ++o) {
      if (m >= n) return -1;
      out[m++] = s.raster[o];
    }
  return m == n ? m : -1;
}

// The filled node's pixels in chain order into `out` (room for capacity): how many, -1 when
// the chain's invariants break.
CELERIS_HD inline int32_t core_chain_of_fill(const CandidateGrid& g, int32_t stamp,
                                             const CoreFill& f, const CoreScratch& s,
                                             int32_t* out) {
  if (f.n < 0) return -1;
  return core_chain_of_runs(f.n, core_raster(g, stamp, f, s), s, out);
}

// The pixels (indexes in the candidate's list) of the node of level k that holds pixel `seed`,
// in chain order, into `out` (room for capacity). `stamp` > 0 marks the node's cells, one per
// core of the candidate. Returns how many, -1 when the node has more than capacity pixels or
// the chain's invariants break.
CELERIS_HD inline int32_t core_chain(const CandidateGrid& g, int k, int32_t seed, int32_t stamp,
                                     const CoreScratch& s, int32_t* out) {
  return core_chain_of_fill(g, stamp, core_fill(g, k, seed, stamp, s), s, out);
}

}  // namespace celeris::extract::cores
