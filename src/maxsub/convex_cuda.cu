// The maximum convex (W-N) sum on a GPU: convex.cpp's left-to-right dynamic programme, with the
// O(h^2) work of each column spread over the GPU. Per column x, over the intervals t <= b:
//   grow(t,b) = s + G'(t,b) if G' > 0 else s,  shrink(t,b) = s + H'(t,b)   (' = column x-1)
//   G = max of grow over sub-intervals,  H = max of max(grow, shrink) over super-intervals.
// The CPU builds G and H as recursive 2-D running maxima; here each is a running maximum along the
// row then along the column (G: R = max along b, then down t; H: O = max of max(grow, shrink) from
// the right, then along t), which gives the same values exactly (a maximum does not round). The
// h x h triangle is cut into tiles of 32 rows x 128 columns; four launches per column:
//   aggregate_kernel  per tile: the maxima of grow and of max(grow, shrink) per row, per column and
//                     over the tile (reads G', H');
//   carry_kernel      from those, what each tile needs from the rest of the column: per row the
//                     maximum left and right of the tile, per column G below and H above it;
//   tile_kernel       per tile: grow and shrink again (same additions), R and O by warp scans,
//                     the final G and H (written for the next column), the trace-back byte of
//                     every (x, t, b) with the CPU's rules and tie order, and the tile's best;
//   column_best       the column's best in the CPU's scan order.
// Per column that is two reads of G' and H' and one write of G and H (plus the trace bytes and
// small per-tile tables); the earlier row-scan version moved about 11 passes (2.11 s at 4000^2),
// the first one 21 (3.77 s). The trace-back then follows the bytes as convex.cpp does: the region
// is the CPU's, bit for bit (same additions in the same order: s from the same column prefix).
//
// Memory: four h x h double tables (G, H and their previous column; only t <= b is touched), four
// segments x h tables, per-row and per-tile tables, and the trace bytes for the triangle t <= b
// of every column, h(h+1)/2 * w bytes (32 GB at 4000^2).
#include <cuda_runtime.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "maxsub/convex_cuda.hpp"
#include "maxsub/convex_trace.hpp"
#include "maxsub/cuda_util.cuh"

namespace celeris::maxsub::detail {

namespace {

__device__ __host__ inline double none() {
  return -INFINITY;
}

// Offset of (t, b), t <= b, in a column's triangle of trace bytes (rows t of length h - t).
__device__ __host__ inline size_t tri(int t, int b, int h) {
  return size_t(t) * h - size_t(t) * (t - 1) / 2 + size_t(b - t);
}

// tri() as the index of convex_trace_back.
struct TriIndex {
  int h;
  __device__ __host__ size_t operator()(int t, int b) const { return tri(t, b, h); }
};

struct Best {
  double value;
  long long order;  // position in convex.cpp's scan: t descending, b ascending, grow then shrink
  int col;          // -1: none
};

__device__ inline bool best_before(const Best& a, const Best& b) {
  if (a.col < 0) return false;
  if (b.col < 0) return true;
  if (a.value != b.value) return a.value > b.value;
  return a.order < b.order;
}

// One thread per image column: cst[x * (h + 1) + y] = column x summed over rows < y, added top to
// bottom as convex.cpp does; cbt the same count of blocked cells.
__global__ void column_prefix_kernel(const double* __restrict__ px, const uint8_t* __restrict__ blk,
                                     int w, int h, double* __restrict__ cst,
                                     int* __restrict__ cbt) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  double* cs = cst + size_t(x) * (h + 1);
  int* cb = cbt + size_t(x) * (h + 1);
  double s = 0;
  int c = 0;
  cs[0] = 0;
  cb[0] = 0;
  for (int y = 0; y < h; ++y) {
    s = s + px[size_t(y) * w + x];
    cs[y + 1] = s;
    c += blk ? blk[size_t(y) * w + x] : 0;
    cb[y + 1] = c;
  }
}

__global__ void fill_kernel(double* a, size_t n, double v) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v;
}

constexpr unsigned kFullMask = 0xffffffffu;

__device__ inline double dmax(double a, double b) {
  return b > a ? b : a;
}

