// Cleaning's pairs on the GPU (clean_zones_gpu.hpp): the objects binned in tiers of grids (counted,
// scanned, scattered), a count pass and a fill pass of each object's neighbours, CUB's scan
// between them and its segmented sort after; then, when asked, CLEAN's decision for each pair.
// The points come from the host's shapes (clean_zones_gpu) or from the GPU shapes' columns on
// the device (ZonesAfterShapes, inputs_kernel); both then share queue_count and queue_lists.
#include <cub/cub.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "celeris/error.hpp"
#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/launch.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/staged_upload.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/clean_zones_gpu.hpp"
#include "extract/gpu/zones_after_shapes.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kThreads = 128;
constexpr double kInf = std::numeric_limits<double>::infinity();

// What the zone test reads of an object.
struct Point {
  double x, y;
  float a;
  int32_t index;
};

// The grid's tiers, as the host's clean_zones: objects of semi-major axis up to 2, 4, ..., 128
// pixels (tier 0 .. kTiers - 1), each tier in cells 10 times its largest axis wide (its members'
// zones are about that wide), so that a newcomer's search of a tier covers a few cells whatever
// the tier (one grid of 160-pixel cells had each of a dense 4096^2 frame's newcomers test
// every small object within about 480 x 480 pixels: the zones' steps took 11.2-14.1 ms of the
// frame against 5.9-8.6 in tiers, H100, stop 81). Cells from (0, 0); positions outside the image
// fall in the edge cells (a clamp keeps the order of positions, so a search clamped alike still
// covers every cell a neighbour can be in). The tiers' cells are numbered one after the other
// (`base`).
constexpr int kTiers = kZoneTiers;
// A tier of a very large image takes cells twice as wide until it has at most this many (a
// search covers more cells then, and finds the same neighbours).
constexpr int64_t kMaxTierCells = int64_t{1} << 22;

struct Tiers {
  double cell[kTiers];
  int32_t nx[kTiers], ny[kTiers], base[kTiers + 1];
  __device__ static int32_t clamp_index(double q, int32_t n) {
    if (!(q >= 0)) return 0;
    if (q >= static_cast<double>(n)) return n - 1;
    return static_cast<int32_t>(q);
  }
  __device__ int32_t cx(int t, double x) const { return clamp_index(x / cell[t], nx[t]); }
  __device__ int32_t cy(int t, double y) const { return clamp_index(y / cell[t], ny[t]); }
};

Tiers make_tiers(int64_t width, int64_t height) {
  Tiers g{};
  int64_t cells = 0;
  for (int t = 0; t < kTiers; ++t) {
    double cell = kCleanZone * zone_tier_max(t);
    auto across = [&](int64_t extent) {
      return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(extent / cell)));
    };
    while (across(width) * across(height) > kMaxTierCells) cell *= 2;
    g.cell[t] = cell;
    g.nx[t] = static_cast<int32_t>(across(width));
    g.ny[t] = static_cast<int32_t>(across(height));
    g.base[t] = static_cast<int32_t>(cells);
    cells += int64_t{g.nx[t]} * g.ny[t];
  }
  g.base[kTiers] = static_cast<int32_t>(cells);
  return g;
}

// A newcomer searched by one thread (small_kernel): a finite position and an axis of at most
// kZoneSmallAxis. The others (large_kernel) are compared with every object before them.
__device__ bool small_point(const Point& p) {
  return isfinite(p.x) && isfinite(p.y) && p.a <= kZoneSmallAxis;  // false for a NaN axis
}

// An object's tier, or -1 for one in no grid (a position that is not finite, an axis above the
// last tier's or NaN): every small newcomer reads those from their own list.
__device__ int tier_of(const Point& p) {
  if (!isfinite(p.x) || !isfinite(p.y)) return -1;
  const int t = zone_tier_of_axis(p.a);
  return t < kTiers ? t : -1;
}

