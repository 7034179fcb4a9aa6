// Phases 1-3 of the cross-match on one GPU (paper, section IV).
//   index: pixel of every right row, CUB radix sort of (pixel, row) on the pixel's bits only,
//          gather of the vectors into pixel order, then a pixel histogram at a "directory" order
//          (the index order, or a coarser one when 12 * 4^order cells would not fit in 16 bytes
//          per row) prefix-summed into the first sorted entry of every cell, so that a pixel's
//          entries are found with one lookup (plus a short binary search inside a coarser cell)
//          instead of a binary search over the whole index;
//   join:  one thread per left row, the left rows taken in pixel order (sorted like the right
//          side, or the same order in a self-match) so that the threads of a warp read the same
//          few pixels; the same healpix.hpp search as the CPU (pixel + 8 neighbours, or the
//          inclusive disc query) and the exact chord test; two passes, count and write, with a
//          prefix sum of the counts per left row in input order between them, so the pairs land
//          grouped by left row in input order; each thread sorts its own row's pairs by right row
//          (a handful), so no global sort of the pairs is needed.
// Compiled with -fmad=false: chords and pixels are bit-identical to the CPU join's, so the pair
// sets are equal.
#include <cuda_runtime.h>

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <string>
#include <thread>
#include <vector>

#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/scratch_pool.hpp"
#include "core/cuda/stream.hpp"
#include "join_cuda.hpp"

namespace celeris::xmatch::detail {

namespace hp = celeris::healpix;

namespace {

constexpr double kArcsec = hp::pi / (180.0 * 3600.0);
constexpr int kBlock = 256;

using cuda::cuda_check;
using cuda::cuda_check_launch;
template <class T>
using DeviceArray = cuda::DeviceBuffer<T>;

unsigned grid_for(size_t n) {
  return unsigned((n + kBlock - 1) / kBlock);
}

// Launch: one thread per row. Traffic: reads 16 B, writes 24 B per row. The same radec2vec as
// the CPU join; the device's sin/cos may differ from glibc's in the last bit.
__global__ void vector_kernel(const double* ra, const double* dec, size_t n, hp::Vec3* v) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) v[k] = hp::radec2vec(ra[k], dec[k]);
}

// Launch: one thread per row. Traffic: reads 24 B, writes 12 B per row.
__global__ void pixel_kernel(const hp::Vec3* v, size_t n, int order, uint64_t* pix, uint32_t* row) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  pix[k] = uint64_t(hp::vec2pix_nest(order, v[k]));
  row[k] = uint32_t(k);
}

// Launch: one thread per sorted entry. Traffic: reads 4 + 24 B (random), writes 24 B.
__global__ void gather_kernel(const hp::Vec3* v, const uint32_t* row, size_t n, hp::Vec3* out) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) out[k] = v[row[k]];
}

// Launch: one thread per sorted entry; counts[c] += 1 for its directory cell c.
__global__ void histogram_kernel(const uint64_t* pix, size_t n, int shift, uint32_t* counts) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) atomicAdd(&counts[pix[k] >> shift], 1u);
}

// The right side sorted by pixel, and where each directory cell starts.
struct IndexView {
  const uint64_t* pix;  // sorted pixels at `order`
  const uint32_t* row;  // input row of each sorted entry
  const hp::Vec3* vec;  // vectors in sorted order
  size_t n;
  const uint32_t* dir;  // dir[c]: first sorted entry with pix >> shift >= c; dir[ncells] = n
  uint64_t ncells;
  int shift;  // 2 * (order - directory order)
};

