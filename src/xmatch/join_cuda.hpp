// The CUDA join (join_cuda.cu): phases 1-3 on one GPU, returning the same pairs as the CPU join.
// Plain C++ header (no CUDA types), so that join.cpp and the benchmark can include it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch::detail {

// Where the pairs land on the host. Pageable: ordinary memory (2 MB pages where the kernel
// allows, first touched by all cores, so that faulting it in is not one thread's job); the GPU
// copies into it through the driver's staging buffers. Pinned: cudaHostAlloc, page-locked, copied
// into directly at full bus speed, slow to allocate. Registered: pageable memory, first touched
// by all cores, then page-locked in place with cudaHostRegister.
enum class HostMemory { Pageable, Pinned, Registered };

// Host memory of one of those kinds. Move-only; keeps its allocation when shrunk, so that a
// caller matching repeatedly pays for the allocation once.
template <class T>
class HostArray {
 public:
  HostArray() = default;
  HostArray(HostArray&& o) noexcept { swap(o); }
  HostArray& operator=(HostArray&& o) noexcept {
    swap(o);
    return *this;
  }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
  ~HostArray() { release(); }
  // n elements (contents undefined), reallocating only when the capacity or kind do not fit.
  void resize(size_t n, HostMemory kind);
  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  T& operator[](size_t k) { return p_[k]; }
  const T& operator[](size_t k) const { return p_[k]; }

 private:
  void release();
  void swap(HostArray& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(cap_, o.cap_);
    std::swap(kind_, o.kind_);
  }
  T* p_ = nullptr;
  size_t n_ = 0, cap_ = 0;
  HostMemory kind_ = HostMemory::Pageable;
};

// Milliseconds per phase, from device events (host_alloc: host clock around the allocation of
// the result arrays).
struct CudaTimes {
  double upload = 0;    // RA/Dec -> device, unit vectors there
  double index = 0;     // pixels, radix sort (CUB), gather, pixel histogram + prefix sum
  double count = 0;     // phases 2+3, counting pass
  double scan = 0;      // prefix sum of the counts
  double write = 0;     // phases 2+3, writing pass (+ per-row sort by j)
  double download = 0;  // pairs -> host
  double host_alloc = 0;
  // From the total's download to the last pair on the host: write + host alloc + download in
  // one pass; with batches the only meaningful figure, as the three overlap.
  double write_download = 0;
};

// Pairs as columns, grouped by left row in input order and sorted by right row within a row:
// the pairs of left row i are k in [offsets[i], offsets[i + 1]).
struct CudaPairs {
  HostArray<uint64_t> offsets;  // n_left + 1
  HostArray<uint32_t> j;        // right row
  HostArray<double> sep_arcsec;
  CudaTimes times;
  size_t size() const { return j.size(); }
};

// All pairs (i, j) with chord2(left[i], right[j]) <= chord2_of_angle(radius_rad) between the
// unit vectors (radec2vec, computed on the device) of the positions, into `out` (whose host arrays
// are reused when large enough); `self`: left == right and only j > i. `order`: index order;
// `neighbours`: pixel + 8 neighbours search (else inclusive disc query at `order`). `memory`:
// the kind of host memory for the result. Rows must number < 2^32 on each side.
// `batches` > 1: the writing pass runs in that many ranges of left rows, each downloaded on a
// second stream while the next is written (transfers overlapping compute; not yet measured on
// a GPU, so off by default).
void join_cuda_columns(const SkyPoints& left, const SkyPoints& right, int order, bool neighbours,
                       double radius_rad, bool self, HostMemory memory, CudaPairs& out,
                       int batches = 1);

// Free device memory in bytes (cudaMemGetInfo).
size_t cuda_free_bytes();
// Device bytes a CUDA join or count may use: 80% of the free memory, or `device_memory`
// (Options::device_memory, --gpu-memory) when that is set and smaller.
inline size_t cuda_budget(size_t device_memory) {
  const size_t usable = cuda_free_bytes() / 10 * 8;
  return device_memory ? (device_memory < usable ? device_memory : usable) : usable;
}
// Device bytes join_cuda_columns needs for nl left and nr right rows, pairs excluded (an upper
// estimate: inputs, vectors, sort buffers, pixel directory, counts).
inline size_t cuda_join_bytes(size_t nl, size_t nr, bool self) {
  return (self ? 0 : 112 * nl) + 136 * nr + 16 * nl + (size_t(4) << 20);
}

// Milliseconds of count_cuda, accumulated over calls: upload and index of both sides (RA/Dec
// up, vectors, radix sorts, ids, directory), then the counting kernel and the histogram's
// download.
struct CudaCountTimes {
  double index = 0;
  double count = 0;
};

// The histogram of the pairs of join_cuda_columns, without writing them (`--count`): hist[b] +=
// the pairs (i, j) with chord2(left[i], right[j]) <= chord2_of_angle(radius_rad) whose squared
// chord has b of `starts` at or below it (chord2_bin_starts: the host's bins, so the counts equal
// those of PairCount::add on the CPU join's pairs). `left` == nullptr: the left rows are the
// right rows (uploaded once). `self`: only pairs whose right id exceeds the left id, an id being
// left_ids[i] / right_ids[j] (global row numbers; nullptr: the row index), so a partition of a
// self-match, whose left rows are among its right rows, counts each pair i < j once. hist has
// starts.size() + 1 bins. Rows must number < 2^32 on each side. Device memory: cuda_count_bytes.
void count_cuda(const SkyPoints* left, const int64_t* left_ids, const SkyPoints& right,
                const int64_t* right_ids, bool self, int order, bool neighbours, double radius_rad,
                const std::vector<double>& starts, std::vector<uint64_t>& hist,
                CudaCountTimes* times = nullptr);
// Rows held as ranges [first, second) of host arrays (a catalog sorted by pixel, sorted_count.hpp),
// taken in the order given: row k of the whole is the k-th row of the concatenated ranges.
struct HostRanges {
  const double* ra = nullptr;
  const double* dec = nullptr;
  std::vector<std::pair<size_t, size_t>> ranges;
  size_t size() const {
    size_t n = 0;
    for (const auto& r : ranges) n += r.second - r.first;
    return n;
  }
};
// count_cuda for rows given as host ranges, each uploaded straight from its host arrays (no
// gathered copy, no row numbers). left == nullptr: a self-match whose left rows are the right rows
// [self_lo, self_hi) of the concatenation (uploaded once, with the right rows); a pair (left row
// a, right row b) counts when b > a in the concatenation, so when the ranges ascend through a
// sorted catalog each pair of distinct rows counts once over a partition of the left rows. Else
// every pair of left x right. Device memory: cuda_count_bytes(left ? nl : 0, nr, !left).
void count_cuda_ranges(const HostRanges* left, const HostRanges& right, size_t self_lo,
                       size_t self_hi, int order, bool neighbours, double radius_rad,
                       const std::vector<double>& starts, std::vector<uint64_t>& hist,
                       CudaCountTimes* times = nullptr);
// Device bytes count_cuda needs (an upper estimate: a side's sort peaks at about 84 B a row
// (vectors, keys and rows twice, CUB's buffers), its index keeps 44 B a row (pixel, row, vector,
// id), the directory and its histogram at most 32 B a right row). `same`: left == nullptr.
inline size_t cuda_count_bytes(size_t nl, size_t nr, bool same) {
  return (same ? 0 : 96 * nl) + 128 * nr + (size_t(8) << 20);
}

}  // namespace celeris::xmatch::detail
