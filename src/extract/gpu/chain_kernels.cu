// The detections' chain order and the pixel-stack bound on the GPU (chain_kernels.hpp).
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>

#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/launch.hpp"
#include "extract/gpu/chain_kernels.hpp"
#include "extract/gpu/chain_order.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n, int threads = kThreads) {
  return cuda::blocks_for(n, threads);
}

// Where a component starts (its key changes) and where a run starts (a component starts, the
// previous pixel is not the one to the left, or the pixel opens a row).
__global__ void boundary_flags_kernel(const int32_t* pixels, const int32_t* keys, int64_t m,
                                      int width, int32_t* comp_flag, int32_t* run_flag) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= m) return;
  const bool comp = i == 0 || keys[i] != keys[i - 1];
  const int32_t p = pixels[i];
  comp_flag[i] = comp;
  run_flag[i] = comp || p != pixels[i - 1] + 1 || p % width == 0;
}

// Each component's first pixel and first run, each run's first pixel, and the sentinels
// (offset[C] = m, comp_run[C] = R, run_first[R] = m); counts = {C, R}.
__global__ void boundary_scatter_kernel(int64_t m, const int32_t* comp_flag,
                                        const int32_t* comp_index, const int32_t* run_flag,
                                        const int32_t* run_index, int32_t* offset,
                                        int32_t* comp_run, int32_t* run_first, int32_t* counts) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= m) return;
  if (comp_flag[i]) {
    offset[comp_index[i]] = static_cast<int32_t>(i);
    comp_run[comp_index[i]] = run_index[i];
  }
  if (run_flag[i]) run_first[run_index[i]] = static_cast<int32_t>(i);
  if (i == m - 1) {
    const int32_t c = comp_index[i] + comp_flag[i], r = run_index[i] + run_flag[i];
    offset[c] = static_cast<int32_t>(m);
    comp_run[c] = r;
    run_first[r] = static_cast<int32_t>(m);
    counts[0] = c;
    counts[1] = r;
  }
}

// Run k of a component whose first run is rb (chain_order.hpp's Run), read off the run starts.
struct DeviceRuns {
  const int32_t* run_first;
  const int32_t* pixels;
  int width;
  int64_t rb;
  __device__ chain::Run operator()(int64_t k) const {
    const int32_t o = run_first[rb + k], len = run_first[rb + k + 1] - o;
    const int32_t p = pixels[o];
    const int32_t y = p / width, x = p - y * width;
    return {y, x, x + len, o};
  }
};

struct ChainArgs {
  const int32_t* pixels;
  int width;
  const int32_t* offset;
  const int32_t* comp_run;
  const int32_t* run_first;
  int64_t components, runs;
  uint8_t* marks;  // mark_start of every run, then mark_end
  chain::Link* stored;
  int32_t* piece_end;
  int32_t* piece_next;
  chain::Open* open;
  uint8_t* above;
  int32_t* head;  // -1, and the ordinal at each piece's start
  int32_t* failed;
};

// One thread per component: its chain as pieces (chain_order.hpp), then each piece's place in
// the chain order: head[piece start] = itself, piece_next[piece start] = its output position.
__global__ void chain_kernel(ChainArgs a) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= a.components) return;
  const int32_t base = a.offset[c], count = a.offset[c + 1] - base;
  const int64_t rb = a.comp_run[c], nruns = a.comp_run[c + 1] - rb;
  // Scratch at the component's own place: per run from rb, per pixel from base, and the stacks
  // from their capacities' prefix sums (open_capacity(n) = n + 2, above_capacity(n) = 2n + 4).
  const chain::Scratch s{
      a.marks + rb,        a.marks + a.runs + rb, a.stored + rb,           a.piece_end + base,
      a.piece_next + base, a.open + rb + 2 * c,   a.above + 2 * rb + 4 * c};
  chain::Link chain;
  if (!chain::chain_pieces(DeviceRuns{a.run_first, a.pixels, a.width, rb}, nruns, base, s, chain)) {
    atomicExch(a.failed, 1);
    return;
  }
  int32_t pos = base;
  for (int32_t p = chain.first; p >= 0;) {
    const int32_t next = s.piece_next[p];
    a.head[base + p] = base + p;
    s.piece_next[p] = pos;
    pos += s.piece_end[p] - p;
    p = next;
  }
  if (pos != base + count) atomicExch(a.failed, 1);
}

