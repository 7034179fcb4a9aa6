// CLEAN's threshold as iso_sums.hpp computes it (for the CPU and the GPU) against SExtractor's
// heap with a library sort as the reference, on random objects with many ties, every size
// around DETECT_MINAREA, and per-pixel thresholds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "extract/stages/iso_sums.hpp"

using namespace celeris::extract;

namespace {

// SExtractor's mthresh (analyse.c examineiso) as written there: std::sort at the minarea-th
// pixel (which is dropped), then the sift with its off-by-one step.
float reference_threshold(const std::vector<Pixel>& d, float dthresh, bool pixel_thresholds,
                          int minarea) {
  if (static_cast<int>(d.size()) < minarea) return 0.0f;
  std::vector<float> heap(static_cast<size_t>(minarea), 0.0f);
  int h = minarea;
  for (const Pixel& p : d) {
    const float tpix = p.cvalue - (pixel_thresholds ? p.dthresh : dthresh);
    if (h > 0) {
      heap[minarea - h] = tpix;
    } else if (h == 0) {
      std::sort(heap.begin(), heap.end());
    } else if (tpix > heap[0]) {
      heap[0] = tpix;
      for (int j = 0, k; (k = (j + 1) << 1) <= minarea; j = k) {
        if (k != minarea && heap[k - 1] > heap[k]) ++k;
        if (heap[j] <= heap[k - 1]) break;
        std::swap(heap[k - 1], heap[j]);
      }
    }
    --h;
  }
  return heap[0];
}

}  // namespace

TEST(IsoSums, CleanThresholdIsSExtractorsHeap) {
  std::mt19937_64 rng(7);
  size_t checked = 0, nonzero = 0;
  for (int minarea : {1, 2, 3, 5, 8, 13, 64}) {
    for (int trial = 0; trial < 300; ++trial) {
      const int n = static_cast<int>(rng() % (4 * minarea + 6));
      const bool ties = trial % 3 == 0, pixel_thresholds = trial % 5 == 0;
      std::vector<Pixel> d(static_cast<size_t>(n));
      for (Pixel& p : d) {
        p.cvalue = ties ? static_cast<float>(rng() % 4) * 10.0f + 40.0f
                        : 40.0f + static_cast<float>(rng() % 100000) / 7.0f;
        p.dthresh = 30.0f + static_cast<float>(rng() % 20);
      }
      const auto px = [&](int64_t i) { return d[static_cast<size_t>(i)]; };
      std::vector<float> heap(static_cast<size_t>(minarea));
      const float got = clean_threshold(px, n, 35.0f, pixel_thresholds, minarea, heap.data());
      const float want = reference_threshold(d, 35.0f, pixel_thresholds, minarea);
      ASSERT_EQ(std::memcmp(&got, &want, sizeof(float)), 0)
          << "minarea " << minarea << ", " << n << " pixels, trial " << trial << ": " << got
          << " against " << want;
      ++checked;
      nonzero += want != 0.0f;
    }
  }
  EXPECT_EQ(checked, 7u * 300u);
  EXPECT_GT(nonzero, checked / 2);  // most objects reach their heap's sort
}
