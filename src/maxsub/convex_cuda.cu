// The maximum convex (W-N) sum on a GPU: convex.cpp's left-to-right dynamic programme, with the
// O(h^2) work of each column spread over the GPU. Per column x, over the intervals t <= b:
//   grow(t,b) = s + G'(t,b) if G' > 0 else s,  shrink(t,b) = s + H'(t,b)   (' = column x-1)
//   G = max of grow over sub-intervals,  H = max of max(grow, shrink) over super-intervals.
// The CPU builds G and H as recursive 2-D running maxima; here each is a running maximum along the
// row then along the column (G: R = max along b, then down t; H: O = max of max(grow, shrink) from
// the right, then along t), which gives the same values exactly (a maximum does not round). The
// h x h triangle is cut into tiles of kRows x kCols (16 x 64). Per tile, the maxima of grow and of
// max(grow, shrink) per row, per column and over the tile are the column's "aggregates"; the
// first column's come from aggregate_kernel, each later column's from the tile kernel of the
// column before (which holds G' and H' in registers). Then two launches per column:
//   carry_kernel      from the aggregates, what each tile needs from the rest of the column: per
//                     row the maximum left and right of the tile, per column G below and H above
//                     it (running maxima, each split over kScanWarps warps);
//   tile_kernel       per tile: grow and shrink (the same additions), R and O by row scans, the
//                     final G and H (written for the next column), the trace-back byte of every
//                     (x, t, b) with the CPU's rules and tie order, the tile's best, and the next
//                     column's aggregates.
// After the last column, best_kernel picks the overall best of all tile bests in the CPU's order.
// Per column that is one read of G' and H' and one write of G and H, plus the trace bytes and
// small tables. Measured (H100, 4000^2, bench/maxsub/convex_variants.sh): the first version (21
// passes) 3.77 s, row scans (11 passes) 2.11 s, 32 x 128 tiles with a separate aggregate pass
// 1.96 s; 16 x 64 tiles of 256 threads at 4 blocks per SM (64 registers, 50% occupancy, against
// 128 registers and 25%), carry scans split over warps, the aggregate pass folded into the tile
// kernel, fewer barriers, the tile bests reduced once at the end and the next column's row maxima
// by recursive halving: 1.10 s; branch-free carry loops, the tile edges by two warps' scans and
// the row scans through a shared-memory transpose (row_scans): 0.94-0.96 s. The tile kernel is
// issue-bound (60% of issue slots, ncu), not memory-bound (38% of DRAM bandwidth).
// The trace-back then follows the bytes as convex.cpp does: the region is the CPU's, bit for bit
// (same additions in the same order: s from the same column prefix).
//
// Memory: four h x h double tables (G, H and their previous column; only t <= b is touched), four
// segments x h tables, per-row and per-tile tables, the tile bests of every column (24 bytes per
// tile and column: 1.5 GB at 4000^2), and the trace bytes for the triangle t <= b of every
// column, h(h+1)/2 * w bytes (32 GB at 4000^2).
#include <cuda_runtime.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "maxsub/convex_cuda.hpp"
#include "maxsub/convex_trace.hpp"
#include "maxsub/to_grid.cuh"