// First sorted entry with pixel >= p (n when none), for any p in [0, npix(order)].
__device__ size_t locate(const IndexView& ix, uint64_t p) {
  const uint64_t c = p >> ix.shift;
  if (c >= ix.ncells) return ix.n;
  size_t lo = ix.dir[c], hi = ix.dir[c + 1];
  if (ix.shift == 0 || (p & ((uint64_t(1) << ix.shift) - 1)) == 0) return lo;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (ix.pix[mid] < p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

struct JoinArgs {
  IndexView ix;
  const hp::Vec3* lvec;  // left vectors in the order threads take them (pixel order)
  const uint32_t* lrow;  // input row of each
  size_t nl;
  int order;
  bool neighbours;
  bool self;
  double lim2;
};

// The candidate loop shared by the join and the counting kernel: calls refine(b, e) for every
// range [b, e) of sorted index entries that may hold right rows within the radius of v (the
// pixel and its neighbours, each once, or the inclusive disc query's ranges).
template <class Refine>
__device__ void for_each_candidate(const JoinArgs& a, const hp::DiscPlan& plan, const hp::Vec3& v,
                                   Refine&& refine) {
  if (a.neighbours) {
    int64_t cand[9];
    cand[0] = hp::vec2pix_nest(a.order, v);
    hp::neighbours_nest(a.order, cand[0], cand + 1);
    for (int q = 0; q < 9; ++q) {
      if (cand[q] < 0) continue;
      bool dup = false;
      for (int r = 0; r < q; ++r) dup |= cand[r] == cand[q];
      if (dup) continue;
      const uint64_t p = uint64_t(cand[q]);
      refine(locate(a.ix, p), locate(a.ix, p + 1));
    }
  } else {
    hp::query_disc_nest(plan, v, [&](int64_t pb, int64_t pe) {
      refine(locate(a.ix, uint64_t(pb)), locate(a.ix, uint64_t(pe)));
    });
  }
}

// Launch: one thread per left row (in pixel order), kBlock per block. Traffic: per row the
// candidates' vectors (24 B each, shared by the warp's neighbouring rows through L1) and one or
// two directory reads per searched pixel. Guarantees: Write = false: counts[i] = pairs of left
// row i; Write = true: those pairs at [offsets[i], offsets[i + 1]), sorted by right row.
template <bool Write>
__global__ void join_kernel(JoinArgs a, hp::DiscPlan plan, uint64_t* counts,
                            const uint64_t* offsets, uint32_t* out_j, double* out_sep,
                            uint32_t row_lo = 0, uint32_t row_hi = 0xffffffffu) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t >= a.nl) return;
  const uint32_t i = a.lrow[t];
  if (i < row_lo || i >= row_hi) return;  // a batch of the writing pass: left rows [lo, hi)
  const hp::Vec3 v = a.lvec[t];
  const uint64_t begin = Write ? offsets[i] : 0;
  uint64_t pos = begin;
  for_each_candidate(a, plan, v, [&](size_t b, size_t e) {
    for (size_t k = b; k < e; ++k) {
      const double c2 = hp::chord2(v, a.ix.vec[k]);
      if (c2 <= a.lim2) {
        const uint32_t j = a.ix.row[k];
        if (a.self && j <= i) continue;
        if (Write) {
          out_j[pos] = j;
          out_sep[pos] = hp::angle_of_chord2(c2) / kArcsec;
        }
        ++pos;
      }
    }
  });
  if constexpr (!Write) {
    counts[i] = pos;
  } else {
    // Insertion sort of this row's pairs by right row: candidates come pixel by pixel, each
    // pixel's rows ascending (stable sort), so this merges a few short sorted runs.
    for (uint64_t k = begin + 1; k < pos; ++k) {
      const uint32_t j = out_j[k];
      const double s = out_sep[k];
      uint64_t m = k;
      for (; m > begin && out_j[m - 1] > j; --m) {
        out_j[m] = out_j[m - 1];
        out_sep[m] = out_sep[m - 1];
      }
      out_j[m] = j;
      out_sep[m] = s;
    }
  }
}

// Bins held in a block's shared memory by the counting kernel (32 KB); more go straight to
// global atomics.
constexpr int kSharedBins = 4096;