struct MaxOp {
  __device__ int32_t operator()(int32_t a, int32_t b) const { return a > b ? a : b; }
};

// Pixel i (ordinal) to its place in the chain order: its piece starts at head_max[i] (the last
// piece start at or before it), whose output position piece_next holds now.
__global__ void chain_scatter_kernel(const int32_t* pixels, int64_t m, const int32_t* head_max,
                                     const int32_t* piece_next, int32_t* chained) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= m) return;
  const int32_t h = head_max[i];
  chained[piece_next[h] + (i - h)] = pixels[i];
}

__global__ void gather_values_kernel(const int32_t* chained, int64_t m, const float* value,
                                     const float* cvalue, int width, float* out_value,
                                     float* out_cvalue, int32_t* out_x, int32_t* out_y) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= m) return;
  const int32_t p = chained[i];
  out_value[i] = value[p];
  out_cvalue[i] = cvalue[p];
  const int32_t y = p / width;
  out_x[i] = p - y * width;
  out_y[i] = y;
}

__global__ void gather_image_kernel(const int32_t* chained, int64_t m, const float* image,
                                    float* out) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < m) out[i] = image[chained[i]];
}

// A warp per component: the largest row among its pixels and whether one lies on the border.
constexpr int kEndWarps = 8;  // components a block
__global__ void component_ends_kernel(const int32_t* chained, const int32_t* offset,
                                      int64_t components, int width, int height, int y0,
                                      int32_t* ends) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(kEndWarps) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (c >= components) return;
  int32_t last = 0;
  bool border = false;
  for (int64_t i = offset[c] + lane; i < offset[c + 1]; i += 32) {
    const int32_t p = chained[i], by = p / width, x = p - by * width, y = by + y0;
    last = max(last, y);
    border = border || x == 0 || y == 0 || x == width - 1 || y == height - 1;
  }
  for (int d = 16; d > 0; d /= 2) last = max(last, __shfl_xor_sync(0xffffffffu, last, d));
  border = __any_sync(0xffffffffu, border);
  if (lane == 0) ends[c] = border ? ~(last + 1) : last + 1;
}

size_t align256(size_t b) {
  return (b + 255) / 256 * 256;
}

// ---- Pixel-stack bound -------------------------------------------------------------------------

// rows[y] = pixels of row y above the threshold (NaN is not above it, -inf neither); each
// pixel's own where `thresh` is given.
__global__ void row_lit_kernel(const float* cvalue, int width, float threshold, const float* thresh,
                               int64_t* rows) {
  using Reduce = cub::BlockReduce<int64_t, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const size_t first = static_cast<size_t>(blockIdx.x) * width;
  const float* row = cvalue + first;
  int64_t n = 0;
  if (thresh)
    for (int x = threadIdx.x; x < width; x += kThreads) n += row[x] > thresh[first + x];
  else
    for (int x = threadIdx.x; x < width; x += kThreads) n += row[x] > threshold;
  const int64_t total = Reduce(tmp).Sum(n);
  if (threadIdx.x == 0) rows[blockIdx.x] = total;
}

// Each kept component gives its pixels back on the second row after its last (keys are a band's
// from row y0: the frame's rows).
__global__ void freed_kernel(const int32_t* keys, const int32_t* offset, int64_t components,
                             int width, int y0, int row_lo, int row_hi, int height, int64_t* rows) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= components) return;
  const int32_t last_row = keys[offset[c]] / width;
  if (last_row < row_lo || last_row > row_hi) return;  // another band's
  const int64_t y = int64_t{last_row} + y0 + 2;
  if (y >= height) return;
  const int64_t count = offset[c + 1] - offset[c];
  atomicAdd(reinterpret_cast<unsigned long long*>(rows + y),
            static_cast<unsigned long long>(-count));  // two's complement: a subtraction
}

}  // namespace

