// The CUDA search against the CPU methods; skipped without a device (or without the backend).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/maxsub.hpp"

namespace ms = celeris::maxsub;

namespace {

std::vector<double> random_ints(std::mt19937& rng, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<double> a(n);
  for (double& v : a) v = d(rng);
  return a;
}

const ms::Options kCuda{ms::Method::Cuda, ms::Precision::Double};
const ms::Options kCudaFloat{ms::Method::Cuda, ms::Precision::Float};
const ms::Options kBrute{ms::Method::Brute, ms::Precision::Double};

}  // namespace

TEST(MaxsubCuda, WithoutDeviceIsAnError) {
  if (celeris::cuda_device_count() > 0) GTEST_SKIP() << "a device is present";
  const std::vector<double> a = {1, -2, 3, 4};
  EXPECT_THROW(ms::max_subarray(a, 2, 2, kCuda), celeris::Error);
}

TEST(MaxsubCuda, EqualsBruteForceOnSmallArrays) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(21);
  for (int it = 0; it < 150; ++it) {
    const int w = 1 + int(rng() % 12), h = 1 + int(rng() % 12);
    const int lo = it % 3 == 0 ? -1 : -9;  // many ties every third array
    const std::vector<double> a = random_ints(rng, size_t(w) * h, lo, lo == -1 ? 1 : 9);
    const ms::Rect ref = ms::max_subarray(a, w, h, kBrute);
    EXPECT_EQ(ms::max_subarray(a, w, h, kCuda), ref) << w << " x " << h;
    EXPECT_EQ(ms::max_subarray(a, w, h, kCudaFloat), ref) << w << " x " << h;
  }
}

TEST(MaxsubCuda, EqualsCpuOnLargerImages) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(22);
  for (auto [w, h] : {std::pair{300, 257}, std::pair{129, 700}, std::pair{1000, 3}}) {
    const std::vector<double> a = random_ints(rng, size_t(w) * h, -100, 99);
    EXPECT_EQ(ms::max_subarray(a, w, h, kCuda), ms::max_subarray(a, w, h)) << w << " x " << h;
  }
}

TEST(MaxsubCuda, KDisjointEqualsCpu) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(23);
  const int w = 90, h = 70;
  const std::vector<double> a = random_ints(rng, size_t(w) * h, -10, 10);
  EXPECT_EQ(ms::k_max_disjoint(a, w, h, 8, kCuda), ms::k_max_disjoint(a, w, h, 8));
  const int ws = 7, hs = 5;
  const std::vector<double> s = random_ints(rng, size_t(ws) * hs, -3, 3);
  EXPECT_EQ(ms::k_max_disjoint(s, ws, hs, 50, kCuda), ms::k_max_disjoint(s, ws, hs, 50, kBrute));
}