namespace celeris::maxsub::detail {

using cuda::DeviceBuffer;

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
// A few rows per thread keep a thread's tables (grow, shrink, G, H) in registers.
constexpr int kRows = 16;
constexpr int kGroupRows = 4;
constexpr int kGroups = kRows / kGroupRows;
constexpr int kCols = 64;
constexpr int kThreads = kGroups * kCols;
constexpr int kWarps = kThreads / 32;
constexpr int kWarpsPerGroup = kCols / 32;
static_assert(kRows <= 32 && (kRows & (kRows - 1)) == 0, "edge scans: one warp segment per tile");
// aggregate_tile's row maxima: kRowValues per lane (grow and v of each row), reduced across the
// warp with each value ending in kLanesPerValue lanes before their own reduction.
constexpr int kRowValues = 2 * kGroupRows;
constexpr int kLanesPerValue = 32 / kRowValues;
static_assert(kRowValues <= 32 && (kRowValues & (kRowValues - 1)) == 0);
// Blocks per SM the tile kernels are compiled for (__launch_bounds__): more caps the registers.
constexpr int kMinBlocks = 4;

// grow(t, b) of the current column, as convex.cpp: -inf on a blocked interval, else s plus G' when
// G' > 0. shrink likewise (s + H', -inf when H' is).
// G' and H' are read only for an unblocked interval: from gp/hp at i, or given (gp == nullptr).
__device__ inline void grow_shrink(const double* __restrict__ cs_col,
                                   const int* __restrict__ cb_col, double cs_t, int cb_t,
                                   const double* __restrict__ gp, const double* __restrict__ hp,
                                   size_t i, int b, double& g, double& sh, bool& extends,
                                   double gpv = 0, double hpv = 0) {
  g = none();
  sh = none();
  extends = false;
  if (cb_col[b + 1] - cb_t != 0) return;
  const double s = cs_col[b + 1] - cs_t;
  if (gp) gpv = gp[i], hpv = hp[i];
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

// Per-(row, block) maxima of grow and v (brg, brv: nblk x h), per-(segment, column) maxima (mg,
// mv: nseg x h) and per-tile maxima (bmg, bmv: nblk x nseg) of the block's tile (blockIdx.x,
// blockIdx.y), from grow g[i] and v[i] = max(grow, shrink) of the thread's rows (-inf outside
// t <= b < h). The second index is the contiguous one, so that carry_kernel scans along the first
// with coalesced loads. Called by all threads of the block; contains one barrier.
__device__ void aggregate_tile(const double (&g)[kGroupRows], const double (&v)[kGroupRows], int h,
                               double* __restrict__ mg, double* __restrict__ mv,
                               double* __restrict__ brg, double* __restrict__ brv,
                               double* __restrict__ bmg, double* __restrict__ bmv) {
  __shared__ double col_g[kGroups][kCols], col_v[kGroups][kCols];
  __shared__ double row_g[kWarps][kGroupRows], row_v[kWarps][kGroupRows];
  const int tx = threadIdx.x, col = tx % kCols, grp = tx / kCols;
  const int warp = tx >> 5, lane = tx & 31;
  const int blk = blockIdx.x, seg = blockIdx.y, b = blk * kCols + col, lo = seg * kRows;
  double cg = none(), cv = none();
  double vals[kRowValues];  // g of each row, then v of each row
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    cg = dmax(cg, g[i]);
    cv = dmax(cv, v[i]);
    vals[i] = g[i];
    vals[kGroupRows + i] = v[i];
  }
  // The warp's maxima of the kRowValues values by recursive halving: at each exchange a lane
  // sends half of its values to the lane `off` away and keeps the maxima of the other half (the
  // upper lane the upper half), so after log2(kRowValues) exchanges each lane holds one value,
  // k = lane / kLanesPerValue, reduced over 32 / kLanesPerValue lanes; the last exchanges reduce
  // it over the rest. 9 exchanges of a double instead of 40.
#pragma unroll
  for (int half = kRowValues / 2, off = 16; half >= 1; half /= 2, off /= 2) {
    const bool upper = lane & off;
#pragma unroll
    for (int j = 0; j < half; ++j) {
      const double other = __shfl_xor_sync(kFullMask, upper ? vals[j] : vals[j + half], off);
      vals[j] = dmax(upper ? vals[j + half] : vals[j], other);
    }
  }
#pragma unroll
  for (int off = kLanesPerValue / 2; off >= 1; off /= 2)
    vals[0] = dmax(vals[0], __shfl_xor_sync(kFullMask, vals[0], off));
  if (lane % kLanesPerValue == 0) {
    const int k = lane / kLanesPerValue;
    if (k < kGroupRows)
      row_g[warp][k] = vals[0];
    else
      row_v[warp][k - kGroupRows] = vals[0];
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
    double rg = none(), rv = none();
    for (int w = 0; w < kWarpsPerGroup; ++w) {
      rg = dmax(rg, row_g[gr * kWarpsPerGroup + w][i]);
      rv = dmax(rv, row_v[gr * kWarpsPerGroup + w][i]);
    }
    if (t < h) brg[size_t(blk) * h + t] = rg, brv[size_t(blk) * h + t] = rv;
  }
  if (tx == 0) {
    double tg = none(), tv = none();
    for (int w = 0; w < kWarps; ++w)
      for (int i = 0; i < kGroupRows; ++i) tg = dmax(tg, row_g[w][i]), tv = dmax(tv, row_v[w][i]);
    const size_t tile = size_t(blk) * gridDim.y + seg;
    bmg[tile] = tg;
    bmv[tile] = tv;
  }
}

// Launch: grid (nblk, nseg), kThreads threads. The aggregates of the first column (tile_kernel
// makes those of each following column from the G and H it has just computed). Tiles entirely
// below the diagonal write only their tile maxima (-inf, and never changed after); the other
// entries they would hold are never read.
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    aggregate_kernel(const double* __restrict__ cs_col, const int* __restrict__ cb_col,
                     const double* __restrict__ gp, const double* __restrict__ hp, int h,
                     double* __restrict__ mg, double* __restrict__ mv, double* __restrict__ brg,
                     double* __restrict__ brv, double* __restrict__ bmg, double* __restrict__ bmv) {
  const int tx = threadIdx.x, col = tx % kCols, grp = tx / kCols;
  const int blk = blockIdx.x, seg = blockIdx.y, b0 = blk * kCols, b = b0 + col;
  const int lo = seg * kRows, t0 = lo + grp * kGroupRows;
  if (b0 + kCols - 1 < lo) {
    if (tx == 0) bmg[size_t(blk) * gridDim.y + seg] = bmv[size_t(blk) * gridDim.y + seg] = none();
    return;
  }
  double g[kGroupRows], v[kGroupRows];
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    const int t = t0 + i;
    double sh = none();
    bool ext;
    g[i] = none();
    if (b < h && t <= b)
      grow_shrink(cs_col, cb_col, cs_col[t], cb_col[t], gp, hp, size_t(t) * h + b, b, g[i], sh,
                  ext);
    v[i] = dmax(g[i], sh);
  }
  aggregate_tile(g, v, h, mg, mv, brg, brv, bmg, bmv);
}

