// The maximum convex (W-N) sum on a GPU: convex.cpp's left-to-right dynamic programme, with the
// O(h^2) work of each column spread over the GPU. Per column x, over the intervals t <= b:
//   grow(t,b) = s + G'(t,b) if G' > 0 else s,  shrink(t,b) = s + H'(t,b)   (' = column x-1)
//   G = max of grow over sub-intervals,  H = max of max(grow, shrink) over super-intervals.
// The CPU builds G and H as recursive 2-D running maxima; here each is two 1-D running-maximum
// passes (G: along b for each t, then along t for each b; H likewise outwards), which give the same
// values exactly (a maximum does not round). Along b a warp scans 32 columns at a time; along t
// the rows are cut into segments of 128 with a second pass for the carries, so every pass has
// O(h^2 / 128) threads and coalesced accesses (one thread per line left the passes latency-bound:
// 16.5 s at 4000^2, bench/results/maxsub-h100-2026-11-23-convex.txt). The trace-back byte of every
// (x, t, b) is then set from those values with the CPU's rules and tie order, the column's best is
// reduced in the CPU's scan order, and the trace-back follows the bytes as convex.cpp does: the
// region is the CPU's, bit for bit (same additions in the same order: s from the same column
// prefix).
//
// Memory: seven h x h double tables (grow, shrink, G, H, their previous column, one scratch) and
// the trace bytes for the triangle t <= b of every column, h(h+1)/2 * w bytes (32 GB at 4000^2).
#include <cuda_runtime.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "maxsub/convex_cuda.hpp"
#include "maxsub/cuda_util.cuh"

namespace celeris::maxsub::detail {

namespace {

constexpr int kThreads = 128;

// Trace-back bits of one (column, t, b), as in convex.cpp.
enum : uint8_t {
  kGrowExtends = 1,
  kGSelf = 0 << 1,
  kGDown = 1 << 1,
  kGUp = 2 << 1,
  kGMask = 3 << 1,
  kHGrow = 0 << 3,
  kHShrink = 1 << 3,
  kHTopOut = 2 << 3,
  kHBottomOut = 3 << 3,
  kHMask = 3 << 3,
};

__device__ __host__ inline double none() {
  return -INFINITY;
}

// Offset of (t, b), t <= b, in a column's triangle of trace bytes (rows t of length h - t).
__device__ inline size_t tri(int t, int b, int h) {
  return size_t(t) * h - size_t(t) * (t - 1) / 2 + size_t(b - t);
}

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

// Launch: one warp per row t (blocks of 128 threads), the warp's lanes on 32 consecutive b, so
// every access is coalesced. Reads the column prefix, G' and H'; writes grow, shrink and
// rmax(t, b) = max of grow(t, t..b) (a warp max-scan per 32 columns, carried along the row).
__global__ void grow_rows_kernel(const double* __restrict__ cs_col, const int* __restrict__ cb_col,
                                 const double* __restrict__ gp, const double* __restrict__ hp,
                                 int h, double* __restrict__ grow, double* __restrict__ shrink,
                                 double* __restrict__ rmax) {
  const int lane = threadIdx.x & 31;
  const int t = int((size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5);
  if (t >= h) return;  // the whole warp: t is the warp's
  const double cs_t = cs_col[t];
  const int cb_t = cb_col[t];
  double carry = none();
  for (int b0 = t; b0 < h; b0 += 32) {
    const int b = b0 + lane;
    const size_t i = size_t(t) * h + b;
    double g = none(), sh = none();
    if (b < h) {
      if (cb_col[b + 1] - cb_t == 0) {
        const double s = cs_col[b + 1] - cs_t;
        const double gpv = gp[i], hpv = hp[i];
        g = gpv > 0 ? s + gpv : s;
        sh = hpv == none() ? none() : s + hpv;
      }
      grow[i] = g;
      shrink[i] = sh;
    }
    double v = g;
    for (int d = 1; d < 32; d <<= 1) {
      const double o = __shfl_up_sync(kFullMask, v, d);
      if (lane >= d) v = dmax(v, o);
    }
    v = dmax(v, carry);
    if (b < h) rmax[i] = v;
    carry = __shfl_sync(kFullMask, v, 31);
  }
}

// One warp per row t, chunks of 32 columns from the right: omax(t, b) = max of
// max(grow, shrink)(t, b..h-1).
__global__ void h_rows_kernel(const double* __restrict__ grow, const double* __restrict__ shrink,
                              int h, double* __restrict__ omax) {
  const int lane = threadIdx.x & 31;
  const int t = int((size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5);
  if (t >= h) return;
  double carry = none();
  for (int k = (h - t + 31) / 32 - 1; k >= 0; --k) {
    const int b = t + 32 * k + lane;
    const size_t i = size_t(t) * h + b;
    double v = b < h ? dmax(grow[i], shrink[i]) : none();
    for (int d = 1; d < 32; d <<= 1) {
      const double o = __shfl_down_sync(kFullMask, v, d);
      if (lane + d < 32) v = dmax(v, o);
    }
    v = dmax(v, carry);
    if (b < h) omax[i] = v;
    carry = __shfl_sync(kFullMask, v, 0);
  }
}

// The column passes run along t for every b (coalesced across b) in segments of kSeg rows, two
// launches each: a running maximum inside each segment (and the segment's maximum), then the
// carry from the other segments. Grid (ceil(h / 128), segments), 128 threads on consecutive b.
constexpr int kSeg = 128;

// G(t, b) = max of rmax(t..b, b): suffix maxima towards smaller t.
__global__ void g_cols_local_kernel(const double* __restrict__ rmax, int h, double* __restrict__ g,
                                    double* __restrict__ seg_max) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x, seg = blockIdx.y;
  if (b >= h) return;
  const int lo = seg * kSeg, hi = min(b, lo + kSeg - 1);
  double run = none();
  for (int t = hi; t >= lo; --t) {
    const size_t i = size_t(t) * h + b;
    run = dmax(run, rmax[i]);
    g[i] = run;
  }
  seg_max[size_t(seg) * h + b] = run;
}

__global__ void g_cols_carry_kernel(const double* __restrict__ seg_max, int h, int nseg,
                                    double* __restrict__ g) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x, seg = blockIdx.y;
  if (b >= h) return;
  double carry = none();
  for (int s = seg + 1; s < nseg; ++s) carry = dmax(carry, seg_max[size_t(s) * h + b]);
  if (carry == none()) return;
  const int lo = seg * kSeg, hi = min(b, lo + kSeg - 1);
  for (int t = lo; t <= hi; ++t) {
    const size_t i = size_t(t) * h + b;
    g[i] = dmax(g[i], carry);
  }
}

// H(t, b) = max of omax(0..t, b): prefix maxima towards larger t.
__global__ void h_cols_local_kernel(const double* __restrict__ omax, int h, double* __restrict__ hv,
                                    double* __restrict__ seg_max) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x, seg = blockIdx.y;
  if (b >= h) return;
  const int lo = seg * kSeg, hi = min(b, lo + kSeg - 1);
  double run = none();
  for (int t = lo; t <= hi; ++t) {
    const size_t i = size_t(t) * h + b;
    run = dmax(run, omax[i]);
    hv[i] = run;
  }
  seg_max[size_t(seg) * h + b] = run;
}

__global__ void h_cols_carry_kernel(const double* __restrict__ seg_max, int h,
                                    double* __restrict__ hv) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x, seg = blockIdx.y;
  if (b >= h) return;
  double carry = none();
  for (int s = 0; s < seg; ++s) carry = dmax(carry, seg_max[size_t(s) * h + b]);
  if (carry == none()) return;
  const int lo = seg * kSeg, hi = min(b, lo + kSeg - 1);
  for (int t = lo; t <= hi; ++t) {
    const size_t i = size_t(t) * h + b;
    hv[i] = dmax(hv[i], carry);
  }
}

