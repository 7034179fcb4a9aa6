// Cleaning's pairs on the GPU (clean_zones_gpu.hpp): a grid of the small objects (counted,
// scanned, scattered), a count pass and a fill pass of each object's neighbours, CUB's scan
// between them and its segmented sort after; then, when asked, CLEAN's decision for each pair.
#include <cub/cub.cuh>

#include <chrono>
#include <cmath>
#include <memory>

#include "celeris/error.hpp"
#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/launch.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/clean_zones_gpu.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kThreads = 128;

// What the zone test reads of an object.
struct Point {
  double x, y;
  float a;
  int32_t index;
};

// The grid: cells of `cell` pixels from (0, 0), nx x ny of them; positions outside the image
// fall in the edge cells (a clamp keeps the order of positions, so a search clamped alike still
// covers every cell a neighbour can be in).
struct Grid {
  double cell = 1;
  int32_t nx = 1, ny = 1;
  __device__ int32_t cx(double x) const { return clamp(x, nx); }
  __device__ int32_t cy(double y) const { return clamp(y, ny); }
  __device__ static int32_t clamp_index(double q, int32_t n) {
    if (!(q >= 0)) return 0;
    if (q >= static_cast<double>(n)) return n - 1;
    return static_cast<int32_t>(q);
  }
  __device__ int32_t clamp(double v, int32_t n) const { return clamp_index(v / cell, n); }
};

__device__ bool small_point(const Point& p) {
  return isfinite(p.x) && isfinite(p.y) && p.a <= kZoneSmallAxis;  // false for a NaN axis
}

// Per object: its grid cell counted, or its index appended to the large ones.
__global__ void bin_kernel(const Point* points, int64_t n, Grid g, int32_t* cell_count,
                           int32_t* cell_of, int32_t* large, int32_t* nlarge) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Point p = points[i];
  if (!small_point(p)) {
    cell_of[i] = -1;
    large[atomicAdd(nlarge, 1)] = static_cast<int32_t>(i);
    return;
  }
  const int32_t c = g.cy(p.y) * g.nx + g.cx(p.x);
  cell_of[i] = c;
  atomicAdd(&cell_count[c], 1);
}

__global__ void scatter_kernel(const Point* points, int64_t n, const int32_t* cell_of,
                               int32_t* cell_fill, Point* binned) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || cell_of[i] < 0) return;
  binned[atomicAdd(&cell_fill[cell_of[i]], 1)] = points[i];
}

struct SearchArgs {
  const Point* points;
  int64_t first, n;  // the newcomers first .. n - 1 search points[0 .. n)
  Grid g;
  const int32_t* cell_start;  // nx * ny + 1
  const Point* binned;
  const int32_t* large;
  // The large objects' count, on the device: read by the kernels, so that the host learns it
  // with the neighbours' count (one wait, not two). Past kZoneMaxLarge the search is abandoned
  // (clean_zones_gpu returns false), and the kernels look at no more than that many meanwhile.
  const int32_t* nlarge;
  __device__ int32_t large_count() const {
    return min(*nlarge, static_cast<int32_t>(kZoneMaxLarge));
  }
};

// Calls f(j) for each j < i within the clean zone of small object i, in no particular order.
template <class F>
__device__ void each_neighbour(const SearchArgs& a, const Point& s, int64_t i, F&& f) {
  auto consider = [&](const Point& p) {
    if (p.index < i && in_clean_zone(s.x, s.y, s.a, p.x, p.y, p.a)) f(p.index);
  };
  const int32_t nl = a.large_count();
  for (int32_t k = 0; k < nl; ++k) consider(a.points[a.large[k]]);
  // Small objects: within (a_i + kZoneSmallAxis) zone widths, plus a pixel for the float
  // rounding of the zone test (as the host's tiers).
  const double r = (s.a + kZoneSmallAxis) * kCleanZone + 1.0;
  const int32_t x0 = a.g.cx(s.x - r), x1 = a.g.cx(s.x + r);
  const int32_t y0 = a.g.cy(s.y - r), y1 = a.g.cy(s.y + r);
  for (int32_t cy = y0; cy <= y1; ++cy)
    for (int32_t k = a.cell_start[cy * a.g.nx + x0]; k < a.cell_start[cy * a.g.nx + x1 + 1]; ++k)
      consider(a.binned[k]);
}