// Tiles of kRows rows t by kCols columns b; a block of kGroups x kCols threads, each thread one
// column b and kGroupRows consecutive rows (threads 0..kCols-1 the tile's top rows, and so on).
// Eight rows per thread keep a thread's tables (grow, shrink, G, H) in registers.
constexpr int kRows = 32;
constexpr int kGroupRows = 8;
constexpr int kGroups = kRows / kGroupRows;
constexpr int kCols = 128;
constexpr int kThreads = kGroups * kCols;
constexpr int kWarps = kThreads / 32;
constexpr int kWarpsPerGroup = kCols / 32;
// Blocks per SM the tile kernels are compiled for (__launch_bounds__): more caps the registers.
constexpr int kMinBlocks = 1;

// grow(t, b) of the current column, as convex.cpp: -inf on a blocked interval, else s plus G' when
// G' > 0. shrink likewise (s + H', -inf when H' is).
__device__ inline void grow_shrink(const double* __restrict__ cs_col,
                                   const int* __restrict__ cb_col, double cs_t, int cb_t,
                                   const double* __restrict__ gp, const double* __restrict__ hp,
                                   size_t i, int b, double& g, double& sh, bool& extends) {
  g = none();
  sh = none();
  extends = false;
  if (cb_col[b + 1] - cb_t != 0) return;
  const double s = cs_col[b + 1] - cs_t;
  const double gpv = gp[i], hpv = hp[i];
  extends = gpv > 0;
  g = extends ? s + gpv : s;
  sh = hpv == none() ? none() : s + hpv;
}

// What a tile needs from the rest of the column (a maximum does not round, so any grouping of
// the maxima gives the CPU's values). With grow(t, b) and v(t, b) = max(grow, shrink), -inf
// outside t <= b:
//   R(t, b) = max grow(t, <= b)          O(t, b) = max v(t, >= b)          (along the row)
//   G(t, b) = max R(>= t, b)             H(t, b) = max O(<= t, b)          (down the column)
// so a tile (segment seg of rows lo.., block blk of columns b0..) needs, per row, the row's
// maximum left of the block (R(t, b0 - 1)) and right of it (O(t, b0 + kCols)); per column, G
// just below the segment and H just above it:
//   G(lo + kRows, b) = max(P(seg, blk), max over b0 <= b' <= b of CG(seg, b'))
//   H(lo - 1, b)     = max(Q(seg, blk), max over b <= b' < b0 + kCols of CV(seg, b'))
// with M_g(s, b) / M_v(s, b) the maxima of grow / v over segment s in column b, CG(seg, b) = max
// of M_g over the segments below, CV of M_v over those above, and P / Q the same over the blocks
// left / right as well. aggregate_kernel computes M and the per-row block maxima, carry_kernel the
// rest, tile_kernel the final G, H, trace bytes and best: two reads of G', H' and one write of G,
// H per column (the row-scan version moved about twice that).

// Per-(row, block) maxima of grow and v (brg, brv: h x nblk), per-(segment, column) maxima (mg,
// mv: nseg x h) and per-tile maxima (bmg, bmv: nseg x nblk). Tiles entirely below the diagonal
// write only their tile maxima (-inf); the other entries they would hold are never read.
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    aggregate_kernel(const double* __restrict__ cs_col, const int* __restrict__ cb_col,
                     const double* __restrict__ gp, const double* __restrict__ hp, int h, int nblk,
                     double* __restrict__ mg, double* __restrict__ mv, double* __restrict__ brg,
                     double* __restrict__ brv, double* __restrict__ bmg, double* __restrict__ bmv) {
  __shared__ double col_g[kGroups][kCols], col_v[kGroups][kCols];
  __shared__ double row_g[kWarps][kGroupRows], row_v[kWarps][kGroupRows];
  const int tx = threadIdx.x, col = tx % kCols, grp = tx / kCols;
  const int warp = tx >> 5, lane = tx & 31;
  const int blk = blockIdx.x, seg = blockIdx.y, b0 = blk * kCols, b = b0 + col;
  const int lo = seg * kRows, t0 = lo + grp * kGroupRows;
  const size_t tile = size_t(seg) * nblk + blk;
  if (b0 + kCols - 1 < lo) {
    if (tx == 0) bmg[tile] = bmv[tile] = none();
    return;
  }
  double cg = none(), cv = none();
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    const int t = t0 + i;
    double g = none(), sh = none();
    bool ext;
    if (b < h && t <= b)
      grow_shrink(cs_col, cb_col, cs_col[t], cb_col[t], gp, hp, size_t(t) * h + b, b, g, sh, ext);
    const double v = dmax(g, sh);
    cg = dmax(cg, g);
    cv = dmax(cv, v);
    double rg = g, rv = v;  // the warp's maxima of row t
    for (int d = 16; d > 0; d >>= 1) {
      rg = dmax(rg, __shfl_down_sync(kFullMask, rg, d));
      rv = dmax(rv, __shfl_down_sync(kFullMask, rv, d));
    }
    if (lane == 0) row_g[warp][i] = rg, row_v[warp][i] = rv;
  }
  col_g[grp][col] = cg;
  col_v[grp][col] = cv;
  __syncthreads();
  if (grp == 0 && b < h) {
    for (int k = 1; k < kGroups; ++k) cg = dmax(cg, col_g[k][col]), cv = dmax(cv, col_v[k][col]);
    mg[size_t(seg) * h + b] = cg;
    mv[size_t(seg) * h + b] = cv;
  }
  if (tx < kRows) {
    const int gr = tx / kGroupRows, i = tx % kGroupRows, t = lo + tx;
    double g = none(), v = none();
    for (int w = 0; w < kWarpsPerGroup; ++w) {
      g = dmax(g, row_g[gr * kWarpsPerGroup + w][i]);
      v = dmax(v, row_v[gr * kWarpsPerGroup + w][i]);
    }
    if (t < h) brg[size_t(t) * nblk + blk] = g, brv[size_t(t) * nblk + blk] = v;
  }
  if (tx == 0) {
    double g = none(), v = none();
    for (int w = 0; w < kWarps; ++w)
      for (int i = 0; i < kGroupRows; ++i) g = dmax(g, row_g[w][i]), v = dmax(v, row_v[w][i]);
    bmg[tile] = g;
    bmv[tile] = v;
  }
}

