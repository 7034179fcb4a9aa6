// The GPU methods (the fast tiled search `cuda`, the paper's mesh Algorithms 38 and 39) against
// the brute force and the CPU methods; skipped without a device (or without the backend).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/maxsub.hpp"

namespace ms = celeris::maxsub;

namespace {

// A former --method spelling as options (algorithm + device), and with a precision.
ms::Options M(const char* method) {
  return ms::parse_method(method);
}
ms::Options with(ms::Options o, ms::Precision p, ms::GpuTimes* times = nullptr) {
  o.precision = p;
  o.gpu_times = times;
  return o;
}

std::vector<double> random_ints(std::mt19937& rng, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<double> a(n);
  for (double& v : a) v = d(rng);
  return a;
}

const ms::Options kCuda = with(M("cuda"), ms::Precision::Double);
const ms::Options kCudaFloat = with(M("cuda"), ms::Precision::Float);
const ms::Options kBrute = with(M("brute"), ms::Precision::Double);
const ms::Options kGpuMethods[] = {M("cuda"), M("alg38"), M("alg39")};

}  // namespace

TEST(MaxsubCuda, WithoutDeviceIsAnError) {
  if (celeris::cuda_device_count() > 0) GTEST_SKIP() << "a device is present";
  const std::vector<double> a = {1, -2, 3, 4};
  for (const ms::Options& m : kGpuMethods)
    EXPECT_THROW(ms::max_subarray(a, 2, 2, with(m, ms::Precision::Double)), celeris::Error);
}

TEST(MaxsubCuda, MeshAlgorithmsEqualBruteForce) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(24);
  for (int it = 0; it < 80; ++it) {
    const int w = 1 + int(rng() % 14), h = 1 + int(rng() % 14);
    const int lo = it % 3 == 0 ? -1 : -9;
    const std::vector<double> a = random_ints(rng, size_t(w) * h, lo, lo == -1 ? 1 : 9);
    const ms::Rect ref = ms::max_subarray(a, w, h, kBrute);
    for (const ms::Options& m : {M("alg38"), M("alg39")})
      for (ms::Precision p : {ms::Precision::Double, ms::Precision::Float})
        EXPECT_EQ(ms::max_subarray(a, w, h, with(m, p)), ref)
            << ms::method_name(m) << " " << w << " x " << h;
  }
  // A larger mesh (many blocks per step) against the CPU.
  const std::vector<double> a = random_ints(rng, 300 * 170, -20, 19);
  const ms::Rect cpu = ms::max_subarray(a, 300, 170);
  EXPECT_EQ(ms::max_subarray(a, 300, 170, with(M("alg38"), ms::Precision::Double)), cpu);
  EXPECT_EQ(ms::max_subarray(a, 300, 170, with(M("alg39"), ms::Precision::Double)), cpu);
  EXPECT_EQ(ms::max_subarray(a, 170, 300, with(M("alg39"), ms::Precision::Double)),
            ms::max_subarray(a, 170, 300));
}

TEST(MaxsubCuda, MeshKDisjointEqualsBruteForce) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(25);
  const std::vector<double> s = random_ints(rng, 9 * 6, -3, 3);
  const auto ref = ms::k_max_disjoint(s, 9, 6, 40, kBrute);
  for (const ms::Options& m : {M("alg38"), M("alg39")})
    EXPECT_EQ(ms::k_max_disjoint(s, 9, 6, 40, with(m, ms::Precision::Double)), ref)
        << ms::method_name(m);
}

TEST(MaxsubCuda, TileEdgesAndTiesEqualCpu) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(26);
  // Sides around the 32-row tiles and 32-column chunks, thin images, heavy ties.
  for (auto [w, h] : {std::pair{31, 33}, std::pair{32, 32}, std::pair{65, 64}, std::pair{97, 1},
                      std::pair{1, 97}, std::pair{2, 200}, std::pair{333, 95}}) {
    for (int lo : {-1, -40}) {
      const std::vector<double> a = random_ints(rng, size_t(w) * h, lo, -lo);
      const ms::Rect cpu = ms::max_subarray(a, w, h);
      EXPECT_EQ(ms::max_subarray(a, w, h, kCuda), cpu) << w << " x " << h << " lo " << lo;
      EXPECT_EQ(ms::max_subarray(a, w, h, kCudaFloat), cpu) << w << " x " << h << " lo " << lo;
    }
  }
  // All negative: the largest pixel; all equal: the top-left pixel (or all of it).
  const std::vector<double> neg = random_ints(rng, 70 * 45, -50, -1);
  EXPECT_EQ(ms::max_subarray(neg, 70, 45, kCuda), ms::max_subarray(neg, 70, 45));
  const std::vector<double> zero(60 * 40, 0.0);
  EXPECT_EQ(ms::max_subarray(zero, 60, 40, kCuda), (ms::Rect{0, 0, 0, 0, 0}));
}