void gather_values(const int32_t* chained, int64_t m, const float* value, const float* cvalue,
                   int width, float* out_value, float* out_cvalue, int32_t* out_x, int32_t* out_y,
                   cudaStream_t stream) {
  if (m == 0) return;
  gather_values_kernel<<<blocks_for(m), kThreads, 0, stream>>>(chained, m, value, cvalue, width,
                                                               out_value, out_cvalue, out_x, out_y);
  cuda::cuda_check_launch("gather_values_kernel");
}

void gather_image(const int32_t* chained, int64_t m, const float* image, float* out,
                  cudaStream_t stream) {
  if (m == 0) return;
  gather_image_kernel<<<blocks_for(m), kThreads, 0, stream>>>(chained, m, image, out);
  cuda::cuda_check_launch("gather_image_kernel");
}

void component_ends(const int32_t* chained, const int32_t* offset, int64_t components, int width,
                    int height, int32_t* ends, cudaStream_t stream, int y0) {
  if (components == 0) return;
  component_ends_kernel<<<blocks_for(components, kEndWarps), kEndWarps * 32, 0, stream>>>(
      chained, offset, components, width, height, y0, ends);
  cuda::cuda_check_launch("component_ends_kernel");
}

int64_t chain_components(const int32_t* pixels, const int32_t* keys, int64_t m, int width,
                         ChainWork& w, int32_t* chained, int32_t* offset, cudaStream_t stream) {
  if (m == 0) {
    CELERIS_CUDA_CHECK(cudaMemsetAsync(offset, 0, sizeof(int32_t), stream));
    return 0;
  }
  const size_t n = static_cast<size_t>(m);
  int32_t* comp_flag = w.comp_flag.grow(n);
  int32_t* comp_index = w.comp_index.grow(n);
  int32_t* run_flag = w.run_flag.grow(n);
  int32_t* run_index = w.run_index.grow(n);
  int32_t* comp_run = w.comp_run.grow(n + 1);
  int32_t* run_first = w.run_first.grow(n + 1);
  int32_t* counts = w.counts.grow(3);
  size_t scan_bytes = 0, max_bytes = 0;
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, comp_flag, comp_index, m));
  CELERIS_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(nullptr, max_bytes, comp_flag, comp_index, MaxOp{}, m));
  void* tmp = w.cub.grow(align256(std::max(scan_bytes, max_bytes)));

  boundary_flags_kernel<<<blocks_for(m), kThreads, 0, stream>>>(pixels, keys, m, width, comp_flag,
                                                                run_flag);
  cuda::cuda_check_launch("boundary_flags_kernel");
  size_t bytes = scan_bytes;
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, comp_flag, comp_index, m, stream));
  bytes = scan_bytes;
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, run_flag, run_index, m, stream));
  boundary_scatter_kernel<<<blocks_for(m), kThreads, 0, stream>>>(
      m, comp_flag, comp_index, run_flag, run_index, offset, comp_run, run_first, counts);
  cuda::cuda_check_launch("boundary_scatter_kernel");
  const int32_t* host_counts = cuda::read_back(counts, w.counts_back, 2, stream);
  const int64_t components = host_counts[0], runs = host_counts[1];

  // The flags and indices are spent: comp_flag becomes the piece heads, comp_index their
  // running maximum.
  int32_t* head = comp_flag;
  int32_t* head_max = comp_index;
  CELERIS_CUDA_CHECK(cudaMemsetAsync(head, 0xff, n * sizeof(int32_t), stream));  // -1
  CELERIS_CUDA_CHECK(cudaMemsetAsync(counts + 2, 0, sizeof(int32_t), stream));
  const size_t r = static_cast<size_t>(runs), c = static_cast<size_t>(components);
  ChainArgs a{pixels,
              width,
              offset,
              comp_run,
              run_first,
              components,
              runs,
              w.marks.grow(2 * r),
              w.stored.grow(r),
              w.piece_end.grow(n),
              w.piece_next.grow(n),
              w.open.grow(r + 2 * c),
              w.above.grow(2 * r + 4 * c),
              head,
              counts + 2};
  chain_kernel<<<blocks_for(components, 64), 64, 0, stream>>>(a);
  cuda::cuda_check_launch("chain_kernel");
  bytes = max_bytes;
  CELERIS_CUDA_CHECK(
      cub::DeviceScan::InclusiveScan(tmp, bytes, head, head_max, MaxOp{}, m, stream));
  chain_scatter_kernel<<<blocks_for(m), kThreads, 0, stream>>>(pixels, m, head_max,
                                                               w.piece_next.data(), chained);
  cuda::cuda_check_launch("chain_scatter_kernel");
  const int32_t failed = *cuda::read_back(counts + 2, w.counts_back, 1, stream);
  if (failed)
    throw Error("internal error: a component's chain order could not be replayed on the GPU");
  return components;
}