// Launch: grid (ceil(h / 128), h), thread (t = y, b = x * 128 + lane), t <= b < h. Writes the
// trace byte of (x, t, b) with convex.cpp's rules and the block's best candidate.
__global__ void bits_kernel(const double* __restrict__ grow, const double* __restrict__ shrink,
                            const double* __restrict__ g, const double* __restrict__ hv,
                            const double* __restrict__ gp, int h, int col,
                            uint8_t* __restrict__ trace_col, Best* __restrict__ block_best) {
  __shared__ Best red[kThreads];
  const int t = blockIdx.y;
  const int b = blockIdx.x * kThreads + threadIdx.x;
  Best mine{0, 0, -1};
  if (b >= t && b < h) {
    const size_t i = size_t(t) * h + b;
    const double gr = grow[i], sh = shrink[i];
    uint8_t bits = (gr != none() && gp[i] > 0) ? kGrowExtends : 0;
    double gv = gr;
    uint8_t gb = kGSelf;
    if (t + 1 <= b && g[i + h] > gv) gv = g[i + h], gb = kGDown;
    if (b - 1 >= t && g[i - 1] > gv) gv = g[i - 1], gb = kGUp;
    double v = gr;
    uint8_t hb = kHGrow;
    if (sh > v) v = sh, hb = kHShrink;
    if (t > 0 && hv[i - h] > v) v = hv[i - h], hb = kHTopOut;
    if (b + 1 < h && hv[i + 1] > v) v = hv[i + 1], hb = kHBottomOut;
    trace_col[tri(t, b, h)] = bits | gb | hb;
    const long long base = (static_cast<long long>(h - 1 - t) * h + b) * 2;
    if (gr != none()) mine = {gr, base, col};
    if (sh != none() && (mine.col < 0 || sh > mine.value)) mine = {sh, base + 1, col};
  }
  red[threadIdx.x] = mine;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && best_before(red[threadIdx.x + s], red[threadIdx.x]))
      red[threadIdx.x] = red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) block_best[size_t(blockIdx.y) * gridDim.x + blockIdx.x] = red[0];
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