// Three independent jobs over 256-thread blocks: [0, nb_cols) one thread per column b: CG and CV
// (the segments holding a t <= b only); [nb_cols, nb_cols + nb_rows) one thread per row t: the
// exclusive prefix of brg and suffix of brv over the blocks (in place: R(t, b0 - 1) and
// O(t, b0 + kCols)); the last block one thread per segment: the exclusive prefix of bmg and suffix
// of bmv over the blocks, from which tile_kernel takes P and Q (a maximum over the segments below
// / above). Loops are unrolled so that their independent loads are in flight together.
__global__ void carry_kernel(const double* __restrict__ mg, const double* __restrict__ mv,
                             const double* __restrict__ bmg, const double* __restrict__ bmv, int h,
                             int nseg, int nblk, int nb_cols, int nb_rows, double* __restrict__ cgc,
                             double* __restrict__ cvc, double* __restrict__ brg,
                             double* __restrict__ brv, double* __restrict__ pq_p,
                             double* __restrict__ pq_q) {
  const int job_block = blockIdx.x;
  if (job_block < nb_cols) {
    const int b = job_block * blockDim.x + threadIdx.x;
    if (b >= h) return;
    const int last = b / kRows;
    double run = none();
#pragma unroll 8
    for (int s = last; s >= 0; --s) {
      const size_t i = size_t(s) * h + b;
      cgc[i] = run;
      run = dmax(run, mg[i]);
    }
    run = none();
#pragma unroll 8
    for (int s = 0; s <= last; ++s) {
      const size_t i = size_t(s) * h + b;
      cvc[i] = run;
      run = dmax(run, mv[i]);
    }
  } else if (job_block < nb_cols + nb_rows) {
    const int t = (job_block - nb_cols) * blockDim.x + threadIdx.x;
    if (t >= h) return;
    const int first = (t / kRows) * kRows / kCols;  // the first block the row's tiles cover
    double* rg = brg + size_t(t) * nblk;
    double* rv = brv + size_t(t) * nblk;
    double run = none();
#pragma unroll 8
    for (int k = first; k < nblk; ++k) {
      const double v = rg[k];
      rg[k] = run;
      run = dmax(run, v);
    }
    run = none();
#pragma unroll 8
    for (int k = nblk - 1; k >= first; --k) {
      const double v = rv[k];
      rv[k] = run;
      run = dmax(run, v);
    }
  } else {
    for (int seg = threadIdx.x; seg < nseg; seg += blockDim.x) {
      const double* g = bmg + size_t(seg) * nblk;
      const double* v = bmv + size_t(seg) * nblk;
      double* p = pq_p + size_t(seg) * nblk;
      double* q = pq_q + size_t(seg) * nblk;
      double run = none();
#pragma unroll 8
      for (int k = 0; k < nblk; ++k) {
        p[k] = run;
        run = dmax(run, g[k]);
      }
      run = none();
#pragma unroll 8
      for (int k = nblk - 1; k >= 0; --k) {
        q[k] = run;
        run = dmax(run, v[k]);
      }
    }
  }
}