// Launch: one thread per left row (in pixel order), kBlock per block, kSharedBins * 8 B of shared
// memory when the histogram fits there. Traffic: the join's candidate reads; per pair one read of
// the right row's id and one shared-memory atomic (one global atomic per bin per block at the
// end). Guarantees: hist[b] += the pairs of bin b, a pair being a left row t whose id lies in
// [lo, hi) and a right row k with chord2 <= lim2, its bin the number of starts <= chord2
// (count_bins.hpp: the host's bin of the host's separation). An id is lid[t] / rid[k], or the
// row's input index (a.lrow[t] / a.ix.row[k]) when those are null. Writes no pairs.
// When a.self, each pair of distinct rows once: with `same` (the left rows are the index's own
// entries, t an index position) the pairs with k > t, so a thread skips the candidates before
// its own entry and half the chord tests of a self-match are not made; the index is sorted
// stably by pixel, so k > t is the order (pixel, input index), the same in every run of a
// sorted catalog, and each pair counts in exactly one run. Else the pairs with id(k) > id(t).
__global__ void count_kernel(JoinArgs a, hp::DiscPlan plan, bool same, const int64_t* lid,
                             const int64_t* rid, int64_t lo, int64_t hi, const double* starts,
                             int nstarts, unsigned long long* hist) {
  extern __shared__ unsigned long long local[];
  const bool in_shared = nstarts < kSharedBins;
  if (in_shared)
    for (int b = threadIdx.x; b <= nstarts; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const bool row = t < a.nl;
  const int64_t i = row ? (lid ? lid[t] : int64_t(a.lrow[t])) : 0;
  if (row && i >= lo && i < hi) {
    const hp::Vec3 v = a.lvec[t];
    unsigned long long* h = in_shared ? local : hist;
    const bool after_t = a.self && same;
    const bool by_id = a.self && !same;
    for_each_candidate(a, plan, v, [&](size_t b, size_t e) {
      for (size_t k = after_t && b <= t ? t + 1 : b; k < e; ++k) {
        const double c2 = hp::chord2(v, a.ix.vec[k]);
        if (c2 > a.lim2 || (by_id && (rid ? rid[k] : int64_t(a.ix.row[k])) <= i)) continue;
        int lo_bin = 0, hi_bin = nstarts;  // number of starts <= c2
        while (lo_bin < hi_bin) {
          const int mid = (lo_bin + hi_bin) / 2;
          if (starts[mid] <= c2)
            lo_bin = mid + 1;
          else
            hi_bin = mid;
        }
        atomicAdd(&h[lo_bin], 1ull);
      }
    });
  }
  if (!in_shared) return;
  __syncthreads();
  for (int b = threadIdx.x; b <= nstarts; b += blockDim.x)
    if (local[b]) atomicAdd(&hist[b], local[b]);
}

// Launch: one thread per sorted entry. out[k] = the id of sorted entry k's row: in[row[k]], or
// row[k] itself when there are no ids (in == nullptr).
__global__ void ids_kernel(const int64_t* in, const uint32_t* row, size_t n, int64_t* out) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) out[k] = in ? in[row[k]] : int64_t(row[k]);
}

// Sorted (pixel, row) of `v`, with the vectors gathered into that order.
struct Sorted {
  DeviceArray<uint64_t> pix;
  DeviceArray<uint32_t> row;
  DeviceArray<hp::Vec3> vec;
  explicit Sorted(size_t n) : pix(n), row(n), vec(n) {}
};

// CUB's temporary storage comes from `scratch` (kept for the next sort or scan).
void sort_by_pixel(const hp::Vec3* d_v, size_t n, int order, Sorted& s,
                   cuda::ScratchPool& scratch) {
  DeviceArray<uint64_t> pix_in(n);
  DeviceArray<uint32_t> row_in(n);
  pixel_kernel<<<grid_for(n), kBlock>>>(d_v, n, order, pix_in.data(), row_in.data());
  cuda_check_launch("pixel kernel");
  // Sort on the pixel's bits only: npix(order) - 1 < 2^(4 + 2 order).
  const int end_bit = 4 + 2 * order;
  size_t temp_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, pix_in.data(), s.pix.data(),
                                             row_in.data(), s.row.data(), n, 0, end_bit),
             "radix sort size");
  cuda_check(
      cub::DeviceRadixSort::SortPairs(scratch.acquire(temp_bytes), temp_bytes, pix_in.data(),
                                      s.pix.data(), row_in.data(), s.row.data(), n, 0, end_bit),
      "radix sort");
  gather_kernel<<<grid_for(n), kBlock>>>(d_v, s.row.data(), n, s.vec.data());
  cuda_check_launch("gather kernel");
}