// carry_kernel's blocks: 32 lanes (32 consecutive entries of the contiguous index f) by
// kScanWarps warps, each warp a contiguous chunk of the scanned index.
constexpr int kScanWarps = 32;

// Exclusive running maximum along the first index s of a table [n_slow][n_fast], for the entry f
// = 32 * fblock + lane, over s in [first, last] (entries outside that range are garbage and never
// read): forward, out[s] = max in[first..s-1]; backward, out[s] = max in[s+1..last]; -inf when
// empty. Each warp scans its own chunk of s after taking the chunks before (after) it from shared
// memory, so the dependent chain is a chunk long, not n_slow. in == out is allowed (each entry is
// read before it is written, by the same thread). Called by all threads of the block.
__device__ void scan_slow(const double* in, double* out, int n_slow, int n_fast, int fblock,
                          int first, int last, bool forward, double (*chunk_max)[32]) {
  const int lane = threadIdx.x, w = threadIdx.y, f = fblock * 32 + lane;
  const int chunk = (n_slow + kScanWarps - 1) / kScanWarps;
  const int c0 = w * chunk, c1 = (w + 1) * chunk < n_slow ? (w + 1) * chunk : n_slow;
  const int a = c0 > first ? c0 : first;
  int e = c1 < last + 1 ? c1 : last + 1;
  if (f >= n_fast) e = a;  // no entry: an empty range, but the barrier is still reached
  double m = none();
  for (int s = a; s < e; s += 8) {
    double v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = s + k < e ? in[size_t(s + k) * n_fast + f] : none();
#pragma unroll
    for (int k = 0; k < 8; ++k) m = dmax(m, v[k]);
  }
  chunk_max[w][lane] = m;
  __syncthreads();
  double run = none();
  if (forward)
    for (int k = 0; k < w; ++k) run = dmax(run, chunk_max[k][lane]);
  else
    for (int k = w + 1; k < kScanWarps; ++k) run = dmax(run, chunk_max[k][lane]);
  __syncthreads();  // chunk_max is reused by the next scan
  for (int n = 0; n < e - a; n += 8) {
    double v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int s = forward ? a + n + k : e - 1 - n - k;
      v[k] = n + k < e - a ? in[size_t(s) * n_fast + f] : none();
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if (n + k >= e - a) break;
      const int s = forward ? a + n + k : e - 1 - n - k;
      out[size_t(s) * n_fast + f] = run;
      run = dmax(run, v[k]);
    }
  }
}

