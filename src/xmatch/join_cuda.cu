// Phases 1-3 of the cross-match on one GPU (paper, section IV): the index is sorted with
// Thrust (radix sort by pixel), then one thread per left row computes its search intervals
// (pixel + neighbours, or the inclusive disc query of healpix.hpp, the same code as the CPU join)
// and refines the candidates with the exact chord. Two passes: count, exclusive scan, write; then
// one sort of the pairs by (i, j) so the output equals the CPU join's.
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <string>

#include "celeris/error.hpp"
#include "join_cuda.hpp"

namespace celeris::xmatch::detail {

namespace hp = celeris::healpix;

namespace {

constexpr double kArcsec = hp::pi / (180.0 * 3600.0);

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA xmatch: ") + what + ": " + cudaGetErrorString(e));
}

template <class T>
T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <class T>
const T* raw(const thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

// Launch: one thread per right row. Traffic: reads 24 B, writes 8 B per row.
__global__ void pixel_kernel(const hp::Vec3* v, size_t n, int order, int64_t* pix) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) pix[k] = hp::vec2pix_nest(order, v[k]);
}

__device__ size_t lower_bound(const int64_t* a, size_t n, int64_t v) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

struct JoinArgs {
  const hp::Vec3* left;
  size_t nl;
  const int64_t* pix;  // sorted right pixels
  const int64_t* row;  // right row of each sorted entry
  const hp::Vec3* rvec;
  size_t nr;
  int order;
  bool neighbours;
  bool self;
  double lim2;
};

// Launch: one thread per left row, 128 per block. Traffic: per row, the candidates' vectors
// (24 B each) and ~2 log2(N) pixel reads per searched interval. Guarantees: counts[i] (Write =
// false) or the pairs of row i at offsets[i] in pixel order (Write = true); deterministic.
template <bool Write>
__global__ void join_kernel(JoinArgs a, hp::DiscPlan plan, unsigned long long* counts,
                            const unsigned long long* offsets, int64_t* out_i, int64_t* out_j,
                            double* out_c2) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= a.nl) return;
  const hp::Vec3 v = a.left[i];
  unsigned long long pos = Write ? offsets[i] : 0;
  auto refine = [&](size_t b, size_t e) {
    for (size_t k = b; k < e; ++k) {
      const double c2 = hp::chord2(v, a.rvec[k]);
      if (c2 <= a.lim2 && (!a.self || a.row[k] > int64_t(i))) {
        if (Write) {
          out_i[pos] = int64_t(i);
          out_j[pos] = a.row[k];
          out_c2[pos] = c2;
        }
        ++pos;
      }
    }
  };
  if (a.neighbours) {
    int64_t cand[9];
    cand[0] = hp::vec2pix_nest(a.order, v);
    hp::neighbours_nest(a.order, cand[0], cand + 1);
    for (int q = 0; q < 9; ++q) {
      if (cand[q] < 0) continue;
      bool dup = false;
      for (int r = 0; r < q; ++r) dup |= cand[r] == cand[q];
      if (dup) continue;
      const size_t b = lower_bound(a.pix, a.nr, cand[q]);
      const size_t e = lower_bound(a.pix, a.nr, cand[q] + 1);
      refine(b, e);
    }
  } else {
    hp::query_disc_nest(plan, v, [&](int64_t pb, int64_t pe) {
      refine(lower_bound(a.pix, a.nr, pb), lower_bound(a.pix, a.nr, pe));
    });
  }
  if (!Write) counts[i] = pos;
}

}  // namespace

std::vector<Pair> join_cuda(const std::vector<hp::Vec3>& left, const std::vector<hp::Vec3>& right,
                            int order, bool neighbours, double radius_rad, bool self) {
  const size_t nl = left.size(), nr = right.size();
  if (nl == 0 || nr == 0) return {};
  // Phase 1: index the right side.
  thrust::device_vector<hp::Vec3> d_right(right.begin(), right.end());
  thrust::device_vector<int64_t> d_pix(nr), d_row(nr);
  constexpr int kBlock = 128;
  pixel_kernel<<<unsigned((nr + kBlock - 1) / kBlock), kBlock>>>(raw(d_right), nr, order,
                                                                 raw(d_pix));
  check(cudaGetLastError(), "pixel kernel");
  thrust::sequence(d_row.begin(), d_row.end());
  thrust::sort_by_key(d_pix.begin(), d_pix.end(), d_row.begin());
  thrust::device_vector<hp::Vec3> d_rvec(nr);
  thrust::gather(d_row.begin(), d_row.end(), d_right.begin(), d_rvec.begin());
  d_right.clear();
  d_right.shrink_to_fit();

  // Phases 2+3: count, scan, write.
  // Left rows in input order (also for a self-match), so thread i is row i.
  const thrust::device_vector<hp::Vec3> d_left(left.begin(), left.end());
  JoinArgs a{raw(d_left), nl,    raw(d_pix), raw(d_row), raw(d_rvec),
             nr,          order, neighbours, self,       hp::chord2_of_angle(radius_rad)};
  const hp::DiscPlan plan = hp::make_disc_plan(order, radius_rad);
  thrust::device_vector<unsigned long long> d_count(nl), d_off(nl);
  const unsigned grid = unsigned((nl + kBlock - 1) / kBlock);
  join_kernel<false><<<grid, kBlock>>>(a, plan, raw(d_count), nullptr, nullptr, nullptr, nullptr);
  check(cudaGetLastError(), "count kernel");
  thrust::exclusive_scan(d_count.begin(), d_count.end(), d_off.begin());
  const unsigned long long total = static_cast<unsigned long long>(d_off.back()) +
                                   static_cast<unsigned long long>(d_count.back());
  std::vector<Pair> pairs(total);
  if (total == 0) return pairs;
  thrust::device_vector<int64_t> d_i(total), d_j(total);
  thrust::device_vector<double> d_c2(total);
  join_kernel<true><<<grid, kBlock>>>(a, plan, nullptr, raw(d_off), raw(d_i), raw(d_j), raw(d_c2));
  check(cudaGetLastError(), "write kernel");
  check(cudaDeviceSynchronize(), "join");

  // Order each row's pairs by j, as the CPU join: rows are already in order, so a stable sort by
  // j followed by a stable sort by i gives (i, j) order.
  thrust::device_vector<size_t> perm(total);
  thrust::sequence(perm.begin(), perm.end());
  thrust::device_vector<int64_t> key = d_j;
  thrust::stable_sort_by_key(key.begin(), key.end(), perm.begin());
  thrust::device_vector<int64_t> key_i(total);
  thrust::gather(perm.begin(), perm.end(), d_i.begin(), key_i.begin());
  thrust::stable_sort_by_key(key_i.begin(), key_i.end(), perm.begin());
  thrust::host_vector<size_t> h_perm = perm;
  thrust::host_vector<int64_t> h_i = d_i, h_j = d_j;
  thrust::host_vector<double> h_c2 = d_c2;
  for (size_t k = 0; k < total; ++k) {
    const size_t s = h_perm[k];
    pairs[k] = Pair{h_i[s], h_j[s], hp::angle_of_chord2(h_c2[s]) / kArcsec};
  }
  return pairs;
}

}  // namespace celeris::xmatch::detail