// Directory order: the index order when its 12 * 4^order cells (4 B each) cost at most 16 B per
// row (or 4 MB), else the deepest coarser order that does.
int directory_order(int order, size_t n) {
  const uint64_t budget = std::max<uint64_t>(uint64_t(1) << 20, 4 * uint64_t(n));
  int c = order;
  while (c > 0 && uint64_t(hp::npix(c)) + 1 > budget) --c;
  return c;
}

// The sorted right rows' cell directory, for the join and the count alike: cells of order
// directory_order(order, nr); dir[c] is the first right row of cell c (an exclusive scan of the
// cells' row counts), dir[ncells] = nr.
struct CellDirectory {
  DeviceArray<uint32_t> dir;
  uint64_t ncells = 0;
  int shift = 0;  // a row's pixel >> shift is its cell
};

CellDirectory cell_directory(const uint64_t* sorted_pix, size_t nr, int order,
                             cuda::ScratchPool& scratch) {
  CellDirectory d;
  const int dorder = directory_order(order, nr);
  d.ncells = uint64_t(hp::npix(dorder));
  d.shift = 2 * (order - dorder);
  d.dir = DeviceArray<uint32_t>(d.ncells + 1);
  DeviceArray<uint32_t> counts(d.ncells + 1);
  cuda_check(cudaMemset(counts.data(), 0, (d.ncells + 1) * sizeof(uint32_t)), "memset");
  histogram_kernel<<<grid_for(nr), kBlock>>>(sorted_pix, nr, d.shift, counts.data());
  cuda_check_launch("histogram kernel");
  size_t temp_bytes = 0;
  cuda_check(
      cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts.data(), d.dir.data(), d.ncells + 1),
      "scan size");
  cuda_check(cub::DeviceScan::ExclusiveSum(scratch.acquire(temp_bytes), temp_bytes, counts.data(),
                                           d.dir.data(), d.ncells + 1),
             "directory scan");
  return d;
}

// The kernels' arguments for the right side `rs` (indexed by `cells`) against the left side `l`
// (`rs` itself in a self-match): what the join and the count share.
JoinArgs join_args(const Sorted& rs, const CellDirectory& cells, const Sorted& l, size_t nl,
                   int order, bool neighbours, bool self, double radius_rad) {
  return JoinArgs{IndexView{rs.pix.data(), rs.row.data(), rs.vec.data(), rs.pix.size(),
                            cells.dir.data(), cells.ncells, cells.shift},
                  l.vec.data(),
                  l.row.data(),
                  nl,
                  order,
                  neighbours,
                  self,
                  hp::chord2_of_angle(radius_rad)};
}

}  // namespace

namespace {

// Pageable memory faulted in by all cores at once (2 MB pages where allowed): one thread
// faulting in gigabytes page by page costs about a second.
void* touched_alloc(size_t bytes) {
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t size = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, size);
  if (!p) throw Error("CUDA xmatch: out of host memory for the pairs");
  madvise(p, size, MADV_HUGEPAGE);
  const size_t nt = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  const size_t slice = (size / kHuge + nt - 1) / nt * kHuge;
  std::vector<std::thread> threads;
  for (size_t t = 0; t < nt && t * slice < size; ++t)
    threads.emplace_back([=] {
      std::memset(static_cast<char*>(p) + t * slice, 0, std::min(slice, size - t * slice));
    });
  for (auto& th : threads) th.join();
  return p;
}

}  // namespace