// What the tiles need from the rest of the column, by three kinds of blocks (32 x kScanWarps
// threads), each scanning 32 entries:
//   [0, nf_cols)              per column b, over the segments holding a t <= b (s <= b / kRows):
//                             CG = running maximum of mg from below, CV of mv from above;
//   [nf_cols, 2 nf_cols)      per row t, over the blocks from the row's first tile on: the
//                             exclusive prefix of brg and suffix of brv, in place (R(t, b0 - 1)
//                             and O(t, b0 + kCols));
//   [2 nf_cols, + nf_segs)    per segment, over all blocks: the exclusive prefix of bmg and suffix
//                             of bmv, from which tile_kernel takes P and Q (a maximum over the
//                             segments below / above).
__global__ void __launch_bounds__(32 * kScanWarps)
    carry_kernel(const double* __restrict__ mg, const double* __restrict__ mv,
                 const double* __restrict__ bmg, const double* __restrict__ bmv, int h, int nseg,
                 int nblk, double* __restrict__ cgc, double* __restrict__ cvc, double* brg,
                 double* brv, double* __restrict__ pq_p, double* __restrict__ pq_q) {
  __shared__ double chunk_max[kScanWarps][32];
  const int nf_cols = (h + 31) / 32;
  const int job = blockIdx.x;
  if (job < nf_cols) {
    const int b = job * 32 + threadIdx.x, last = b / kRows;
    scan_slow(mg, cgc, nseg, h, job, 0, last, false, chunk_max);
    scan_slow(mv, cvc, nseg, h, job, 0, last, true, chunk_max);
  } else if (job < 2 * nf_cols) {
    const int fb = job - nf_cols, t = fb * 32 + threadIdx.x;
    const int first = (t / kRows) * kRows / kCols;  // the first block the row's tiles cover
    scan_slow(brg, brg, nblk, h, fb, first, nblk - 1, true, chunk_max);
    scan_slow(brv, brv, nblk, h, fb, first, nblk - 1, false, chunk_max);
  } else {
    const int fb = job - 2 * nf_cols;
    scan_slow(bmg, pq_p, nblk, nseg, fb, 0, nblk - 1, true, chunk_max);
    scan_slow(bmv, pq_q, nblk, nseg, fb, 0, nblk - 1, false, chunk_max);
  }
}

// R (running maximum of grow from the left) and O (of v = max(grow, shrink) from the right) of
// each of the thread's rows over the warp's 32 columns, and each row's warp totals into
// part[row][warp] (R at the last column) and part2[row][warp] (O at the first). Through a
// warp-private shared-memory transpose: lane l takes row l % 4 and the 4 columns from 4 (l / 4),
// scans them in registers, and the 8 lanes of a row exchange segment totals: 3 shuffle steps per
// table instead of 5 per row and table. A row stride of 33 doubles puts each half-warp's accesses
// on distinct banks. Called by all threads of the block, once per launch (the buffers are not
// synchronised for reuse).
__device__ void row_scans(const double (&gr)[kGroupRows], const double (&sh)[kGroupRows],
                          double (&r_out)[kGroupRows], double (&o_out)[kGroupRows],
                          double (*part)[kWarps], double (*part2)[kWarps]) {
  static_assert(kGroupRows == 4, "a row per lane quarter, 8 segments of 4 columns");
  constexpr int kStride = 33;
  __shared__ double buf_r[kWarps][kGroupRows * kStride], buf_o[kWarps][kGroupRows * kStride];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double* br = buf_r[warp];
  double* bo = buf_o[warp];
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    br[i * kStride + lane] = gr[i];
    bo[i * kStride + lane] = dmax(gr[i], sh[i]);
  }
  __syncwarp();
  const int q = lane & 3, seg = lane >> 2, base = q * kStride + 4 * seg;
  double r[4], o[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) r[k] = br[base + k], o[k] = bo[base + k];
