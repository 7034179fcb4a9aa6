// The deblending's exponential levels on the device (gpu/deblend_levels_gpu.hpp, CUDA's pow for
// the ratio's root) against the host's exponential_levels (glibc's), bit for bit wherever the
// device is sure of every level, on the same 300,000 random and special (t0, peak, nthresh) as
// Deblend.ExponentialLevelsEqualPowBitForBit. Skipped without a CUDA device.
#ifdef CELERIS_HAVE_CUDA
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "extract/gpu/deblend_levels_gpu.hpp"
#include "extract/stages/deblend.hpp"

using namespace celeris;
using namespace celeris::extract;

TEST(GpuDeblendLevels, SureLevelsAreTheHostsBitForBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const float special[] = {0.0f,
                           -2.0f,
                           1e-40f,
                           3e38f,
                           std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN()};
  constexpr int kMaxLevels = 64;
  std::vector<float> t0s, peaks;
  std::vector<int> ns;
  for (int trial = 0; trial < 300000; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 63);
    float t0 = static_cast<float>(std::pow(10.0, -8 + 16 * u(rng)));
    float peak = static_cast<float>(t0 * std::pow(10.0, (trial % 10 == 0 ? -3 : 0) + 30 * u(rng)));
    if (trial % 1000 == 1) t0 = special[(trial / 1000) % 6];
    if (trial % 1000 == 2) peak = special[(trial / 1000) % 6];
    if (!(peak > 0)) continue;  // plan_deblend keeps every level at t0 then
    t0s.push_back(t0);
    peaks.push_back(peak);
    ns.push_back(n);
  }
  std::vector<float> levels;
  std::vector<int> unsure;
  gpu::device_exponential_levels(t0s, peaks, ns, kMaxLevels, levels, unsure);
  ASSERT_EQ(unsure.size(), t0s.size());
  std::vector<float> host(kMaxLevels);
  size_t sure = 0, special_sure = 0;
  for (size_t i = 0; i < t0s.size(); ++i) {
    exponential_levels(t0s[i], peaks[i], ns[i], host.data());
    const float* got = levels.data() + i * kMaxLevels;
    int nan = 0;
    for (int k = 1; k < ns[i]; ++k) nan += std::isnan(got[k]) ? 1 : 0;
    ASSERT_EQ(nan, unsure[i]) << "candidate " << i;
    if (unsure[i] > 0) continue;
    ++sure;
    if (!(t0s[i] > 0) || !std::isfinite(peaks[i] / t0s[i])) ++special_sure;
    for (int k = 0; k < ns[i]; ++k)
      ASSERT_TRUE(std::memcmp(&got[k], &host[k], sizeof(float)) == 0)
          << "t0 " << t0s[i] << " peak " << peaks[i] << " n " << ns[i] << " k " << k << ": "
          << got[k] << " vs " << host[k];
  }
  // Without a positive finite ratio nothing is sure; otherwise nearly every candidate is.
  EXPECT_EQ(special_sure, 0u);
  EXPECT_GT(sure, t0s.size() * 9 / 10) << sure << " of " << t0s.size();
}

TEST(GpuDeblendLevels, ColumnsOfDifferentSizesAreRefused) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<float> levels;
  std::vector<int> unsure;
  EXPECT_THROW(gpu::device_exponential_levels({1.0f}, {2.0f, 3.0f}, {4}, 4, levels, unsure), Error);
}

#endif  // CELERIS_HAVE_CUDA