template <class T>
void HostArray<T>::resize(size_t n, HostMemory kind) {
  if (n > cap_ || kind != kind_) {
    release();
    kind_ = kind;
    if (n > 0) {
      if (kind == HostMemory::Pinned) {
        cuda_check(
            cudaHostAlloc(reinterpret_cast<void**>(&p_), n * sizeof(T), cudaHostAllocDefault),
            "cudaHostAlloc");
      } else {
        p_ = static_cast<T*>(touched_alloc(n * sizeof(T)));
        if (kind == HostMemory::Registered) {
          const cudaError_t e = cudaHostRegister(p_, n * sizeof(T), cudaHostRegisterDefault);
          if (e != cudaSuccess) {
            std::free(p_);
            p_ = nullptr;
            cuda_check(e, "cudaHostRegister");
          }
        }
      }
    }
    cap_ = n;
  }
  n_ = n;
}

template <class T>
void HostArray<T>::release() {
  if (p_) {
    if (kind_ == HostMemory::Pinned) {
      cudaFreeHost(p_);
    } else {
      if (kind_ == HostMemory::Registered) cudaHostUnregister(p_);
      std::free(p_);
    }
  }
  p_ = nullptr;
  n_ = cap_ = 0;
}

template class HostArray<uint64_t>;
template class HostArray<uint32_t>;
template class HostArray<double>;

