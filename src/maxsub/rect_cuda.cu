// The fast exact maximum-sum rectangle on a GPU. Every row pair (t, b) of the grid is one Kadane
// scan over the column sums V[b+1][j] - V[t][j] of the vertical prefix table V. A block owns a
// tile of pairs, kTops top rows x 32 bottom rows (one bottom per lane, kTopsPerWarp tops per warp
// in registers), and streams the kTops + 32 prefix rows those pairs need through shared memory in
// chunks of 32 columns: 64 loads serve 1024 pairs, so the scans run from shared memory and
// registers and the work, O(m^2 n), is arithmetic-bound. Each thread keeps its pairs' Kadane state
// (running sum, its start, best, best start and end) in registers; the block reduces its best in
// the tie order of maxsub.hpp and the host reduces the blocks'.
#include <cuda_runtime.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "maxsub/rect_cuda.hpp"
#include "maxsub/to_grid.cuh"

namespace celeris::maxsub::detail {

using cuda::DeviceBuffer;

namespace {

constexpr int kWarps = 8;
constexpr int kThreads = 32 * kWarps;
constexpr int kChunk = 32;    // columns per shared-memory chunk
constexpr int kBottoms = 32;  // bottom rows per block, one per lane

// Launch: one thread per grid column (blocks of 32). Memory: reads a (and blocked) once, writes
// V (m+1) x n (and NB) once, coalesced across columns. Guarantees: V[i * n + j] = sum of column j
// over rows < i in T, added top to bottom; NB the same count of blocked cells.
template <class T>
__global__ void prefix_kernel(const T* __restrict__ a, const uint8_t* __restrict__ blocked, int m,
                              int n, T* __restrict__ v, int* __restrict__ nb) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  T s = T(0);
  int c = 0;
  v[j] = s;
  if (nb) nb[j] = 0;
#pragma unroll 8
  for (int i = 0; i < m; ++i) {
    s += a[size_t(i) * n + j];
    v[size_t(i + 1) * n + j] = s;
    if (nb) {
      c += blocked[size_t(i) * n + j];
      nb[size_t(i + 1) * n + j] = c;
    }
  }
}

// Launch: grid (ceil(m / 32), ceil(m / kTops)), kThreads threads; block (x, y) owns bottoms
// x*32 .. x*32+31 (lane) and tops y*kTops .. (kTopsPerWarp per warp); blocks below the diagonal
// (every top > every bottom) only write "none". Memory: per 32 columns, kTops + 32 rows of V (and
// NB) read once per block, coalesced (a warp reads 32 consecutive columns of one row), written
// transposed into shared memory (padded rows); each pair then reads 2 shared values per column
// (the bottom's conflict-free across lanes, the top's a broadcast). Guarantees: out[y * gridDim.x
// + x] is the block's best rectangle in the tie order (top < 0: none), in image coordinates.
template <class T, int kTopsPerWarp, bool kBlocked>
__global__ void __launch_bounds__(kThreads)
    pair_tile_kernel(const T* __restrict__ v, const int* __restrict__ nb, int m, int n,
                     bool swap_out, MeshRect<T>* __restrict__ out) {
  constexpr int kTops = kWarps * kTopsPerWarp;
  constexpr int kRows = kTops + kBottoms;  // prefix rows a chunk holds: tops first
  constexpr int kLoads = kRows * kChunk / kThreads;
  static_assert(kRows * kChunk % kThreads == 0, "whole loads per thread");
  __shared__ T s_v[kChunk][kRows + 1];
  __shared__ int s_nb[kBlocked ? kChunk : 1][kBlocked ? kRows + 1 : 1];
  __shared__ MeshRect<T> s_red[kThreads];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int b0 = blockIdx.x * kBottoms, t0 = blockIdx.y * kTops;
  const size_t out_idx = size_t(blockIdx.y) * gridDim.x + blockIdx.x;
  if (t0 >= m || t0 > b0 + kBottoms - 1) {
    if (threadIdx.x == 0) out[out_idx] = MeshRect<T>{T(0), -1, 0, 0, 0};
    return;
  }

  // Chunk loads: element e = threadIdx.x + q * kThreads is row e / 32, column e % 32 of the chunk.
  auto v_row = [&](int r) {  // prefix row of chunk row r, clamped (pairs past m are discarded)
    const int row = r < kTops ? t0 + r : b0 + 1 + (r - kTops);
    return row < m ? row : m;
  };
  T pre[kLoads];
  int pre_nb[kBlocked ? kLoads : 1];
  auto load = [&](int j0) {
#pragma unroll
    for (int q = 0; q < kLoads; ++q) {
      const int e = threadIdx.x + q * kThreads;
      const int col = j0 + (e & (kChunk - 1));
      const size_t at = size_t(v_row(e / kChunk)) * n + col;
      pre[q] = col < n ? v[at] : T(0);
      if constexpr (kBlocked) pre_nb[q] = col < n ? nb[at] : 0;
    }
  };

  T cur[kTopsPerWarp], best[kTopsPerWarp];
  int start[kTopsPerWarp], best_l[kTopsPerWarp], best_r[kTopsPerWarp];
#pragma unroll
  for (int k = 0; k < kTopsPerWarp; ++k) {
    cur[k] = T(-1);  // negative: the first column starts a new run
    best[k] = T(-INFINITY);
    start[k] = 0;
    best_l[k] = -1;
    best_r[k] = 0;
  }
  const int my_top = warp * kTopsPerWarp;  // chunk row of this warp's first top
  const int my_bottom = kTops + lane;      // chunk row of this lane's bottom (V row b + 1)

  load(0);
  for (int j0 = 0; j0 < n; j0 += kChunk) {
    __syncthreads();  // the previous chunk is consumed
#pragma unroll
    for (int q = 0; q < kLoads; ++q) {
      const int e = threadIdx.x + q * kThreads;
      s_v[e & (kChunk - 1)][e / kChunk] = pre[q];
      if constexpr (kBlocked) s_nb[e & (kChunk - 1)][e / kChunk] = pre_nb[q];
    }
    __syncthreads();
    if (j0 + kChunk < n) load(j0 + kChunk);  // in flight while this chunk is scanned
    const int cols = n - j0 < kChunk ? n - j0 : kChunk;
    for (int c = 0; c < cols; ++c) {
      const int j = j0 + c;
      const T vb = s_v[c][my_bottom];
#pragma unroll
      for (int k = 0; k < kTopsPerWarp; ++k) {
        if constexpr (kBlocked) {
          if (s_nb[c][my_bottom] - s_nb[c][my_top + k] > 0) {
            cur[k] = T(-1);  // an excluded cell in this column: no rectangle spans it
            continue;
          }
        }
        const T x = vb - s_v[c][my_top + k];
        // Extend while the running sum is >= 0: the leftmost start wins a tie.
        const bool extend = cur[k] >= T(0);
        cur[k] = (extend ? cur[k] : T(0)) + x;
        start[k] = extend ? start[k] : j;
        // Strict: a later end with the same sum starts no further left, so it loses the tie.
        if (cur[k] > best[k]) {
          best[k] = cur[k];
          best_l[k] = start[k];
          best_r[k] = j;
        }
      }
    }
  }

  MeshRect<T> mine{T(0), -1, 0, 0, 0};
  const int b = b0 + lane;
#pragma unroll
  for (int k = 0; k < kTopsPerWarp; ++k) {
    const int t = t0 + my_top + k;
    if (t > b || b >= m || best_l[k] < 0) continue;
    const MeshRect<T> r = swap_out ? MeshRect<T>{best[k], best_l[k], t, best_r[k], b}
                                   : MeshRect<T>{best[k], t, best_l[k], b, best_r[k]};
    if (mesh_better(r, mine)) mine = r;
  }
  s_red[threadIdx.x] = mine;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && mesh_better(s_red[threadIdx.x + s], s_red[threadIdx.x]))
      s_red[threadIdx.x] = s_red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[out_idx] = s_red[0];
}