void stack_rows_lit(const float* cvalue, int width, int height, float threshold, ChainWork& w,
                    cudaStream_t stream, const float* thresh) {
  if (static_cast<int64_t>(width) * height == 0) return;
  int64_t* rows = w.rows.grow(2 * static_cast<size_t>(height));
  row_lit_kernel<<<static_cast<unsigned>(height), kThreads, 0, stream>>>(cvalue, width, threshold,
                                                                         thresh, rows);
  cuda::cuda_check_launch("row_lit_kernel");
}

void stack_rows_freed(const int32_t* keys, const int32_t* offset, int64_t components, int width,
                      int y0, int row_lo, int row_hi, int height, ChainWork& w,
                      cudaStream_t stream) {
  if (components <= 0 || static_cast<int64_t>(width) * height == 0) return;
  freed_kernel<<<blocks_for(components), kThreads, 0, stream>>>(
      keys, offset, components, width, y0, row_lo, row_hi, height, w.rows.data());
  cuda::cuda_check_launch("freed_kernel");
}

int64_t stack_rows_bound(int width, int height, ChainWork& w, cudaStream_t stream) {
  if (static_cast<int64_t>(width) * height == 0) return 0;
  const size_t h = static_cast<size_t>(height);
  int64_t* rows = w.rows.data();
  int64_t* held = rows + h;
  int64_t* bound = w.bound.grow(1);
  size_t scan_bytes = 0, max_bytes = 0;
  CELERIS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, rows, held, height));
  CELERIS_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, max_bytes, held, bound, height));
  void* tmp = w.cub.grow(align256(std::max(scan_bytes, max_bytes)));
  size_t bytes = scan_bytes;
  CELERIS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(tmp, bytes, rows, held, height, stream));
  bytes = max_bytes;
  CELERIS_CUDA_CHECK(cub::DeviceReduce::Max(tmp, bytes, held, bound, height, stream));
  const int64_t value = *cuda::read_back(bound, w.bound_back, 1, stream);
  return std::max<int64_t>(value, 0);  // the host's running maximum starts at 0
}

int64_t pixel_stack_bound(const float* cvalue, int width, int height, float threshold,
                          const int32_t* keys, const int32_t* offset, int64_t components,
                          ChainWork& w, cudaStream_t stream, const float* thresh) {
  stack_rows_lit(cvalue, width, height, threshold, w, stream, thresh);
  stack_rows_freed(keys, offset, components, width, 0, 0, height - 1, height, w, stream);
  return stack_rows_bound(width, height, w, stream);
}

namespace {

// The least top row (its root's row: the labels' roots are their components' first pixels) of
// the components with a pixel on the band's last row; `top` holds the band's height beforehand.
__global__ void last_row_top_kernel(const int32_t* parent, int width, int height, int32_t* top) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  const int32_t root = parent[static_cast<int64_t>(height - 1) * width + x];
  if (root >= 0) atomicMin(top, root / width);  // -1: not detected
}

__global__ void set_value_kernel(int32_t* at, int32_t v) {
  *at = v;
}

}  // namespace

void last_row_top(const int32_t* parent, int width, int height, int32_t* top, cudaStream_t stream) {
  set_value_kernel<<<1, 1, 0, stream>>>(top, height);
  cuda::cuda_check_launch("set_value_kernel");
  if (static_cast<int64_t>(width) * height == 0) return;
  last_row_top_kernel<<<blocks_for(width), kThreads, 0, stream>>>(parent, width, height, top);
  cuda::cuda_check_launch("last_row_top_kernel");
}

}  // namespace celeris::extract::gpu