size_t cuda_free_bytes() {
  size_t free = 0, total = 0;
  CELERIS_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

// The unit vectors of `p` on the device (ra, dec uploaded, vectors computed there).
void upload_vectors(const SkyPoints& p, DeviceArray<hp::Vec3>& v) {
  const size_t n = p.size();
  DeviceArray<double> ra(n), dec(n);
  ra.upload(p.ra.data(), n);
  dec.upload(p.dec.data(), n);
  vector_kernel<<<grid_for(n), kBlock>>>(ra.data(), dec.data(), n, v.data());
  cuda_check_launch("vector kernel");
}

// The result's host arrays for nl left rows and `total` pairs (timed: out.times.host_alloc).
void allocate_host(CudaPairs& out, size_t nl, uint64_t total, HostMemory memory) {
  const auto h0 = std::chrono::steady_clock::now();
  out.offsets.resize(nl + 1, memory);
  out.j.resize(total, memory);
  out.sep_arcsec.resize(total, memory);
  out.times.host_alloc =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count();
}

// The writing pass in `batches` ranges of left rows, each batch's pairs (contiguous: offsets
// are by left row) downloaded on a second stream while the next batch is written. The offsets go
// first, on the copy stream while batch 0 is written; the batch boundaries are read from them on
// the host. The next batch is launched before the current one's copies are queued, so that the
// copies overlap it even into pageable host memory (where cudaMemcpyAsync returns only when done).
void write_and_download_batched(const JoinArgs& a, const hp::DiscPlan& plan, size_t nl,
                                const uint64_t* d_off, uint32_t* d_j, double* d_sep, uint64_t total,
                                int batches, HostMemory memory, cuda::EventTimer& ev,
                                CudaPairs& out) {
  cuda::Stream copy;
  // batches written, then the offsets (made on the default stream) ready for the copy stream
  std::vector<cuda::Event> written;
  for (int b = 0; b <= batches; ++b) written.emplace_back(false);
  cuda::Event& scanned = written.back();
  scanned.record();
  std::vector<uint32_t> rows(size_t(batches) + 1);
  for (int b = 0; b <= batches; ++b) rows[b] = uint32_t(nl * size_t(b) / size_t(batches));
  auto launch = [&](int b) {
    join_kernel<true>
        <<<grid_for(nl), kBlock>>>(a, plan, nullptr, d_off, d_j, d_sep, rows[b], rows[b + 1]);
    cuda_check_launch("write kernel");
    written[b].record();
  };
  launch(0);
  allocate_host(out, nl, total, memory);
  ev.mark(5);
  copy.wait(scanned);
  cuda_check(cudaMemcpyAsync(out.offsets.data(), d_off, (nl + 1) * sizeof(uint64_t),
                             cudaMemcpyDeviceToHost, copy),
             "offsets download");
  copy.synchronize();
  ev.mark(6);
  for (int b = 0; b < batches; ++b) {
    if (b + 1 < batches) launch(b + 1);
    copy.wait(written[b]);
    const uint64_t k0 = out.offsets[rows[b]], n = out.offsets[rows[b + 1]] - k0;
    if (n == 0) continue;
    cuda_check(cudaMemcpyAsync(out.j.data() + k0, d_j + k0, n * sizeof(uint32_t),
                               cudaMemcpyDeviceToHost, copy),
               "pairs download");
    cuda_check(cudaMemcpyAsync(out.sep_arcsec.data() + k0, d_sep + k0, n * sizeof(double),
                               cudaMemcpyDeviceToHost, copy),
               "pairs download");
  }
  copy.synchronize();
}

void join_cuda_columns(const SkyPoints& left, const SkyPoints& right, int order, bool neighbours,
                       double radius_rad, bool self, HostMemory memory, CudaPairs& out,
                       int batches) {
  const size_t nl = left.size(), nr = right.size();
  if (nl >= (uint64_t(1) << 32) || nr >= (uint64_t(1) << 32))
    throw Error("CUDA xmatch: more than 2^32 - 1 rows on one side");
  out.times = CudaTimes{};
  if (nl == 0 || nr == 0) {
    out.offsets.resize(nl + 1, memory);
    for (size_t k = 0; k <= nl; ++k) out.offsets[k] = 0;
    out.j.resize(0, memory);
    out.sep_arcsec.resize(0, memory);
    return;
  }
  cuda::EventTimer ev(8);
  ev.mark(0);
  // Upload RA/Dec, unit vectors on the device. In a self-match the left side is the right side.
  DeviceArray<hp::Vec3> d_right(nr);
  upload_vectors(right, d_right);
  DeviceArray<hp::Vec3> d_left(self ? 0 : nl);
  if (!self) upload_vectors(left, d_left);
  ev.mark(1);

  // Phase 1: index the right side; sort the left side the same way for locality. The sorts'
  // and scans' temporary storage is one scratch block, given back before the pairs are allocated.
  cuda::ScratchPool scratch;
  Sorted rs(nr);
  sort_by_pixel(d_right.data(), nr, order, rs, scratch);
  Sorted ls(self ? 0 : nl);
  if (!self) sort_by_pixel(d_left.data(), nl, order, ls, scratch);
  const CellDirectory cells = cell_directory(rs.pix.data(), nr, order, scratch);
  ev.mark(2);

  // Phases 2+3: count, scan, write.
  const JoinArgs a = join_args(rs, cells, self ? rs : ls, nl, order, neighbours, self, radius_rad);
  const hp::DiscPlan plan = hp::make_disc_plan(order, radius_rad);
  DeviceArray<uint64_t> d_count(nl + 1), d_off(nl + 1);
  cuda_check(cudaMemset(d_count.data() + nl, 0, sizeof(uint64_t)), "memset");
  join_kernel<false><<<grid_for(nl), kBlock>>>(a, plan, d_count.data(), nullptr, nullptr, nullptr);
  cuda_check_launch("count kernel");
  ev.mark(3);
  size_t temp_bytes = 0;
  cuda_check(
      cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_count.data(), d_off.data(), nl + 1),
      "scan size");
  cuda_check(cub::DeviceScan::ExclusiveSum(scratch.acquire(temp_bytes), temp_bytes, d_count.data(),
                                           d_off.data(), nl + 1),
             "count scan");
  uint64_t total = 0;
  d_off.download(&total, 1, nl);
  scratch.release();
  ev.mark(4);
  DeviceArray<uint32_t> d_j(total);
  DeviceArray<double> d_sep(total);
  if (batches > 1 && nl >= size_t(batches)) {
    write_and_download_batched(a, plan, nl, d_off.data(), d_j.data(), d_sep.data(), total, batches,
                               memory, ev, out);
  } else {
    join_kernel<true>
        <<<grid_for(nl), kBlock>>>(a, plan, nullptr, d_off.data(), d_j.data(), d_sep.data());
    cuda_check_launch("write kernel");
    ev.mark(5);
    // The host arrays are allocated while the write kernel runs.
    allocate_host(out, nl, total, memory);
    ev.mark(6);
    d_off.download(out.offsets.data(), nl + 1);
    d_j.download(out.j.data(), total);
    d_sep.download(out.sep_arcsec.data(), total);
  }
  ev.mark(7);
  CELERIS_CUDA_CHECK(cudaDeviceSynchronize());
  out.times.upload = ev.ms(0, 1);
  out.times.index = ev.ms(1, 2);
  out.times.count = ev.ms(2, 3);
  out.times.scan = ev.ms(3, 4);
  out.times.write = ev.ms(4, 5);
  out.times.download = ev.ms(6, 7);
  out.times.write_download = ev.ms(4, 7);
}