template <class T, int kTopsPerWarp>
MeshRect<T> launch_tiles(const T* d_v, const int* d_nb, int m, int n, bool swap_out) {
  constexpr int kTops = kWarps * kTopsPerWarp;
  const dim3 grid((m + kBottoms - 1) / kBottoms, (m + kTops - 1) / kTops);
  if (grid.y > 65535) throw Error("maxsub: method cuda: both image sides exceed 2 million pixels");
  const size_t nblocks = size_t(grid.x) * grid.y;
  DeviceBuffer<MeshRect<T>> d_out(nblocks);
  if (d_nb)
    pair_tile_kernel<T, kTopsPerWarp, true>
        <<<grid, kThreads>>>(d_v, d_nb, m, n, swap_out, d_out.data());
  else
    pair_tile_kernel<T, kTopsPerWarp, false>
        <<<grid, kThreads>>>(d_v, nullptr, m, n, swap_out, d_out.data());
  cuda::cuda_check_launch("pair_tile_kernel");
  std::vector<MeshRect<T>> out(nblocks);
  d_out.download(out.data(), nblocks);
  MeshRect<T> best{T(0), -1, 0, 0, 0};
  for (const MeshRect<T>& c : out)
    if (mesh_better(c, best)) best = c;
  return best;
}

}  // namespace