// Inclusive max-scan of one value per thread over the kCols columns of the thread's group, left
// to right (forward) or right to left, through warp shuffles and `part` (kWarps doubles of shared
// memory). Called by all threads of the block; contains two barriers.
__device__ inline double group_scan(double x, bool forward, double* part) {
  const int tx = threadIdx.x, warp = tx >> 5, lane = tx & 31;
  for (int d = 1; d < 32; d <<= 1) {
    const double o = forward ? __shfl_up_sync(kFullMask, x, d) : __shfl_down_sync(kFullMask, x, d);
    if (forward ? lane >= d : lane + d < 32) x = dmax(x, o);
  }
  if (lane == (forward ? 31 : 0)) part[warp] = x;
  __syncthreads();
  const int first = (warp / kWarpsPerGroup) * kWarpsPerGroup;
  if (forward) {
    for (int w = first; w < warp; ++w) x = dmax(x, part[w]);
  } else {
    for (int w = warp + 1; w < first + kWarpsPerGroup; ++w) x = dmax(x, part[w]);
  }
  __syncthreads();
  return x;
}

// Launch: grid (nblk, nseg), kThreads threads. The final G and H of the tile (written for the next
// column), the trace-back byte of every (x, t, b) with convex.cpp's rules and tie order, and the
// tile's best candidate in convex.cpp's scan order.
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    tile_kernel(const double* __restrict__ cs_col, const int* __restrict__ cb_col,
                const double* __restrict__ gp, const double* __restrict__ hp,
                const double* __restrict__ cgc, const double* __restrict__ cvc,
                const double* __restrict__ rcr, const double* __restrict__ rco,
                const double* __restrict__ pq_p, const double* __restrict__ pq_q, int h, int nseg,
                int nblk, int col_x, double* __restrict__ g, double* __restrict__ hv,
                uint8_t* __restrict__ trace_col, Best* __restrict__ block_best) {
  __shared__ double part[kGroupRows][kWarps], part2[kGroupRows][kWarps], part3[2][kWarps];
  __shared__ double edge_g[kGroups][kWarpsPerGroup + 1][kGroupRows];
  __shared__ double edge_h[kGroups][kWarpsPerGroup + 1][kGroupRows];
  __shared__ double g_tot[kGroups][kCols], h_tot[kGroups][kCols];
  __shared__ Best red[kThreads];
  __shared__ double pq[2];
  const int tx = threadIdx.x, col = tx % kCols, grp = tx / kCols;
  const int warp = tx >> 5, lane = tx & 31, wig = warp % kWarpsPerGroup;
  const int blk = blockIdx.x, seg = blockIdx.y, b0 = blk * kCols, b = b0 + col;
  const int lo = seg * kRows, t0 = lo + grp * kGroupRows;
  const size_t tile = size_t(seg) * nblk + blk;
  if (b0 + kCols - 1 < lo) {  // the whole tile below the diagonal
    if (tx == 0) block_best[tile] = Best{0, 0, -1};
    return;
  }
  // grow and shrink of the thread's rows; R and O along the rows.
  double gr[kGroupRows], sh[kGroupRows], gv[kGroupRows], hvv[kGroupRows];
  unsigned ext = 0;
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    const int t = t0 + i;
    bool e = false;
    gr[i] = sh[i] = none();
    if (b < h && t <= b)
      grow_shrink(cs_col, cb_col, cs_col[t], cb_col[t], gp, hp, size_t(t) * h + b, b, gr[i], sh[i],
                  e);
    ext |= unsigned(e) << i;
  }
  // P = max over the segments below of their prefix before this block, Q likewise above (warps
  // 0 and 1; read after the barrier below).
  if (warp < 2) {
    double m = none();
    if (warp == 0)
      for (int s = seg + 1 + lane; s < nseg; s += 32) m = dmax(m, pq_p[size_t(s) * nblk + blk]);
    else
      for (int s = lane; s < seg; s += 32) m = dmax(m, pq_q[size_t(s) * nblk + blk]);
    for (int d = 16; d > 0; d >>= 1) m = dmax(m, __shfl_down_sync(kFullMask, m, d));
    if (lane == 0) pq[warp] = m;
  }
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    double r = gr[i], o = dmax(gr[i], sh[i]);
    for (int d = 1; d < 32; d <<= 1) {
      const double ru = __shfl_up_sync(kFullMask, r, d), od = __shfl_down_sync(kFullMask, o, d);
      if (lane >= d) r = dmax(r, ru);
      if (lane + d < 32) o = dmax(o, od);
    }
    if (lane == 31) part[i][warp] = r;
    if (lane == 0) part2[i][warp] = o;
    gv[i] = r;
    hvv[i] = o;
  }
  __syncthreads();
  const int first_warp = grp * kWarpsPerGroup;
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    const int t = t0 + i;
    double cr = t < h ? rcr[size_t(t) * nblk + blk] : none();
    double co = t < h ? rco[size_t(t) * nblk + blk] : none();
    for (int w = first_warp; w < warp; ++w) cr = dmax(cr, part[i][w]);
    for (int w = warp + 1; w < first_warp + kWarpsPerGroup; ++w) co = dmax(co, part2[i][w]);
    gv[i] = dmax(gv[i], cr);    // R(t, b)
    hvv[i] = dmax(hvv[i], co);  // O(t, b)
  }
  // G just below the segment and H just above it, for this column.
  const bool in_col = b < h;
  const double cg_b = dmax(
      pq[0], group_scan(in_col && b >= lo ? cgc[size_t(seg) * h + b] : none(), true, part3[0]));
  const double ch_b = dmax(
      pq[1], group_scan(in_col && b >= lo ? cvc[size_t(seg) * h + b] : none(), false, part3[1]));
  // G up the column and H down it: within the group, then the groups below / above.