// Per object: its cell counted, or its index appended to those in no grid; its index appended
// to the large ones when it is not small; its y for the prefix maximum (below), -inf when in no
// grid.
__global__ void bin_kernel(const Point* points, int64_t n, Tiers g, int32_t* cell_count,
                           int32_t* cell_of, int32_t* large, int32_t* nlarge, int32_t* unbinned,
                           int32_t* nunbinned, double* binned_y) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Point p = points[i];
  if (!small_point(p)) large[atomicAdd(nlarge, 1)] = static_cast<int32_t>(i);
  const int t = tier_of(p);
  if (t < 0) {
    cell_of[i] = -1;
    binned_y[i] = -INFINITY;
    // Only the first kZoneMaxLarge are read (each one is also large, and past that many the
    // search is abandoned): the list holds no more.
    const int32_t k = atomicAdd(nunbinned, 1);
    if (k < kZoneMaxLarge) unbinned[k] = static_cast<int32_t>(i);
    return;
  }
  const int32_t c = g.base[t] + g.cy(t, p.y) * g.nx[t] + g.cx(t, p.x);
  cell_of[i] = c;
  binned_y[i] = p.y;
  atomicAdd(&cell_count[c], 1);
}

// The larger of two ys (CUB's exclusive scan of binned_y: below[i], the largest y of the binned
// objects before i).
struct Larger {
  __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

__global__ void scatter_kernel(const Point* points, int64_t n, const int32_t* cell_of,
                               int32_t* cell_fill, Point* binned) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || cell_of[i] < 0) return;
  binned[atomicAdd(&cell_fill[cell_of[i]], 1)] = points[i];
}

struct SearchArgs {
  const Point* points;
  int64_t first, n;  // the newcomers first .. n - 1 search points[0 .. n)
  Tiers g;
  const int32_t* cell_start;  // g.base[kTiers] + 1
  const Point* binned;
  // below[i]: the largest y of the binned objects before i (-inf: none). Objects come in
  // detection order, so this bounds a newcomer's search to the rows above about its own last
  // row (the host's tiers alike).
  const double* below;
  const int32_t* large;
  const int32_t* unbinned;
  // The large objects' count (and those in no grid, among them), on the device: read by the
  // kernels, so that the host learns it with the neighbours' count (one wait, not two). Past
  // kZoneMaxLarge the search is abandoned (clean_zones_gpu returns false), and the kernels look
  // at no more than that many meanwhile.
  const int32_t* nlarge;
  const int32_t* nunbinned;
  __device__ int32_t large_count() const {
    return min(*nlarge, static_cast<int32_t>(kZoneMaxLarge));
  }
  __device__ int32_t unbinned_count() const {
    return min(*nunbinned, static_cast<int32_t>(kZoneMaxLarge));
  }
};