#pragma unroll
  for (int k = 1; k < 4; ++k) r[k] = dmax(r[k], r[k - 1]);
#pragma unroll
  for (int k = 2; k >= 0; --k) o[k] = dmax(o[k], o[k + 1]);
  // The maxima of the row's segments before (after) this one: the totals shifted by one segment,
  // then scanned over 1, 2 and 4 segments (lanes past the warp's ends get their own value back).
  double pr = __shfl_up_sync(kFullMask, r[3], 4), po = __shfl_down_sync(kFullMask, o[0], 4);
  if (seg == 0) pr = none();
  if (seg == 7) po = none();
#pragma unroll
  for (int d = 4; d < 32; d <<= 1) {
    pr = dmax(pr, __shfl_up_sync(kFullMask, pr, d));
    po = dmax(po, __shfl_down_sync(kFullMask, po, d));
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    r[k] = dmax(r[k], pr);
    o[k] = dmax(o[k], po);
    br[base + k] = r[k];
    bo[base + k] = o[k];
  }
  if (seg == 7) part[q][warp] = r[3];
  if (seg == 0) part2[q][warp] = o[0];
  __syncwarp();
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    r_out[i] = br[i * kStride + lane];
    o_out[i] = bo[i * kStride + lane];
  }
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
                uint8_t* __restrict__ trace_col, Best* __restrict__ block_best,
                const double* __restrict__ cs_next, const int* __restrict__ cb_next,
                double* __restrict__ mg, double* __restrict__ mv, double* __restrict__ brg_next,
                double* __restrict__ brv_next, double* __restrict__ bmg, double* __restrict__ bmv) {
  __shared__ double part[kGroupRows][kWarps], part2[kGroupRows][kWarps], part3[2][kWarps];
  __shared__ double edge_g[kGroups][kWarpsPerGroup + 1][kGroupRows];
  __shared__ double edge_h[kGroups][kWarpsPerGroup + 1][kGroupRows];
  __shared__ double g_tot[kGroups][kCols], h_tot[kGroups][kCols];
  __shared__ Best red[kWarps];
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
      for (int s = seg + 1 + lane; s < nseg; s += 32) m = dmax(m, pq_p[size_t(blk) * nseg + s]);
    else
      for (int s = lane; s < seg; s += 32) m = dmax(m, pq_q[size_t(blk) * nseg + s]);
    for (int d = 16; d > 0; d >>= 1) m = dmax(m, __shfl_down_sync(kFullMask, m, d));
    if (lane == 0) pq[warp] = m;
  }
  row_scans(gr, sh, gv, hvv, part, part2);
  // G just below the segment (CG scanned left to right over the group's columns) and H just
  // above it (CV scanned right to left), by the same warp scans and the same barrier.
  const bool in_col = b < h;
  double cg_b = in_col && b >= lo ? cgc[size_t(seg) * h + b] : none();
  double ch_b = in_col && b >= lo ? cvc[size_t(seg) * h + b] : none();
  for (int d = 1; d < 32; d <<= 1) {
    const double u = __shfl_up_sync(kFullMask, cg_b, d), v = __shfl_down_sync(kFullMask, ch_b, d);
    if (lane >= d) cg_b = dmax(cg_b, u);
    if (lane + d < 32) ch_b = dmax(ch_b, v);
  }
  if (lane == 31) part3[0][warp] = cg_b;
  if (lane == 0) part3[1][warp] = ch_b;
  __syncthreads();
  const int first_warp = grp * kWarpsPerGroup;
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    const int t = t0 + i;
    double cr = t < h ? rcr[size_t(blk) * h + t] : none();
    double co = t < h ? rco[size_t(blk) * h + t] : none();