#pragma unroll
  for (int i = kGroupRows - 2; i >= 0; --i) gv[i] = dmax(gv[i], gv[i + 1]);
#pragma unroll
  for (int i = 1; i < kGroupRows; ++i) hvv[i] = dmax(hvv[i], hvv[i - 1]);
  g_tot[grp][col] = gv[0];
  h_tot[grp][col] = hvv[kGroupRows - 1];
  __syncthreads();
  double below = cg_b, above = ch_b;  // G(t0 + kGroupRows, b) and H(t0 - 1, b)
  for (int k = grp + 1; k < kGroups; ++k) below = dmax(below, g_tot[k][col]);
  for (int k = 0; k < grp; ++k) above = dmax(above, h_tot[k][col]);
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    gv[i] = dmax(gv[i], below);
    hvv[i] = dmax(hvv[i], above);
  }
  // Neighbours across warps and the tile's edges: G(t, b0 - 1) = max(P, R(t.., b0 - 1)) and
  // H(t, b0 + kCols) = max(Q, O(..t, b0 + kCols)), R and O there being the row carries.
  if (lane == 31)
    for (int i = 0; i < kGroupRows; ++i) edge_g[grp][wig + 1][i] = gv[i];
  if (lane == 0)
    for (int i = 0; i < kGroupRows; ++i) edge_h[grp][wig][i] = hvv[i];
  if (col == 0) {  // G left of the block, one thread per group, from the bottom
    double run = pq[0];
#pragma unroll
    for (int r = kRows - 1; r >= 0; --r) {
      const int t = lo + r;
      if (t < h) run = dmax(run, rcr[size_t(t) * nblk + blk]);
      if (r / kGroupRows == grp) edge_g[grp][0][r % kGroupRows] = run;
    }
  }
  if (col == kCols - 1) {  // H right of the block, from the top
    double run = pq[1];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int t = lo + r;
      if (t < h) run = dmax(run, rco[size_t(t) * nblk + blk]);
      if (r / kGroupRows == grp) edge_h[grp][kWarpsPerGroup][r % kGroupRows] = run;
    }
  }
  __syncthreads();

  Best best{0, 0, -1};
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    const int t = t0 + i;
    double left = __shfl_up_sync(kFullMask, gv[i], 1);
    double right = __shfl_down_sync(kFullMask, hvv[i], 1);
    if (lane == 0) left = edge_g[grp][wig][i];
    if (lane == 31) right = edge_h[grp][wig + 1][i];
    if (!in_col || t > b) continue;
    const size_t idx = size_t(t) * h + b;
    g[idx] = gv[i];
    hv[idx] = hvv[i];
    uint8_t bits = (ext >> i) & 1 ? kGrowExtends : 0;
    double gval = gr[i];
    uint8_t gb = kGSelf;
    if (t + 1 <= b) {
      const double down = i + 1 < kGroupRows ? gv[i + 1] : below;
      if (down > gval) gval = down, gb = kGDown;
    }
    if (b - 1 >= t && left > gval) gval = left, gb = kGUp;
    double v = gr[i];
    uint8_t hb = kHGrow;
    if (sh[i] > v) v = sh[i], hb = kHShrink;
    if (t > 0) {
      const double up = i > 0 ? hvv[i - 1] : above;
      if (up > v) v = up, hb = kHTopOut;
    }
    if (b + 1 < h && right > v) v = right, hb = kHBottomOut;
    trace_col[tri(t, b, h)] = bits | gb | hb;
    const long long base = (static_cast<long long>(h - 1 - t) * h + b) * 2;
    if (gr[i] != none()) {
      const Best c{gr[i], base, col_x};
      if (best_before(c, best)) best = c;
    }
    if (sh[i] != none()) {
      const Best c{sh[i], base + 1, col_x};
      if (best_before(c, best)) best = c;
    }
  }
  red[tx] = best;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (tx < s && best_before(red[tx + s], red[tx])) red[tx] = red[tx + s];
    __syncthreads();
  }
  if (tx == 0) block_best[tile] = red[0];
}