template <class T, class In>
MeshRect<T> cuda_rect_search(const CudaSource<In>& in, CudaStageTimes* times) {
  cuda::cuda_require_device("maxsub: method cuda");
  const int m = in.transpose_src ? in.src_width : in.src_height;
  const int n = in.transpose_src ? in.src_height : in.src_width;
  const size_t cells = size_t(m) * n, vcells = (size_t(m) + 1) * n;
  cuda::EventTimer timer(4);  // marks: start, uploaded, prepared, searched
  CudaStageTimes t;

  timer.mark(0);
  DeviceBuffer<In> d_src(cells);
  DeviceBuffer<uint8_t> d_bsrc(in.blocked ? cells : 0);
  d_src.upload(in.src, cells);
  if (in.blocked) d_bsrc.upload(in.blocked, cells);
  timer.mark(1);

  DeviceBuffer<T> d_a(cells), d_v(vcells);
  DeviceBuffer<uint8_t> d_blk(in.blocked ? cells : 0);
  DeviceBuffer<int> d_nb(in.blocked ? vcells : 0);
  const unsigned grid_blocks = unsigned((cells + 255) / 256);
  to_grid_kernel<T, In><<<grid_blocks, 256>>>(d_src.data(), d_bsrc.data(), in.src_width,
                                              in.transpose_src, m, n, d_a.data(), d_blk.data());
  cuda::cuda_check_launch("to_grid_kernel");
  prefix_kernel<T><<<(n + 31) / 32, 32>>>(d_a.data(), d_blk.data(), m, n, d_v.data(), d_nb.data());
  cuda::cuda_check_launch("prefix_kernel");
  timer.mark(2);

  // 4 tops per warp (tiles of 32 x 32 pairs): 8 (32 x 64, 124-150 registers) measured 10-15%
  // slower on the H100 at 4000^2 and 8192^2 (bench/results/maxsub-h100-2026-11-23-fig5.txt).
  const MeshRect<T> best = launch_tiles<T, 4>(d_v.data(), d_nb.data(), m, n, in.swap_out);
  timer.mark(3);
  t.upload_ms = timer.ms(0, 1);
  t.prep_ms = timer.ms(1, 2);
  t.search_ms = timer.ms(2, 3);
  if (times) *times = t;
  return best;
}

template MeshRect<double> cuda_rect_search<double, double>(const CudaSource<double>&,
                                                           CudaStageTimes*);
template MeshRect<double> cuda_rect_search<double, float>(const CudaSource<float>&,
                                                          CudaStageTimes*);
template MeshRect<float> cuda_rect_search<float, double>(const CudaSource<double>&,
                                                         CudaStageTimes*);
template MeshRect<float> cuda_rect_search<float, float>(const CudaSource<float>&, CudaStageTimes*);

}  // namespace celeris::maxsub::detail