#pragma unroll
    for (int k = 0; k < kWarpsPerGroup; ++k) {  // fixed trip counts: predicated, no branches
      if (k < wig) cr = dmax(cr, part[i][first_warp + k]);
      if (k > wig) co = dmax(co, part2[i][first_warp + k]);
    }
    gv[i] = dmax(gv[i], cr);    // R(t, b)
    hvv[i] = dmax(hvv[i], co);  // O(t, b)
  }
#pragma unroll
  for (int k = 0; k < kWarpsPerGroup; ++k) {
    if (k < wig) cg_b = dmax(cg_b, part3[0][first_warp + k]);
    if (k > wig) ch_b = dmax(ch_b, part3[1][first_warp + k]);
  }
  cg_b = dmax(cg_b, pq[0]);
  ch_b = dmax(ch_b, pq[1]);
  // G up the column and H down it: within the group, then the groups below / above.
#pragma unroll
  for (int i = kGroupRows - 2; i >= 0; --i) gv[i] = dmax(gv[i], gv[i + 1]);
#pragma unroll
  for (int i = 1; i < kGroupRows; ++i) hvv[i] = dmax(hvv[i], hvv[i - 1]);
  g_tot[grp][col] = gv[0];
  h_tot[grp][col] = hvv[kGroupRows - 1];
  __syncthreads();
  double below = cg_b, above = ch_b;  // G(t0 + kGroupRows, b) and H(t0 - 1, b)
#pragma unroll
  for (int k = 0; k < kGroups; ++k) {
    if (k > grp) below = dmax(below, g_tot[k][col]);
    if (k < grp) above = dmax(above, h_tot[k][col]);
  }
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
  // G left of the block, per tile row: P and the row carries R(t', b0 - 1) of the rows t' >= t
  // (a suffix maximum over the tile's rows, warp 0); H right of it: Q and O(t', b0 + kCols) of
  // the rows t' <= t (a prefix maximum, warp 1). Lanes past kRows repeat rows and store nothing.
  if (warp < 2) {
    const int r = lane % kRows, t = lo + r;
    const double* carry = warp == 0 ? rcr : rco;
    double run = t < h ? carry[size_t(blk) * h + t] : none();
#pragma unroll
    for (int d = 1; d < kRows; d <<= 1)  // out-of-segment lanes get their own value back
      run = dmax(run, warp == 0 ? __shfl_down_sync(kFullMask, run, d, kRows)
                                : __shfl_up_sync(kFullMask, run, d, kRows));
    if (lane < kRows) {
      if (warp == 0)
        edge_g[r / kGroupRows][0][r % kGroupRows] = dmax(run, pq[0]);
      else
        edge_h[r / kGroupRows][kWarpsPerGroup][r % kGroupRows] = dmax(run, pq[1]);
    }
  }
  __syncthreads();

  // The thread's best candidate (value, position in convex.cpp's scan). Rows come in ascending t,
  // i.e. descending scan position, so a tie goes to the later row; at one (t, b), shrink is
  // offered first and grow second, so grow (the earlier in the scan) wins a tie between them.
  double best_value = none();
  int best_order = 0;  // < 2 h^2: cuda_max_convex keeps h below 32768
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
    const int base = ((h - 1 - t) * h + b) * 2;
    if (sh[i] >= best_value) best_value = sh[i], best_order = base + 1;
    if (gr[i] >= best_value) best_value = gr[i], best_order = base;
  }
  // The tile's best: within each warp by shuffles, then over the warps (candidates have distinct
  // positions, so any reduction order picks the same one). A value of -inf is no candidate.
  for (int d = 16; d > 0; d >>= 1) {
    const double ov = __shfl_down_sync(kFullMask, best_value, d);
    const int oo = __shfl_down_sync(kFullMask, best_order, d);
    if (ov > best_value || (ov == best_value && oo < best_order)) best_value = ov, best_order = oo;
  }
  Best best{best_value, best_order, best_value == none() ? -1 : col_x};
  if (lane == 0) red[warp] = best;
  __syncthreads();
  if (tx == 0) {
    for (int w = 1; w < kWarps; ++w)
      if (best_before(red[w], best)) best = red[w];
    block_best[tile] = best;
  }
  if (!cs_next) return;  // the last column
  // The next column's aggregates (aggregate_tile) from the G and H just computed, which are its
  // G' and H': saves re-reading them.
  double ng[kGroupRows], nv[kGroupRows];
