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
// Device bytes join_cuda_columns needs for nl left and nr right rows, pairs excluded (an upper
// estimate: inputs, vectors, sort buffers, pixel directory, counts).
inline size_t cuda_join_bytes(size_t nl, size_t nr, bool self) {
  return (self ? 0 : 112 * nl) + 136 * nr + 16 * nl + (size_t(4) << 20);
}

}  // namespace celeris::xmatch::detail