// One block: the column's best over the blocks; replaces the running best only when strictly
// larger (an earlier column wins a tie, as in convex.cpp's scan).
__global__ void column_best_kernel(const Best* __restrict__ block_best, size_t nblocks,
                                   Best* __restrict__ best) {
  __shared__ Best red[256];
  Best mine{0, 0, -1};
  for (size_t i = threadIdx.x; i < nblocks; i += blockDim.x)
    if (best_before(block_best[i], mine)) mine = block_best[i];
  red[threadIdx.x] = mine;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s && best_before(red[threadIdx.x + s], red[threadIdx.x]))
      red[threadIdx.x] = red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0 && red[0].col >= 0 && (best->col < 0 || red[0].value > best->value))
    *best = red[0];
}

// One thread: convex_trace_back over the device's trace bytes. Writes the columns right to left
// into tops/bottoms and their count and the left column into out[0], out[1].
__global__ void trace_back_kernel(const uint8_t* __restrict__ trace, size_t tri_size, int h,
                                  const Best* __restrict__ best, int* __restrict__ tops,
                                  int* __restrict__ bottoms, int* __restrict__ out) {
  const long long rest = best->order >> 1;
  const int t = h - 1 - int(rest / h), b = int(rest % h);
  out[0] = convex_trace_back(trace, tri_size, TriIndex{h}, best->col, t, b, (best->order & 1) == 0,
                             tops, bottoms, &out[1]);
}

}  // namespace