#pragma unroll
  for (int i = 0; i < kGroupRows; ++i) {
    const int t = t0 + i;
    double sh = none();
    bool e;
    ng[i] = none();
    if (in_col && t <= b)
      grow_shrink(cs_next, cb_next, cs_next[t], cb_next[t], nullptr, nullptr, 0, b, ng[i], sh, e,
                  gv[i], hvv[i]);
    nv[i] = dmax(ng[i], sh);
  }
  aggregate_tile(ng, nv, h, mg, mv, brg_next, brv_next, bmg, bmv);
}

// The best of `n` candidates (the tile bests of every column) into out[blockIdx.x]; run over many
// blocks, then once over their results. The order is convex.cpp's: the largest value, then the
// earliest column (its running best is replaced only by a strictly larger column best), then
// the scan order within the column (best_before).
__device__ inline bool overall_before(const Best& a, const Best& b) {
  if (a.col < 0) return false;
  if (b.col < 0) return true;
  if (a.value != b.value) return a.value > b.value;
  if (a.col != b.col) return a.col < b.col;
  return a.order < b.order;
}

constexpr int kBestThreads = 256;

__global__ void __launch_bounds__(kBestThreads)
    best_kernel(const Best* __restrict__ in, size_t n, Best* __restrict__ out) {
  __shared__ Best red[kBestThreads];
  Best mine{0, 0, -1};
  for (size_t i = size_t(blockIdx.x) * kBestThreads + threadIdx.x; i < n;
       i += size_t(gridDim.x) * kBestThreads)
    if (overall_before(in[i], mine)) mine = in[i];
  red[threadIdx.x] = mine;
  __syncthreads();
  for (int s = kBestThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && overall_before(red[threadIdx.x + s], red[threadIdx.x]))
      red[threadIdx.x] = red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = red[0];
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
  cuda::cuda_require_device("maxsub: method cuda (convex)");
  const int w = width, h = height;
  // The tile kernels number candidates in an int (below 2 h^2); the trace alone would need
  // far more than any device's memory long before this.
  if (h >= 32768) throw Error("maxsub: convex search of an image taller than 32767 rows");
  const size_t hh = size_t(h) * h, tri_size = size_t(h) * (h + 1) / 2;
  const int nseg = (h + kRows - 1) / kRows, nblk = (h + kCols - 1) / kCols;
  const size_t aux = size_t(nseg) * h, tiles = size_t(nseg) * nblk, rowc = size_t(h) * nblk;
  const size_t table_bytes = (4 * hh + 4 * aux + 4 * rowc + 4 * tiles) * sizeof(double) +
                             tiles * w * sizeof(Best) + (size_t(h) + 1) * w * 12;
  size_t free_bytes = 0, total_bytes = 0;
  CELERIS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double need = double(tri_size) * w + double(table_bytes) + (256 << 20);
  if (need > double(free_bytes))
    throw Error("maxsub: convex search of a " + std::to_string(w) + " x " + std::to_string(h) +
                " image needs " + std::to_string(need / (1 << 30)) + " GiB on the device (" +
                std::to_string(double(free_bytes) / (1 << 30)) + " free); crop the image");
  DeviceBuffer<double> d_px(size_t(w) * h);
  DeviceBuffer<uint8_t> d_blk(blocked ? size_t(w) * h : 0);
  d_px.upload(pixels, size_t(w) * h);
  if (blocked) d_blk.upload(blocked, size_t(w) * h);
  DeviceBuffer<double> d_cs((size_t(h) + 1) * w);
  DeviceBuffer<int> d_cb((size_t(h) + 1) * w);
  column_prefix_kernel<<<(w + 127) / 128, 128>>>(d_px.data(), d_blk.data(), w, h, d_cs.data(),
                                                 d_cb.data());
  cuda::cuda_check_launch("column_prefix_kernel");

  DeviceBuffer<double> d_g0(hh), d_g1(hh), d_h0(hh), d_h1(hh);
  const unsigned fill_blocks = unsigned((hh + 255) / 256);
  for (double* p : {d_g0.data(), d_g1.data(), d_h0.data(), d_h1.data()})
    fill_kernel<<<fill_blocks, 256>>>(p, hh, none());
  DeviceBuffer<uint8_t> d_trace(tri_size * w);
  // The row tables alternate between columns: the tile kernel reads this column's (scanned in
  // place by carry_kernel) while it writes the next column's.
  DeviceBuffer<double> d_mg(aux), d_mv(aux), d_cg(aux), d_cv(aux), d_brg0(rowc), d_brv0(rowc),
      d_brg1(rowc), d_brv1(rowc), d_bmg(tiles), d_bmv(tiles), d_p(tiles), d_q(tiles);
  // Every column's tile bests, reduced once after the last column.
  constexpr int kBestBlocks = 512;
  DeviceBuffer<Best> d_block_best(tiles * w), d_partial(kBestBlocks), d_best(1);
  cuda::cuda_check_launch("fill_kernel");

  double *gp = d_g0.data(), *g = d_g1.data(), *hp = d_h0.data(), *hv = d_h1.data();
  const dim3 tile_grid(nblk, nseg);
  const int carry_blocks = 2 * ((h + 31) / 32) + (nseg + 31) / 32;
  double *brg = d_brg0.data(), *brv = d_brv0.data(), *brg_next = d_brg1.data(),
         *brv_next = d_brv1.data();
  aggregate_kernel<<<tile_grid, kThreads>>>(d_cs.data(), d_cb.data(), gp, hp, h, d_mg.data(),
                                            d_mv.data(), brg, brv, d_bmg.data(), d_bmv.data());
  for (int x = 0; x < w; ++x) {
    const double* cs_col = d_cs.data() + size_t(x) * (h + 1);
    const int* cb_col = d_cb.data() + size_t(x) * (h + 1);
    const bool last = x + 1 == w;
    carry_kernel<<<carry_blocks, dim3(32, kScanWarps)>>>(
        d_mg.data(), d_mv.data(), d_bmg.data(), d_bmv.data(), h, nseg, nblk, d_cg.data(),
        d_cv.data(), brg, brv, d_p.data(), d_q.data());
    tile_kernel<<<tile_grid, kThreads>>>(
        cs_col, cb_col, gp, hp, d_cg.data(), d_cv.data(), brg, brv, d_p.data(), d_q.data(), h, nseg,
        nblk, x, g, hv, d_trace.data() + tri_size * x, d_block_best.data() + tiles * x,
        last ? nullptr : cs_col + (h + 1), last ? nullptr : cb_col + (h + 1), d_mg.data(),
        d_mv.data(), brg_next, brv_next, d_bmg.data(), d_bmv.data());
    std::swap(g, gp);
    std::swap(hv, hp);
    std::swap(brg, brg_next);
    std::swap(brv, brv_next);
  }
  best_kernel<<<kBestBlocks, kBestThreads>>>(d_block_best.data(), tiles * w, d_partial.data());
  best_kernel<<<1, kBestThreads>>>(d_partial.data(), kBestBlocks, d_best.data());
  cuda::cuda_check_launch("best_kernel");
  Best best;
  d_best.download(&best, 1);
  CudaConvex out;
  if (best.col < 0) return out;  // every cell blocked

  DeviceBuffer<int> d_tops(w), d_bottoms(w), d_out(2);
  trace_back_kernel<<<1, 1>>>(d_trace.data(), tri_size, h, d_best.data(), d_tops.data(),
                              d_bottoms.data(), d_out.data());
  cuda::cuda_check_launch("trace_back_kernel");
  int n_left[2];
  d_out.download(n_left, 2);
  std::vector<int> tops(n_left[0]), bottoms(n_left[0]);
  d_tops.download(tops.data(), size_t(n_left[0]));
  d_bottoms.download(bottoms.data(), size_t(n_left[0]));
  out.found = true;
  out.left = n_left[1];
  out.top.assign(tops.rbegin(), tops.rend());
  out.bottom.assign(bottoms.rbegin(), bottoms.rend());
  return out;
}

}  // namespace celeris::maxsub::detail