// Calls f(j) for each j < i within the clean zone of small object i, in no particular order.
template <class F>
__device__ void each_neighbour(const SearchArgs& a, const Point& s, int64_t i, F&& f) {
  auto consider = [&](const Point& p) {
    if (p.index < i && in_clean_zone(s.x, s.y, s.a, p.x, p.y, p.a)) f(p.index);
  };
  const int32_t nu = a.unbinned_count();
  for (int32_t k = 0; k < nu; ++k) consider(a.points[a.unbinned[k]]);
  const double below = a.below[i];
  if (!(below > -INFINITY)) return;  // no binned object before i
  for (int t = 0; t < kTiers; ++t) {
    const int32_t b = a.g.base[t];
    if (a.cell_start[b] == a.cell_start[a.g.base[t + 1]]) continue;  // an empty tier
    // Out to the zone of the tier's largest member, plus a pixel for the float rounding of the
    // zone test (as the host's tiers).
    const double r = (s.a + zone_tier_max(t)) * kCleanZone + 1.0;
    const int32_t nx = a.g.nx[t];
    const int32_t x0 = a.g.cx(t, s.x - r), x1 = a.g.cx(t, s.x + r);
    const int32_t y0 = a.g.cy(t, s.y - r), y1 = a.g.cy(t, min(s.y + r, below));
    for (int32_t cy = y0; cy <= y1; ++cy)
      for (int32_t k = a.cell_start[b + cy * nx + x0]; k < a.cell_start[b + cy * nx + x1 + 1]; ++k)
        consider(a.binned[k]);
  }
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

// CLEAN's decision for each pair of a newcomer's sorted neighbours, one thread per newcomer,
// and the newcomer's flags (ZonePairCodes): the host then reads no code of a newcomer whose
// codes are all certain.
__global__ void pairs_kernel(const CleanPairInput* input, int64_t first, int64_t nq,
                             const int64_t* offset, const uint32_t* neighbours, double beta,
                             uint8_t* codes, uint8_t* flags) {
  const int64_t z = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (z >= nq) return;
  const CleanPairInput in = input[first + z];
  uint8_t f = 0;
  for (int64_t k = offset[z]; k < offset[z + 1]; ++k) {
    const uint8_t code = clean_pair_sure(in, input[neighbours[k]], beta);
    codes[k] = code;
    f |= clean_pair_flag(code);
  }
  flags[z] = f;
}

// An object's point and, with `input`, what CLEAN's comparisons read of it (the host's
// clean_pair_input from CleanProfile, CLEAN_PARAM 1: no pow), from its shape and isophotal values.
__device__ void inputs_of(const Shape& s, const Iso& iso, int64_t i, Point* points,
                          CleanPairInput* input) {
  points[i] = {s.mx, s.my, static_cast<float>(s.a), static_cast<int32_t>(i)};
  if (!input) return;
  double amp = 0, alpha = 0;
  clean_profile_terms(
      static_cast<float>(s.a), static_cast<float>(s.b), s.flux, s.abcor, s.npix, iso.dthresh,
      [](double ratio) { return ratio; }, amp, alpha);
  input[i] = clean_pair_input_of(s, iso.mthresh, amp, alpha);
}

// Every object's, from the GPU shapes' columns on the device.
__global__ void inputs_kernel(const Shape* shapes, const Iso* isos, int64_t n, Point* points,
                              CleanPairInput* input) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) inputs_of(shapes[i], isos[i], i, points, input);
}

// Then those of the objects the host measured (their device columns unwritten): object
// index[k]'s from shapes[k] and isos[k].
__global__ void patch_kernel(const Shape* shapes, const Iso* isos, const int32_t* index,
                             int64_t count, Point* points, CleanPairInput* input) {
  const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count) inputs_of(shapes[k], isos[k], index[k], points, input);
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
  // nlarge: the large objects' count, then those in no grid.
  cuda::DeviceBuffer<int32_t> cell_count, cell_start, cell_of, large, unbinned, nlarge;
  cuda::DeviceBuffer<double> binned_y, below;
  cuda::DeviceBuffer<int64_t> count, offset;
  cuda::DeviceBuffer<uint32_t> neighbours, sorted;
  cuda::DeviceBuffer<unsigned char> cub;
  cuda::PinnedBuffer<Point> staged;
  cuda::PinnedBuffer<int64_t> total, host_offset;
  cuda::PinnedBuffer<uint32_t> host_neighbours;
  // The pairs' decisions: the objects' inputs and each pair's code.
  cuda::DeviceBuffer<CleanPairInput> pair_input;
  cuda::PinnedBuffer<CleanPairInput> staged_pair_input;
  cuda::DeviceBuffer<uint8_t> codes, flags;
  cuda::PinnedBuffer<uint8_t> host_codes, host_flags;
  // Whose points `points` holds (the caller's frame key, 0: none) and up to which object; up to
  // which object `pair_input` holds that frame's inputs.
  uint64_t points_of = 0;
  size_t points_upto = 0, pair_inputs_upto = 0;
  // ZonesAfterShapes: the objects the host measured, their shapes and isophotal values and
  // indexes (patch_kernel).
  cuda::PinnedBuffer<Shape> staged_patch_shapes;
  cuda::PinnedBuffer<Iso> staged_patch_isos;
  cuda::PinnedBuffer<int32_t> staged_patch_index;
  cuda::DeviceBuffer<Shape> patch_shapes;
  cuda::DeviceBuffer<Iso> patch_isos;
  cuda::DeviceBuffer<int32_t> patch_index;
};

std::shared_ptr<Context> take_context() {
  static cuda::ContextPool<Context>* pool = new cuda::ContextPool<Context>;
  return pool->take();
}