TEST(MaxsubCuda, FloatInputAndStageTimes) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(27);
  const std::vector<double> a = random_ints(rng, 210 * 150, -30, 29);
  const std::vector<float> f(a.begin(), a.end());
  ms::GpuTimes times{-1, -1, -1};
  const ms::Rect got = ms::max_subarray(std::span<const float>(f), 150, 210,
                                        with(M("cuda"), ms::Precision::Double, &times));
  EXPECT_EQ(got, ms::max_subarray(a, 150, 210));
  EXPECT_GE(times.upload_ms, 0);
  EXPECT_GE(times.prep_ms, 0);
  EXPECT_GT(times.search_ms, 0);
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
  for (auto [w, h] : {std::pair{300, 257}, std::pair{129, 700}, std::pair{1000, 3},
                      std::pair{1100, 1030}, std::pair{40, 8192}}) {
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
  const std::vector<double> t = random_ints(rng, size_t(70) * 130, -4, 4);  // tall, ties
  EXPECT_EQ(ms::k_max_disjoint(t, 70, 130, 12, kCuda), ms::k_max_disjoint(t, 70, 130, 12));
}

// ---- Maximum convex sum on the GPU: the CPU's region, bit for bit ----------------------------

namespace {

void expect_same_region(const ms::ConvexRegion& got, const ms::ConvexRegion& ref,
                        const std::string& what) {
  EXPECT_EQ(got.sum, ref.sum) << what;
  EXPECT_EQ(got.left, ref.left) << what;
  EXPECT_EQ(got.right, ref.right) << what;
  EXPECT_EQ(got.top, ref.top) << what;
  EXPECT_EQ(got.bottom, ref.bottom) << what;
}

}  // namespace

TEST(MaxsubCudaConvex, EqualsCpuOnSmallArrays) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(41);
  for (int it = 0; it < 120; ++it) {
    const int w = 1 + int(rng() % 13), h = 1 + int(rng() % 13);
    const int lo = it % 3 == 0 ? -1 : (it % 3 == 1 ? -9 : -20);
    const int hi = lo == -20 ? -1 : -lo;  // ties; mixed; all negative
    const std::vector<double> a = random_ints(rng, size_t(w) * h, lo, hi);
    expect_same_region(ms::max_convex(a, w, h, celeris::Device::Cuda), ms::max_convex(a, w, h),
                       std::to_string(w) + " x " + std::to_string(h));
  }
}

TEST(MaxsubCudaConvex, EqualsCpuOnRealValuesAndKDisjoint) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937 rng(42);
  std::normal_distribution<double> d(-0.05, 1.0);
  for (auto [w, h] :
       {std::pair{160, 130}, std::pair{90, 200}, std::pair{300, 7}, std::pair{30, 290}}) {
    std::vector<double> a(size_t(w) * h);
    for (double& v : a) v = d(rng);
    expect_same_region(ms::max_convex(a, w, h, celeris::Device::Cuda), ms::max_convex(a, w, h),
                       std::to_string(w) + " x " + std::to_string(h));
  }
  const std::vector<double> a = random_ints(rng, 40 * 30, -5, 5);
  const auto gpu = ms::k_max_convex_disjoint(a, 40, 30, 6, celeris::Device::Cuda);
  const auto cpu = ms::k_max_convex_disjoint(a, 40, 30, 6);
  ASSERT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) expect_same_region(gpu[i], cpu[i], std::to_string(i));
  const std::vector<double> tiny = random_ints(rng, 5 * 4, -3, 3);
  const auto gt = ms::k_max_convex_disjoint(tiny, 5, 4, 30, celeris::Device::Cuda);
  const auto ct = ms::k_max_convex_disjoint(tiny, 5, 4, 30);  // until every cell is used
  ASSERT_EQ(gt.size(), ct.size());
  for (size_t i = 0; i < ct.size(); ++i) expect_same_region(gt[i], ct[i], std::to_string(i));
}