namespace {

// A side's rows on the device in pixel order: the sorted index (pixels, rows, vectors) and each
// entry's id. The unsorted vectors and the uploaded ids are freed before returning.
struct SortedSide {
  Sorted s;
  DeviceArray<int64_t> id;
  explicit SortedSide(size_t n) : s(n), id(n) {}
};

void sort_side(const SkyPoints& p, const int64_t* ids, int order, SortedSide& out,
               cuda::ScratchPool& scratch) {
  const size_t n = p.size();
  {
    DeviceArray<hp::Vec3> v(n);
    upload_vectors(p, v);
    sort_by_pixel(v.data(), n, order, out.s, scratch);
  }
  DeviceArray<int64_t> in(ids ? n : 0);
  if (ids) in.upload(ids, n);
  ids_kernel<<<grid_for(n), kBlock>>>(ids ? in.data() : nullptr, out.s.row.data(), n,
                                      out.id.data());
  cuda_check_launch("ids kernel");
}

}  // namespace

namespace {

// Phases 2+3, counting only, over sides already indexed on the device: the right side `rs` (its
// ids `rid`, or null), the left side `ls` (null: the right side itself) with ids `lid`; only left
// rows whose id lies in [lo, hi) count.
void count_indexed(const Sorted& rs, const int64_t* rid, const Sorted* ls, const int64_t* lid,
                   size_t nl, int64_t lo, int64_t hi, bool self, int order, bool neighbours,
                   double radius_rad, const std::vector<double>& starts,
                   std::vector<uint64_t>& hist, cuda::ScratchPool& scratch) {
  const size_t nr = rs.pix.size();
  const CellDirectory cells = cell_directory(rs.pix.data(), nr, order, scratch);
  scratch.release();
  const Sorted& l = ls ? *ls : rs;
  const JoinArgs a = join_args(rs, cells, l, nl, order, neighbours, self, radius_rad);
  const hp::DiscPlan plan = hp::make_disc_plan(order, radius_rad);
  const int nstarts = int(starts.size());
  DeviceArray<double> d_starts(starts.size());
  if (!starts.empty()) d_starts.upload(starts.data(), starts.size());
  DeviceArray<unsigned long long> d_hist(hist.size());
  cuda_check(cudaMemset(d_hist.data(), 0, hist.size() * sizeof(unsigned long long)), "memset");
  const size_t shared =
      nstarts < kSharedBins ? (size_t(nstarts) + 1) * sizeof(unsigned long long) : 0;
  count_kernel<<<grid_for(nl), kBlock, shared>>>(a, plan, ls == nullptr, lid, rid, lo, hi,
                                                 d_starts.data(), nstarts, d_hist.data());
  cuda_check_launch("count kernel");
  std::vector<unsigned long long> h(hist.size());
  d_hist.download(h.data(), h.size());
  for (size_t b = 0; b < hist.size(); ++b) hist[b] += uint64_t(h[b]);
}

// The unit vectors of rows held as host ranges, each range uploaded straight from the host arrays
// into its place on the device (pageable copies: no host staging copy is made).
void upload_vectors(const HostRanges& p, DeviceArray<hp::Vec3>& v) {
  const size_t n = p.size();
  DeviceArray<double> ra(n), dec(n);
  size_t at = 0;
  for (const auto& [b, e] : p.ranges) {
    if (e <= b) continue;
    ra.upload(p.ra + b, e - b, at);
    dec.upload(p.dec + b, e - b, at);
    at += e - b;
  }
  vector_kernel<<<grid_for(n), kBlock>>>(ra.data(), dec.data(), n, v.data());
  cuda_check_launch("vector kernel");
}

void sort_ranges(const HostRanges& p, int order, Sorted& out, cuda::ScratchPool& scratch) {
  DeviceArray<hp::Vec3> v(p.size());
  upload_vectors(p, v);
  sort_by_pixel(v.data(), p.size(), order, out, scratch);
}

}  // namespace