// One thread: convex.cpp's trace-back. Writes the columns right to left into tops/bottoms and
// their count and the left column into out[0], out[1].
__global__ void trace_back_kernel(const uint8_t* __restrict__ trace, size_t tri_size, int h,
                                  const Best* __restrict__ best, int* __restrict__ tops,
                                  int* __restrict__ bottoms, int* __restrict__ out) {
  const long long rest = best->order >> 1;
  int x = best->col, t = h - 1 - int(rest / h), b = int(rest % h);
  bool growing = (best->order & 1) == 0;
  int n = 0;
  for (;;) {
    tops[n] = t;
    bottoms[n] = b;
    ++n;
    const uint8_t* tr = trace + tri_size * x;
    if (growing) {
      if (!(tr[tri(t, b, h)] & kGrowExtends)) break;
      const uint8_t* tp = trace + tri_size * (x - 1);
      for (;;) {
        const uint8_t gb = tp[tri(t, b, h)] & kGMask;
        if (gb == kGSelf) break;
        if (gb == kGDown)
          ++t;
        else
          --b;
      }
    } else {
      const uint8_t* tp = trace + tri_size * (x - 1);
      for (;;) {
        const uint8_t hb = tp[tri(t, b, h)] & kHMask;
        if (hb == kHGrow || hb == kHShrink) {
          growing = hb == kHGrow;
          break;
        }
        if (hb == kHTopOut)
          --t;
        else
          ++b;
      }
    }
    --x;
  }
  out[0] = n;
  out[1] = x;
}

}  // namespace

CudaConvex cuda_max_convex(const double* pixels, const uint8_t* blocked, int width, int height) {
  cuda_require_device("cuda (convex)");
  const int w = width, h = height;
  const size_t hh = size_t(h) * h, tri_size = size_t(h) * (h + 1) / 2;
  const size_t table_bytes = 7 * hh * sizeof(double) + (size_t(h) + 1) * w * 12;
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

  DeviceBuffer<double> d_grow(hh), d_shrink(hh), d_scratch(hh), d_g0(hh), d_g1(hh), d_h0(hh),
      d_h1(hh);
  const unsigned fill_blocks = unsigned((hh + 255) / 256);
  for (double* p : {d_g0.p, d_g1.p, d_h0.p, d_h1.p})
    fill_kernel<<<fill_blocks, 256>>>(p, hh, none());
  DeviceBuffer<uint8_t> d_trace(tri_size * w);
  const dim3 bits_grid((h + kThreads - 1) / kThreads, h);
  const size_t nblocks = size_t(bits_grid.x) * bits_grid.y;
  DeviceBuffer<Best> d_block_best(nblocks), d_best(1);
  const Best start{0, 0, -1};
  cuda_check(cudaMemcpy(d_best.p, &start, sizeof start, cudaMemcpyHostToDevice), "copy");
  cuda_check(cudaGetLastError(), "launch");

  double *gp = d_g0.p, *g = d_g1.p, *hp = d_h0.p, *hv = d_h1.p;
  // Row passes: one warp per row (4 rows per block); column passes: 128 consecutive b per block,
  // one block row per segment of kSeg rows t.
  const unsigned row_blocks = unsigned((size_t(h) * 32 + 127) / 128);
  const int nseg = (h + kSeg - 1) / kSeg;
  const dim3 col_grid((h + 127) / 128, nseg);
  DeviceBuffer<double> d_seg(size_t(nseg) * h);
  for (int x = 0; x < w; ++x) {
    const double* cs_col = d_cs.p + size_t(x) * (h + 1);
    const int* cb_col = d_cb.p + size_t(x) * (h + 1);
    grow_rows_kernel<<<row_blocks, 128>>>(cs_col, cb_col, gp, hp, h, d_grow.p, d_shrink.p,
                                          d_scratch.p);
    g_cols_local_kernel<<<col_grid, 128>>>(d_scratch.p, h, g, d_seg.p);
    g_cols_carry_kernel<<<col_grid, 128>>>(d_seg.p, h, nseg, g);
    h_rows_kernel<<<row_blocks, 128>>>(d_grow.p, d_shrink.p, h, d_scratch.p);
    h_cols_local_kernel<<<col_grid, 128>>>(d_scratch.p, h, hv, d_seg.p);
    h_cols_carry_kernel<<<col_grid, 128>>>(d_seg.p, h, hv);
    bits_kernel<<<bits_grid, kThreads>>>(d_grow.p, d_shrink.p, g, hv, gp, h, x,
                                         d_trace.p + tri_size * x, d_block_best.p);
    column_best_kernel<<<1, 256>>>(d_block_best.p, nblocks, d_best.p);
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
