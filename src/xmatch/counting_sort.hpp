// A stable counting sort by a small integer key (a coarse HEALPix pixel), in parallel: the one
// pass that groups a partition's rows by pixel (PartitionChunks' buckets) and sorts a catalog in
// host memory by pixel (pixel_sorted). Each thread counts the keys of a contiguous block of rows,
// the per-thread histograms are prefix-summed key by key (thread by thread within a key), and each
// thread scatters its block after the rows of the same key in the blocks before it, so the order
// within a key is the row order whatever the number of threads (as std::stable_sort's).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace celeris::xmatch::detail {

// Rows below which one thread sorts alone (the histograms' cost would dominate).
inline constexpr size_t kCountingSortRowsPerThread = 65536;

// Sorts rows 0..n-1 by key[k] in [0, nkeys): calls put(k, d) exactly once for every row k, d being
// its place in the sorted order (distinct, 0..n-1), from several threads at once (put must only
// write at d). Returns start (nkeys + 1 entries): the rows of key q are at [start[q], start[q+1]).
// Memory: nkeys 8-byte counters per thread.
template <class Key, class Put>
std::vector<uint64_t> counting_sort(const Key* key, size_t n, size_t nkeys, Put&& put) {
  std::vector<uint64_t> start(nkeys + 1, 0);
  const int most = int(std::max<size_t>(
      1, std::min<size_t>(size_t(omp_get_max_threads()), n / kCountingSortRowsPerThread + 1)));
  // at[t][q]: rows of key q in thread t's block; after the prefix sum, where the next one goes.
  std::vector<std::vector<uint64_t>> at(static_cast<size_t>(most));
  // base[t]: rows of the key ranges before thread t's.
  std::vector<uint64_t> base(static_cast<size_t>(most) + 1, 0);
#pragma omp parallel num_threads(most)
  {
    // The team may be smaller than asked (nested parallelism): blocks follow the real size.
    const size_t nt = size_t(omp_get_num_threads()), t = size_t(omp_get_thread_num());
    const size_t lo = n * t / nt, hi = n * (t + 1) / nt;
    std::vector<uint64_t>& c = at[t];
    c.assign(nkeys, 0);
    for (size_t k = lo; k < hi; ++k) ++c[size_t(key[k])];
#pragma omp barrier
    // The prefix sum over (key, thread), the keys cut among the threads: each sums its own keys'
    // rows, the totals are scanned over the threads, then each turns its counts into offsets.
    const size_t qlo = nkeys * t / nt, qhi = nkeys * (t + 1) / nt;
    uint64_t run = 0;
    for (size_t q = qlo; q < qhi; ++q)
      for (size_t u = 0; u < nt; ++u) run += at[u][q];
    base[t + 1] = run;
#pragma omp barrier
#pragma omp single
    for (size_t u = 0; u < nt; ++u) base[u + 1] += base[u];
    run = base[t];
    for (size_t q = qlo; q < qhi; ++q) {
      start[q] = run;
      for (size_t u = 0; u < nt; ++u) {
        const uint64_t m = at[u][q];
        at[u][q] = run;
        run += m;
      }
    }
#pragma omp barrier
    for (size_t k = lo; k < hi; ++k) put(k, size_t(c[size_t(key[k])]++));
  }
  start[nkeys] = n;
  return start;
}

}  // namespace celeris::xmatch::detail