// Small newcomers, one thread each (large ones: large_kernel). Without `neighbours`, counts
// them into count[i - first]; with it, writes them from offset[i - first] on.
__global__ void small_kernel(const SearchArgs a, int64_t* count, const int64_t* offset,
                             uint32_t* neighbours) {
  const int64_t i = a.first + int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const Point s = a.points[i];
  if (!small_point(s)) return;
  if (!neighbours) {
    int64_t c = 0;
    each_neighbour(a, s, i, [&](int32_t) { ++c; });
    count[i - a.first] = c;
    return;
  }
  int64_t at = offset[i - a.first];
  each_neighbour(a, s, i, [&](int32_t j) { neighbours[at++] = static_cast<uint32_t>(j); });
}

// Large objects (and those of a position or axis that is not finite), one block each over
// every object before it; as small_kernel, counting or writing (in any order).
__global__ void large_kernel(const SearchArgs a, int64_t* count, const int64_t* offset,
                             uint32_t* neighbours) {
  if (static_cast<int32_t>(blockIdx.x) >= a.large_count()) return;
  const int64_t i = a.large[blockIdx.x];
  if (i < a.first) return;  // an earlier chunk's: a neighbour only
  const Point s = a.points[i];
  __shared__ unsigned long long found;
  if (threadIdx.x == 0) found = 0;
  __syncthreads();
  for (int64_t j = threadIdx.x; j < i; j += blockDim.x) {
    const Point p = a.points[j];
    if (!in_clean_zone(s.x, s.y, s.a, p.x, p.y, p.a)) continue;
    const unsigned long long k = atomicAdd(&found, 1ull);
    if (neighbours)
      neighbours[offset[i - a.first] + static_cast<int64_t>(k)] = static_cast<uint32_t>(j);
  }
  __syncthreads();
  if (!neighbours && threadIdx.x == 0) count[i - a.first] = static_cast<int64_t>(found);
}

// CLEAN's decision for each pair of a newcomer's sorted neighbours, one thread per newcomer.
__global__ void pairs_kernel(const CleanPairInput* input, int64_t first, int64_t nq,
                             const int64_t* offset, const uint32_t* neighbours, double beta,
                             uint8_t* codes) {
  const int64_t z = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (z >= nq) return;
  const CleanPairInput in = input[first + z];
  for (int64_t k = offset[z]; k < offset[z + 1]; ++k)
    codes[k] = clean_pair_sure(in, input[neighbours[k]], beta);
}

// Both kernels, counting (neighbours null) or writing.
void search(const SearchArgs& a, int64_t* count, const int64_t* offset, uint32_t* neighbours,
            cudaStream_t s) {
  small_kernel<<<cuda::blocks_for(a.n - a.first, kThreads), kThreads, 0, s>>>(a, count, offset,
                                                                              neighbours);
  cuda::cuda_check_launch("small_kernel");
  // A block per possible large object; those past the count return at once.
  large_kernel<<<static_cast<unsigned>(kZoneMaxLarge), 256, 0, s>>>(a, count, offset, neighbours);
  cuda::cuda_check_launch("large_kernel");
}

// One per call at a time, from a process-wide pool (core/cuda/context_pool.hpp): a stream's back
// workers each take their own (one context behind a mutex made them wait for each other's whole
// call: 3.6 ms a crowded 4096^2 frame in a stream of eight on the H200, stop 48). Buffers grow
// with the frames, never shrink.
struct Context {
  cuda::Stream stream;
  cuda::DeviceBuffer<Point> points, binned;
  cuda::DeviceBuffer<int32_t> cell_count, cell_start, cell_of, large, nlarge;
  cuda::DeviceBuffer<int64_t> count, offset;
  cuda::DeviceBuffer<uint32_t> neighbours, sorted;
  cuda::DeviceBuffer<unsigned char> cub;
  cuda::PinnedBuffer<Point> staged;
  cuda::PinnedBuffer<int64_t> total, host_offset;
  cuda::PinnedBuffer<uint32_t> host_neighbours;
  // The pairs' decisions: the objects' inputs and each pair's code.
  cuda::DeviceBuffer<CleanPairInput> pair_input;
  cuda::PinnedBuffer<CleanPairInput> staged_pair_input;
  cuda::DeviceBuffer<uint8_t> codes;
  cuda::PinnedBuffer<uint8_t> host_codes;
  // Whose points `points` holds (the caller's frame key, 0: none) and up to which object; up to
  // which object `pair_input` holds that frame's inputs.
  uint64_t points_of = 0;
  size_t points_upto = 0, pair_inputs_upto = 0;
};

std::shared_ptr<Context> take_context() {
  static cuda::ContextPool<Context>* pool = new cuda::ContextPool<Context>;
  return pool->take();
}

}  // namespace

