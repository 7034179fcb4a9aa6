// The parallel counting sort (src/xmatch/counting_sort.hpp) against std::stable_sort of the row
// numbers by key: the same order (stable: row order within a key) and the same key offsets,
// whatever the number of threads, for random keys, a single key, mostly empty keys and no rows.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "xmatch/counting_sort.hpp"

namespace {

using celeris::xmatch::detail::counting_sort;

// The reference: rows stably sorted by key, and the first sorted place of every key.
void reference(const std::vector<int32_t>& key, size_t nkeys, std::vector<uint32_t>& order,
               std::vector<uint64_t>& start) {
  order.resize(key.size());
  std::iota(order.begin(), order.end(), uint32_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
  start.assign(nkeys + 1, 0);
  for (int32_t k : key) ++start[size_t(k) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
}

void expect_sorted_as_reference(const std::vector<int32_t>& key, size_t nkeys,
                                const std::string& what) {
  std::vector<uint32_t> want;
  std::vector<uint64_t> want_start;
  reference(key, nkeys, want, want_start);
  std::vector<uint32_t> got(key.size(), UINT32_MAX);
  std::vector<int> hits(key.size(), 0);
  const std::vector<uint64_t> start =
      counting_sort(key.data(), key.size(), nkeys, [&](size_t k, size_t d) {
        got[d] = uint32_t(k);
        ++hits[d];  // each place written once (distinct d per thread block, checked below)
      });
  EXPECT_EQ(start, want_start) << what;
  EXPECT_EQ(got, want) << what;
  EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; })) << what;
}

}  // namespace

TEST(XMatchCountingSort, SameAsStableSort) {
  std::mt19937_64 rng(11);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3, 7}) {
    omp_set_num_threads(threads);
    // Above kCountingSortRowsPerThread * threads rows, so that every thread gets a block.
    for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(70000), size_t(500000)}) {
      for (size_t nkeys : {size_t(1), size_t(7), size_t(196608)}) {
        const std::string what = std::to_string(threads) + " threads, " + std::to_string(n) +
                                 " rows, " + std::to_string(nkeys) + " keys";
        std::uniform_int_distribution<int32_t> any(0, int32_t(nkeys) - 1);
        std::vector<int32_t> key(n);
        for (auto& k : key) k = any(rng);
        expect_sorted_as_reference(key, nkeys, what + ", random");
        // Every row in one key (one crowded pixel), the last one.
        std::fill(key.begin(), key.end(), int32_t(nkeys) - 1);
        expect_sorted_as_reference(key, nkeys, what + ", one key");
        // Three keys used, in long runs, the others empty (most of the sky).
        for (size_t k = 0; k < n; ++k)
          key[k] = int32_t((k * 3 / std::max<size_t>(n, 1)) * (nkeys / 3));
        expect_sorted_as_reference(key, nkeys, what + ", runs of three keys");
      }
    }
  }
  omp_set_num_threads(saved);
}