// The search's arguments and CUB's scratch sizes, between its two halves.
struct Search {
  SearchArgs args;
  int64_t nq = 0;  // newcomers
  size_t cell_scan = 0, count_scan = 0, below_scan = 0;
};

// The first half, with the points of objects 0 .. n - 1 on the device (c.points) and queued on
// `s`: the small objects binned in the grid of a width x height image, each newcomer's
// neighbours (objects first .. n - 1) counted and their offsets scanned; the neighbours' total
// comes back into c.total[0], the large objects' count into c.total[1]'s low bytes.
Search queue_count(Context& c, cudaStream_t s, int64_t first, int64_t n, int64_t width,
                   int64_t height) {
  const int64_t nq = n - first;
  const size_t nz = static_cast<size_t>(n), nqz = static_cast<size_t>(nq);
  const Tiers g = make_tiers(width, height);
  const size_t cells = static_cast<size_t>(g.base[kTiers]);
  int32_t* cell_count = c.cell_count.grow(cells + 1);
  int32_t* cell_start = c.cell_start.grow(cells + 1);
  int32_t* cell_of = c.cell_of.grow(nz);
  int32_t* large = c.large.grow(nz);
  int32_t* unbinned = c.unbinned.grow(nz);
  int32_t* nlarge = c.nlarge.grow(2);
  double* binned_y = c.binned_y.grow(nz);
  double* below = c.below.grow(nz);
  int64_t* count = c.count.grow(nqz + 1);
  int64_t* offset = c.offset.grow(nqz + 1);
  Point* binned = c.binned.grow(nz);
  Point* points = c.points.data();
  Search q;
  q.nq = nq;
  CELERIS_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, q.cell_scan, cell_count, cell_start, cells + 1));
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, q.count_scan, count, offset, nqz + 1));
  CELERIS_CUDA_CHECK(
      cub::DeviceScan::ExclusiveScan(nullptr, q.below_scan, binned_y, below, Larger{}, -kInf, n));
  void* tmp = c.cub.grow(std::max({q.cell_scan, q.count_scan, q.below_scan}));

  CELERIS_CUDA_CHECK(cudaMemsetAsync(cell_count, 0, (cells + 1) * sizeof(int32_t), s));
  CELERIS_CUDA_CHECK(cudaMemsetAsync(nlarge, 0, 2 * sizeof(int32_t), s));
  const unsigned blocks = cuda::blocks_for(n, kThreads);  // binning: every object
  bin_kernel<<<blocks, kThreads, 0, s>>>(points, n, g, cell_count, cell_of, large, nlarge, unbinned,
                                         nlarge + 1, binned_y);
  cuda::cuda_check_launch("bin_kernel");
  size_t bytes = q.below_scan;
  CELERIS_CUDA_CHECK(
      cub::DeviceScan::ExclusiveScan(tmp, bytes, binned_y, below, Larger{}, -kInf, n, s));
  bytes = q.cell_scan;
  CELERIS_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(tmp, bytes, cell_count, cell_start, cells + 1, s));
  // cell_count becomes each cell's fill position.
  CELERIS_CUDA_CHECK(cudaMemcpyAsync(cell_count, cell_start, (cells + 1) * sizeof(int32_t),
                                     cudaMemcpyDeviceToDevice, s));
  scatter_kernel<<<blocks, kThreads, 0, s>>>(points, n, cell_of, cell_count, binned);
  cuda::cuda_check_launch("scatter_kernel");
  int64_t* total = c.total.grow(2);

  q.args = SearchArgs{points, first, n,        g,      cell_start, binned,
                      below,  large, unbinned, nlarge, nlarge + 1};
  CELERIS_CUDA_CHECK(cudaMemsetAsync(count + nq, 0, sizeof(int64_t), s));
  search(q.args, count, nullptr, nullptr, s);
  bytes = q.count_scan;
  CELERIS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, count, offset, nqz + 1, s));
  CELERIS_CUDA_CHECK(
      cudaMemcpyAsync(total, offset + nq, sizeof(int64_t), cudaMemcpyDeviceToHost, s));
  // The large objects' count (an int32) into the low bytes of total[1], read as an int32 below.
  CELERIS_CUDA_CHECK(
      cudaMemcpyAsync(total + 1, nlarge, sizeof(int32_t), cudaMemcpyDeviceToHost, s));
  return q;
}