bool clean_zones_gpu(const std::vector<Shape>& shapes, int64_t width, int64_t height, int threads,
                     CleanZones& zones, std::vector<std::pair<std::string, double>>* seconds) {
  return clean_zones_gpu(shapes, 0, shapes.size(), width, height, threads, zones, seconds);
}

bool clean_zones_gpu(const std::vector<Shape>& shapes, size_t begin, size_t end, int64_t width,
                     int64_t height, int threads, CleanZones& zones,
                     std::vector<std::pair<std::string, double>>* seconds,
                     const ZonePairsRequest* pairs, std::vector<uint8_t>* codes, uint64_t frame) {
  if (pairs && !codes) throw Error("internal: clean_zones_gpu asked for pairs without codes");
  cuda::cuda_require_device("--device cuda");
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  if (end > shapes.size() || begin > end)
    throw Error("internal: clean_zones_gpu given objects " + std::to_string(begin) + " .. " +
                std::to_string(end) + " of " + std::to_string(shapes.size()));
  // Every object up to `end` is binned (the newcomers' neighbours are any earlier ones); the
  // newcomers begin .. end - 1 search.
  const int64_t n = static_cast<int64_t>(end), first = static_cast<int64_t>(begin);
  const int64_t nq = n - first;  // newcomers
  if (nq == 0) {
    zones.first = begin;
    zones.offset.assign(1, 0);
    zones.neighbours.clear();
    if (codes) codes->clear();
    return true;
  }
  const size_t nz = static_cast<size_t>(n), nqz = static_cast<size_t>(nq);
  const auto t_lock = Clock::now();
  const std::shared_ptr<Context> taken = take_context();
  Context& c = *taken;
  const auto t_locked = Clock::now();
  const cudaStream_t s = c.stream.get();
  // Sized for all of `shapes` (a frame's objects, sized before its first chunk), so that a
  // chunk's call keeps the points the frame's earlier chunks put there: then only the new ones
  // are staged and uploaded (chunks come in order, each from where the last one ended). A chunk
  // given another context than the frame's last one stages them all: the same points.
  const size_t all = shapes.size();
  Point* staged = c.staged.grow(all);
  Point* points = c.points.grow(all);
  const bool same_frame = begin > 0 && frame != 0 && c.points_of == frame;
  const int64_t from = same_frame && c.points_upto == begin ? first : 0;
  const int64_t pairs_from = same_frame && c.pair_inputs_upto == begin ? first : 0;
  c.points_of = 0;  // until the uploads below are queued
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = from; i < n; ++i)
    staged[i] = {shapes[i].mx, shapes[i].my, static_cast<float>(shapes[i].a),
                 static_cast<int32_t>(i)};
  c.points.upload_async(staged + from, static_cast<size_t>(n - from), s, static_cast<size_t>(from));
  if (pairs) {
    CleanPairInput* in = c.staged_pair_input.grow(all);
    c.pair_input.grow(all);
    pairs->inputs(static_cast<size_t>(pairs_from), end, in + pairs_from, threads);
    c.pair_input.upload_async(in + pairs_from, static_cast<size_t>(n - pairs_from), s,
                              static_cast<size_t>(pairs_from));
  }
  const auto t_staged = Clock::now();
  c.points_of = frame;
  c.points_upto = end;
  c.pair_inputs_upto = pairs ? end : 0;

  Grid g;
  g.cell = 2.0 * kZoneSmallAxis * kCleanZone;
  g.nx =
      static_cast<int32_t>(std::max<int64_t>(1, static_cast<int64_t>(std::ceil(width / g.cell))));
  g.ny =
      static_cast<int32_t>(std::max<int64_t>(1, static_cast<int64_t>(std::ceil(height / g.cell))));
  const size_t cells = static_cast<size_t>(g.nx) * g.ny;
  int32_t* cell_count = c.cell_count.grow(cells + 1);
  int32_t* cell_start = c.cell_start.grow(cells + 1);
  int32_t* cell_of = c.cell_of.grow(nz);
  int32_t* large = c.large.grow(nz);
  int32_t* nlarge = c.nlarge.grow(1);
  int64_t* count = c.count.grow(nqz + 1);
  int64_t* offset = c.offset.grow(nqz + 1);
  Point* binned = c.binned.grow(nz);
  size_t cell_scan = 0, count_scan = 0;
  CELERIS_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, cell_scan, cell_count, cell_start, cells + 1));
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, count_scan, count, offset, nqz + 1));
  void* tmp = c.cub.grow(std::max(cell_scan, count_scan));

  CELERIS_CUDA_CHECK(cudaMemsetAsync(cell_count, 0, (cells + 1) * sizeof(int32_t), s));
  CELERIS_CUDA_CHECK(cudaMemsetAsync(nlarge, 0, sizeof(int32_t), s));
  const unsigned blocks = cuda::blocks_for(n, kThreads);  // binning: every object
  bin_kernel<<<blocks, kThreads, 0, s>>>(points, n, g, cell_count, cell_of, large, nlarge);
  cuda::cuda_check_launch("bin_kernel");
  size_t bytes = cell_scan;
  CELERIS_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(tmp, bytes, cell_count, cell_start, cells + 1, s));
  // cell_count becomes each cell's fill position.
  CELERIS_CUDA_CHECK(cudaMemcpyAsync(cell_count, cell_start, (cells + 1) * sizeof(int32_t),
                                     cudaMemcpyDeviceToDevice, s));
  scatter_kernel<<<blocks, kThreads, 0, s>>>(points, n, cell_of, cell_count, binned);
  cuda::cuda_check_launch("scatter_kernel");
  int64_t* total = c.total.grow(2);

  const SearchArgs args{points, first, n, g, cell_start, binned, large, nlarge};
  CELERIS_CUDA_CHECK(cudaMemsetAsync(count + nq, 0, sizeof(int64_t), s));
  search(args, count, nullptr, nullptr, s);
  bytes = count_scan;
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, count, offset, nqz + 1, s));
  CELERIS_CUDA_CHECK(
      cudaMemcpyAsync(total, offset + nq, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
  // The large objects' count (an int32) into the low bytes of total[1], read as an int32 below.
  CELERIS_CUDA_CHECK(
      cudaMemcpyAsync(total + 1, nlarge, sizeof(int32_t), cudaMemcpyDeviceToHost, s));
  c.stream.synchronize();
  const auto t_counted = Clock::now();
  if (*reinterpret_cast<const int32_t*>(total + 1) > kZoneMaxLarge) return false;
  const int64_t m = total[0];
  // Both lists come back through page-locked buffers (a download to pageable memory is staged
  // by the driver at a fraction of the bus's rate), then are copied into the vectors.
  int64_t* host_offset = c.host_offset.grow(nqz + 1);
  uint32_t* host_neighbours = c.host_neighbours.grow(static_cast<size_t>(std::max<int64_t>(m, 1)));
  if (m > 0) {
    const size_t mz = static_cast<size_t>(m);
    uint32_t* found = c.neighbours.grow(mz);
    uint32_t* sorted = c.sorted.grow(mz);
    search(args, nullptr, offset, found, s);
    size_t sort_bytes = 0;
    CELERIS_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, sort_bytes, found, sorted, m, nq,
                                                          offset, offset + 1));
    void* sort_tmp = c.cub.grow(std::max({cell_scan, count_scan, sort_bytes}));
    CELERIS_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(sort_tmp, sort_bytes, found, sorted, m,
                                                          nq, offset, offset + 1, s));
    c.sorted.download_async(host_neighbours, mz, s);
    if (pairs) {
      pairs_kernel<<<cuda::blocks_for(nq, kThreads), kThreads, 0, s>>>(
          c.pair_input.data(), first, nq, offset, sorted, pairs->beta, c.codes.grow(mz));
      cuda::cuda_check_launch("pairs_kernel");
      c.codes.download_async(c.host_codes.grow(mz), mz, s);
    }
  }
  c.offset.download_async(host_offset, nqz + 1, s);
  // Sized (allocated and first touched) while the sort and the downloads run; the copies below
  // then only overwrite.
  zones.offset.resize(nqz + 1);
  zones.neighbours.resize(static_cast<size_t>(m));
  c.stream.synchronize();
  const auto t_back = Clock::now();
  zones.first = begin;
  zones.offset.assign(host_offset, host_offset + nqz + 1);
  zones.neighbours.assign(host_neighbours, host_neighbours + m);
  if (codes) {
    if (pairs && m > 0)
      codes->assign(c.host_codes.data(), c.host_codes.data() + m);
    else
      codes->clear();
  }
  if (seconds) {
    auto since = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    const auto t_end = Clock::now();
    // Taking a context from the pool (a new one is made when all are busy): its own line.
    seconds->emplace_back("gpu zones: wait for the context", since(t_lock, t_locked));
    seconds->emplace_back("gpu zones: stage on the host",
                          since(t0, t_staged) - since(t_lock, t_locked));
    seconds->emplace_back("gpu zones: upload, bin, count", since(t_staged, t_counted));
    seconds->emplace_back("gpu zones: fill, sort, download", since(t_counted, t_back));
    seconds->emplace_back("gpu zones: host copies", since(t_back, t_end));
  }
  return true;
}

}  // namespace celeris::extract::gpu