void count_cuda(const SkyPoints* left, const int64_t* left_ids, const SkyPoints& right,
                const int64_t* right_ids, bool self, int order, bool neighbours, double radius_rad,
                const std::vector<double>& starts, std::vector<uint64_t>& hist,
                CudaCountTimes* times) {
  const size_t nr = right.size(), nl = left ? left->size() : nr;
  if (hist.size() != starts.size() + 1) throw Error("count_cuda: bins and edges differ");
  if (nl >= (uint64_t(1) << 32) || nr >= (uint64_t(1) << 32))
    throw Error("CUDA xmatch: more than 2^32 - 1 rows on one side");
  if (nl == 0 || nr == 0) return;
  cuda::EventTimer ev(4);
  ev.mark(0);
  // Phase 1 as in the join: the right side indexed; the left side in the same pixel order for
  // locality (or the right side itself when the left rows are the right rows).
  cuda::ScratchPool scratch;
  SortedSide rs(nr);
  sort_side(right, right_ids, order, rs, scratch);
  SortedSide ls(left ? nl : 0);
  if (left) sort_side(*left, left_ids, order, ls, scratch);
  ev.mark(1);
  count_indexed(rs.s, rs.id.data(), left ? &ls.s : nullptr, left ? ls.id.data() : rs.id.data(), nl,
                INT64_MIN, INT64_MAX, self, order, neighbours, radius_rad, starts, hist, scratch);
  ev.mark(2);
  CELERIS_CUDA_CHECK(cudaDeviceSynchronize());
  if (times) {
    times->index += ev.ms(0, 1);
    times->count += ev.ms(1, 2);
  }
}

void count_cuda_ranges(const HostRanges* left, const HostRanges& right, size_t self_lo,
                       size_t self_hi, int order, bool neighbours, double radius_rad,
                       const std::vector<double>& starts, std::vector<uint64_t>& hist,
                       CudaCountTimes* times) {
  const size_t nr = right.size(), nl = left ? left->size() : nr;
  if (hist.size() != starts.size() + 1) throw Error("count_cuda_ranges: bins and edges differ");
  if (nl >= (uint64_t(1) << 32) || nr >= (uint64_t(1) << 32))
    throw Error("CUDA xmatch: more than 2^32 - 1 rows on one side");
  if (!left && (self_lo > self_hi || self_hi > nr))
    throw Error("count_cuda_ranges: the left rows are not among the right rows");
  if (nl == 0 || nr == 0 || (!left && self_lo == self_hi)) return;
  cuda::EventTimer ev(4);
  ev.mark(0);
  cuda::ScratchPool scratch;
  Sorted rs(nr);
  sort_ranges(right, order, rs, scratch);
  Sorted ls(left ? nl : 0);
  if (left) sort_ranges(*left, order, ls, scratch);
  ev.mark(1);
  // Self: the ids are the rows' places among the uploaded right rows (their input index).
  count_indexed(rs, nullptr, left ? &ls : nullptr, nullptr, nl, left ? INT64_MIN : int64_t(self_lo),
                left ? INT64_MAX : int64_t(self_hi), !left, order, neighbours, radius_rad, starts,
                hist, scratch);
  ev.mark(2);
  CELERIS_CUDA_CHECK(cudaDeviceSynchronize());
  if (times) {
    times->index += ev.ms(0, 1);
    times->count += ev.ms(1, 2);
  }
}

}  // namespace celeris::xmatch::detail