// Whether the counted search may go on: at most kZoneMaxLarge large objects (c.total back).
bool few_large(const Context& c) {
  return *reinterpret_cast<const int32_t*>(c.total.data() + 1) <= kZoneMaxLarge;
}

// The second half, once c.total is back (and few_large): each newcomer's neighbours listed and
// sorted, with `beta` their CLEAN decisions and the newcomers' flags (c.pair_input on the
// device), and the lists' (and codes' and flags') downloads queued into c's page-locked
// buffers. The neighbours' count.
int64_t queue_lists(Context& c, cudaStream_t s, const Search& q, const double* beta) {
  const int64_t m = c.total.data()[0], nq = q.nq;
  const size_t nqz = static_cast<size_t>(nq);
  int64_t* offset = c.offset.data();
  // Both lists come back through page-locked buffers (a download to pageable memory is staged
  // by the driver at a fraction of the bus's rate), then are copied into the vectors.
  int64_t* host_offset = c.host_offset.grow(nqz + 1);
  uint32_t* host_neighbours = c.host_neighbours.grow(static_cast<size_t>(std::max<int64_t>(m, 1)));
  if (m > 0) {
    const size_t mz = static_cast<size_t>(m);
    uint32_t* found = c.neighbours.grow(mz);
    uint32_t* sorted = c.sorted.grow(mz);
    search(q.args, nullptr, offset, found, s);
    size_t sort_bytes = 0;
    CELERIS_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, sort_bytes, found, sorted, m, nq,
                                                          offset, offset + 1));
    void* sort_tmp = c.cub.grow(std::max({q.cell_scan, q.count_scan, q.below_scan, sort_bytes}));
    CELERIS_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(sort_tmp, sort_bytes, found, sorted, m,
                                                          nq, offset, offset + 1, s));
    c.sorted.download_async(host_neighbours, mz, s);
  }
  if (beta) {  // also without pairs: each newcomer's flags (then 0)
    const size_t mz = static_cast<size_t>(std::max<int64_t>(m, 1));
    pairs_kernel<<<cuda::blocks_for(nq, kThreads), kThreads, 0, s>>>(
        c.pair_input.data(), q.args.first, nq, offset, c.sorted.grow(mz), *beta, c.codes.grow(mz),
        c.flags.grow(nqz));
    cuda::cuda_check_launch("pairs_kernel");
    if (m > 0) c.codes.download_async(c.host_codes.grow(mz), static_cast<size_t>(m), s);
    c.flags.download_async(c.host_flags.grow(nqz), nqz, s);
  }
  c.offset.download_async(host_offset, nqz + 1, s);
  return m;
}

// dst[0, count) = src[0, count) on `threads` threads (cuda::copy_in_slices: one thread copied a
// dense 4096^2 frame's 13 MB of lists and codes in about 2 ms on a slow host, stop 80).
template <class T>
void copy_parallel(const T* src, size_t count, T* dst, int threads) {
  cuda::copy_in_slices(dst, src, count * sizeof(T), std::max(threads, 1));
}

// Sizes `zones` and `codes` for nq newcomers and m neighbours (allocated and first touched
// while the device works, so that only copies are left after it).
void size_lists(size_t nq, int64_t m, bool pairs, CleanZones& zones, ZonePairCodes* codes) {
  zones.offset.resize(nq + 1);
  zones.neighbours.resize(static_cast<size_t>(m));
  if (codes) {
    codes->codes.resize(pairs ? static_cast<size_t>(m) : 0);
    codes->flags.resize(pairs ? nq : 0);
  }
}