CudaConvex cuda_max_convex(const double* pixels, const uint8_t* blocked, int width, int height) {
  cuda_require_device("cuda (convex)");
  const int w = width, h = height;
  const size_t hh = size_t(h) * h, tri_size = size_t(h) * (h + 1) / 2;
  const int nseg = (h + kRows - 1) / kRows, nblk = (h + kCols - 1) / kCols;
  const size_t aux = size_t(nseg) * h, tiles = size_t(nseg) * nblk, rowc = size_t(h) * nblk;
  const size_t table_bytes = (4 * hh + 4 * aux + 2 * rowc + 4 * tiles) * sizeof(double) +
                             tiles * sizeof(Best) + (size_t(h) + 1) * w * 12;
  size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "memory info");
  const double need = double(tri_size) * w + double(table_bytes) + (256 << 20);
  if (need > double(free_bytes))
    throw Error("maxsub: convex search of a " + std::to_string(w) + " x " + std::to_string(h) +
                " image needs " + std::to_string(need / (1 << 30)) + " GiB on the device (" +
                std::to_string(double(free_bytes) / (1 << 30)) + " free); crop the image");
  DeviceBuffer<double> d_px(size_t(w) * h);
  DeviceBuffer<uint8_t> d_blk(blocked ? size_t(w) * h : 0);
  cuda_check(cudaMemcpy(d_px.p, pixels, size_t(w) * h * sizeof(double), cudaMemcpyHostToDevice),
             "copy");
  if (blocked)
    cuda_check(cudaMemcpy(d_blk.p, blocked, size_t(w) * h, cudaMemcpyHostToDevice), "copy");
  DeviceBuffer<double> d_cs((size_t(h) + 1) * w);
  DeviceBuffer<int> d_cb((size_t(h) + 1) * w);
  column_prefix_kernel<<<(w + 127) / 128, 128>>>(d_px.p, d_blk.p, w, h, d_cs.p, d_cb.p);
  cuda_check(cudaGetLastError(), "launch");

  DeviceBuffer<double> d_g0(hh), d_g1(hh), d_h0(hh), d_h1(hh);
  const unsigned fill_blocks = unsigned((hh + 255) / 256);
  for (double* p : {d_g0.p, d_g1.p, d_h0.p, d_h1.p})
    fill_kernel<<<fill_blocks, 256>>>(p, hh, none());
  DeviceBuffer<uint8_t> d_trace(tri_size * w);
  DeviceBuffer<double> d_mg(aux), d_mv(aux), d_cg(aux), d_cv(aux), d_brg(rowc), d_brv(rowc),
      d_bmg(tiles), d_bmv(tiles), d_p(tiles), d_q(tiles);
  DeviceBuffer<Best> d_block_best(tiles), d_best(1);
  const Best start{0, 0, -1};
  cuda_check(cudaMemcpy(d_best.p, &start, sizeof start, cudaMemcpyHostToDevice), "copy");
  cuda_check(cudaGetLastError(), "launch");

  double *gp = d_g0.p, *g = d_g1.p, *hp = d_h0.p, *hv = d_h1.p;
  const dim3 tile_grid(nblk, nseg);
  const int nb_cols = (h + 255) / 256, nb_rows = (h + 255) / 256;
  for (int x = 0; x < w; ++x) {
    const double* cs_col = d_cs.p + size_t(x) * (h + 1);
    const int* cb_col = d_cb.p + size_t(x) * (h + 1);
    aggregate_kernel<<<tile_grid, kThreads>>>(cs_col, cb_col, gp, hp, h, nblk, d_mg.p, d_mv.p,
                                              d_brg.p, d_brv.p, d_bmg.p, d_bmv.p);
    carry_kernel<<<nb_cols + nb_rows + 1, 256>>>(d_mg.p, d_mv.p, d_bmg.p, d_bmv.p, h, nseg, nblk,
                                                 nb_cols, nb_rows, d_cg.p, d_cv.p, d_brg.p, d_brv.p,
                                                 d_p.p, d_q.p);
    tile_kernel<<<tile_grid, kThreads>>>(cs_col, cb_col, gp, hp, d_cg.p, d_cv.p, d_brg.p, d_brv.p,
                                         d_p.p, d_q.p, h, nseg, nblk, x, g, hv,
                                         d_trace.p + tri_size * x, d_block_best.p);
    column_best_kernel<<<1, 256>>>(d_block_best.p, tiles, d_best.p);
    std::swap(g, gp);
    std::swap(hv, hp);
  }
  cuda_check(cudaGetLastError(), "launch");
  Best best;
  cuda_check(cudaMemcpy(&best, d_best.p, sizeof best, cudaMemcpyDeviceToHost), "copy back");
  CudaConvex out;
  if (best.col < 0) return out;  // every cell blocked

  DeviceBuffer<int> d_tops(w), d_bottoms(w), d_out(2);
  trace_back_kernel<<<1, 1>>>(d_trace.p, tri_size, h, d_best.p, d_tops.p, d_bottoms.p, d_out.p);
  cuda_check(cudaGetLastError(), "launch");
  int n_left[2];
  cuda_check(cudaMemcpy(n_left, d_out.p, sizeof n_left, cudaMemcpyDeviceToHost), "copy back");
  std::vector<int> tops(n_left[0]), bottoms(n_left[0]);
  cuda_check(cudaMemcpy(tops.data(), d_tops.p, n_left[0] * sizeof(int), cudaMemcpyDeviceToHost),
             "copy back");
  cuda_check(
      cudaMemcpy(bottoms.data(), d_bottoms.p, n_left[0] * sizeof(int), cudaMemcpyDeviceToHost),
      "copy back");
  out.found = true;
  out.left = n_left[1];
  out.top.assign(tops.rbegin(), tops.rend());
  out.bottom.assign(bottoms.rbegin(), bottoms.rend());
  return out;
}

}  // namespace celeris::maxsub::detail