// After the downloads: the lists (and, with `pairs`, the codes and flags) of newcomers first ..
// first + nq - 1 into `zones` and `codes` (size_lists), with `threads` threads.
void copy_lists(const Context& c, size_t first, size_t nq, int64_t m, bool pairs, CleanZones& zones,
                ZonePairCodes* codes, int threads) {
  const size_t mz = static_cast<size_t>(m);
  size_lists(nq, m, pairs, zones, codes);  // sized already: no change
  zones.first = first;
  copy_parallel(c.host_offset.data(), nq + 1, zones.offset.data(), threads);
  copy_parallel(c.host_neighbours.data(), mz, zones.neighbours.data(), threads);
  if (codes && pairs) {
    copy_parallel(c.host_codes.data(), mz, codes->codes.data(), threads);
    copy_parallel(c.host_flags.data(), nq, codes->flags.data(), threads);
  }
}

using Clock = std::chrono::steady_clock;

double since(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

bool clean_zones_gpu(const std::vector<Shape>& shapes, int64_t width, int64_t height, int threads,
                     CleanZones& zones, std::vector<std::pair<std::string, double>>* seconds) {
  return clean_zones_gpu(shapes, 0, shapes.size(), width, height, threads, zones, seconds);
}

bool clean_zones_gpu(const std::vector<Shape>& shapes, size_t begin, size_t end, int64_t width,
                     int64_t height, int threads, CleanZones& zones,
                     std::vector<std::pair<std::string, double>>* seconds,
                     const ZonePairsRequest* pairs, ZonePairCodes* codes, uint64_t frame) {
  if (pairs && !codes) throw Error("internal: clean_zones_gpu asked for pairs without codes");
  cuda::cuda_require_device("--device cuda");
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
    if (codes) *codes = ZonePairCodes{};
    return true;
  }
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
  c.points.grow(all);
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

  const Search q = queue_count(c, s, first, n, width, height);
  c.stream.synchronize();
  const auto t_counted = Clock::now();
  if (!few_large(c)) return false;
  const int64_t m = queue_lists(c, s, q, pairs ? &pairs->beta : nullptr);
  size_lists(static_cast<size_t>(nq), m, pairs != nullptr, zones, codes);
  c.stream.synchronize();
  const auto t_back = Clock::now();
  copy_lists(c, begin, static_cast<size_t>(nq), m, pairs != nullptr, zones, codes, threads);
  if (seconds) {
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

// ZonesAfterShapes: a context held from count() to collect().
struct ZonesAfterShapes::State {
  int64_t width, height;
  double beta;
  bool decide;
  std::shared_ptr<Context> context;
  Search search;
  size_t objects = 0;
  bool counted = false, listed = false, too_many_large = false;
  int64_t m = 0;
  double queue_seconds = 0, count_wait_seconds = 0;
};

ZonesAfterShapes::ZonesAfterShapes(int64_t width, int64_t height, double beta, bool decide)
    : state_(std::make_unique<State>()) {
  state_->width = width;
  state_->height = height;
  state_->beta = beta;
  state_->decide = decide;
}

ZonesAfterShapes::~ZonesAfterShapes() {
  // Nothing of this frame's may still be queued on the context when it goes back to the pool
  // for another caller: its buffers are overwritten from then on.
  if (state_->context) cudaStreamSynchronize(state_->context->stream.get());
}

void ZonesAfterShapes::count(cudaEvent_t ready, const Shape* shapes, const Iso* isos, size_t n,
                             const std::vector<size_t>& host, const std::vector<Shape>& host_shapes,
                             const std::vector<Iso>& host_isos) {
  State& z = *state_;
  if (z.counted) throw Error("internal: ZonesAfterShapes::count called twice");
  const auto t0 = Clock::now();
  z.objects = n;
  z.counted = true;
  if (n == 0) return;  // no context taken: collect gives no zones
  z.context = take_context();
  Context& c = *z.context;
  const cudaStream_t s = c.stream.get();
  c.points_of = 0;  // not a chunked frame's points
  c.points_upto = c.pair_inputs_upto = 0;
  Point* points = c.points.grow(n);
  CleanPairInput* input = z.decide ? c.pair_input.grow(n) : nullptr;
  const size_t np = host.size();
  if (np > 0) {  // staged while the shapes' kernels run
    Shape* ps = c.staged_patch_shapes.grow(np);
    Iso* pi = c.staged_patch_isos.grow(np);
    int32_t* px = c.staged_patch_index.grow(np);
    for (size_t k = 0; k < np; ++k) {
      ps[k] = host_shapes[host[k]];
      pi[k] = host_isos[host[k]];
      px[k] = static_cast<int32_t>(host[k]);
    }
    c.patch_shapes.grow(np);
    c.patch_isos.grow(np);
    c.patch_index.grow(np);
    c.patch_shapes.upload_async(ps, np, s);
    c.patch_isos.upload_async(pi, np, s);
    c.patch_index.upload_async(px, np, s);
  }
  CELERIS_CUDA_CHECK(cudaStreamWaitEvent(s, ready, 0));
  const int64_t nn = static_cast<int64_t>(n);
  inputs_kernel<<<cuda::blocks_for(nn, kThreads), kThreads, 0, s>>>(shapes, isos, nn, points,
                                                                    input);
  cuda::cuda_check_launch("inputs_kernel");
  if (np > 0) {
    patch_kernel<<<cuda::blocks_for(static_cast<int64_t>(np), kThreads), kThreads, 0, s>>>(
        c.patch_shapes.data(), c.patch_isos.data(), c.patch_index.data(), static_cast<int64_t>(np),
        points, input);
    cuda::cuda_check_launch("patch_kernel");
  }
  z.search = queue_count(c, s, 0, nn, z.width, z.height);
  z.queue_seconds = since(t0, Clock::now());
}

void ZonesAfterShapes::list() {
  State& z = *state_;
  if (!z.counted || z.listed) throw Error("internal: ZonesAfterShapes::list out of turn");
  z.listed = true;
  if (z.objects == 0) return;
  const auto t0 = Clock::now();
  Context& c = *z.context;
  c.stream.synchronize();
  z.count_wait_seconds = since(t0, Clock::now());
  if (!few_large(c)) {
    z.too_many_large = true;
    z.context.reset();
    return;
  }
  z.m = queue_lists(c, c.stream.get(), z.search, z.decide ? &z.beta : nullptr);
}

bool ZonesAfterShapes::collect(size_t n, CleanZones& zones, ZonePairCodes* codes,
                               std::vector<std::pair<std::string, double>>* seconds) {
  State& z = *state_;
  if (n == 0) {  // no objects (the shapes' call queued nothing): no zones
    zones.first = 0;
    zones.offset.assign(1, 0);
    zones.neighbours.clear();
    if (codes) *codes = ZonePairCodes{};
    return true;
  }
  // Listed here when the caller has not (the pipeline: the host's theta, isophotal columns and
  // clean profiles run while the device counts, instead of waiting for the counts in between).
  if (z.counted && !z.listed && n == z.objects) list();
  if (!z.listed || n != z.objects || z.too_many_large) return false;
  const auto t0 = Clock::now();
  size_lists(n, z.m, z.decide, zones, codes);
  z.context->stream.synchronize();
  // One thread: no caller gives this call a team size (a new team must have the frame's).
  copy_lists(*z.context, 0, n, z.m, z.decide, zones, codes, 1);
  z.context.reset();  // back to the pool for the next caller (a stream's other frames)
  if (seconds) {
    seconds->emplace_back("gpu zones after the shapes: queued", z.queue_seconds);
    seconds->emplace_back("gpu zones after the shapes: wait for the counts", z.count_wait_seconds);
    seconds->emplace_back("gpu zones after the shapes: wait for the lists, copies",
                          since(t0, Clock::now()));
  }
  return true;
}

std::shared_ptr<ZonesAfterShapes> zones_after_shapes(int64_t width, int64_t height, double beta,
                                                     bool decide) {
  cuda::cuda_require_device("--device cuda");
  if (decide && beta != 1.0)
    throw Error("internal: zones_after_shapes decides CLEAN's pairs only with CLEAN_PARAM 1");
  return std::make_shared<ZonesAfterShapes>(width, height, beta, decide);
}

bool collect_zones(ZonesAfterShapes& z, size_t n, CleanZones& zones, ZonePairCodes* codes,
                   std::vector<std::pair<std::string, double>>* seconds) {
  return z.collect(n, zones, codes, seconds);
}

}  // namespace celeris::extract::gpu
