// The CUDA join equals the CPU join (and so the brute force) pair for pair; skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

using namespace celeris::xmatch;

namespace {

// The same pairs in the same order, separations within 1e-9 arcsec (CUDA's sin/cos/asin differ
// from glibc's in the last bits; the pairs themselves are bit-identical, no FMA).
void expect_same_pairs(const std::vector<Pair>& got, const std::vector<Pair>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(got[k].i, want[k].i) << k;
    ASSERT_EQ(got[k].j, want[k].j) << k;
    ASSERT_NEAR(got[k].sep_arcsec, want[k].sep_arcsec, 1e-9) << k;
  }
}

}  // namespace

TEST(XMatchCuda, SameAsCpu) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double radius : {0.01, 2.0, 60.0, 3600.0}) {
    SkyPoints a, b;
    for (int k = 0; k < 6000; ++k) {
      // bands around the equator and the poles, RA across 0/360
      const double dec = (k % 3 == 0) ? 89.0 + u(rng) : (k % 3 == 1) ? -90.0 + u(rng) : u(rng);
      const double ra = std::fmod(359.5 + u(rng), 360.0);
      (k % 2 ? a : b).ra.push_back(ra);
      (k % 2 ? a : b).dec.push_back(dec);
      if (k % 13 == 0) {  // a near-duplicate on the other side
        (k % 2 ? b : a).ra.push_back(ra);
        (k % 2 ? b : a).dec.push_back(std::min(dec + 0.5 * radius / 3600, 90.0));
      }
    }
    for (Search s : {Search::Neighbours, Search::Disc}) {
      Options o;
      o.radius_arcsec = radius;
      o.search = s;
      const auto cpu = match_pairs(a, b, o);
      const auto cpu_self = self_pairs(a, o);
      o.backend = celeris::Backend::Cuda;
      const auto gpu = match_pairs(a, b, o);
      const auto gpu_self = self_pairs(a, o);
      SCOPED_TRACE(radius);
      expect_same_pairs(gpu, cpu);
      expect_same_pairs(gpu_self, cpu_self);
    }
  }
}

TEST(XMatchCuda, CudaBackendWithoutDeviceIsAnError) {
  if (celeris::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  SkyPoints a;
  a.ra = {1};
  a.dec = {2};
  Options o;
  o.backend = celeris::Backend::Cuda;
  EXPECT_THROW(match_pairs(a, a, o), std::exception);
}

// The chunked match (the path taken when the catalogs exceed device memory) on the GPU equals
// the CPU join.
TEST(XMatchCuda, ChunkedSameAsCpu) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(22);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints a, b;
  for (int k = 0; k < 20000; ++k) {
    const double dec = (k % 4 == 0) ? 89.5 + 0.5 * u(rng) : std::asin(2 * u(rng) - 1) * 57.29578;
    const double ra = (k % 4 == 1) ? std::fmod(359.9 + 0.2 * u(rng), 360.0) : 360 * u(rng);
    (k % 2 ? a : b).ra.push_back(ra);
    (k % 2 ? a : b).dec.push_back(dec);
  }
  Options o;
  o.radius_arcsec = 120;
  const auto cpu = match_pairs(a, b, o);
  const auto cpu_self = self_pairs(a, o);
  o.backend = celeris::Backend::Cuda;
  const auto la = memory_positions(a), lb = memory_positions(b);
  ChunkStats stats;
  const auto gpu = chunked_pairs(*la, *lb, false, o, 200000, {}, &stats);
  EXPECT_GE(stats.chunks, 4u);
  const auto gpu_self = chunked_pairs(*la, *la, true, o, 200000);
  ASSERT_FALSE(cpu.empty());
  expect_same_pairs(gpu, cpu);
  expect_same_pairs(gpu_self, cpu_self);
}

// A device-memory bound below what the catalogs need switches the CUDA join to HEALPix chunks
// (the path of catalogs larger than the GPU); the pairs stay those of the CPU join.
TEST(XMatchCuda, DeviceMemoryBoundSwitchesToChunks) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints a, b;
  for (int k = 0; k < 300000; ++k) {  // about 80 MB on the device unchunked
    const double dec = (k % 5 == 0) ? -89.8 + 0.3 * u(rng) : std::asin(2 * u(rng) - 1) * 57.29578;
    (k % 2 ? a : b).ra.push_back(360 * u(rng));
    (k % 2 ? a : b).dec.push_back(dec);
  }
  Options o;
  o.radius_arcsec = 60;
  const auto cpu = match_pairs(a, b, o);
  const auto cpu_self = self_pairs(a, o);
  o.backend = celeris::Backend::Cuda;
  o.device_memory = size_t(20) << 20;
  const auto gpu = match_pairs(a, b, o);
  const auto gpu_self = self_pairs(a, o);
  ASSERT_FALSE(cpu.empty());
  expect_same_pairs(gpu, cpu);
  expect_same_pairs(gpu_self, cpu_self);
  o.device_memory = size_t(8) << 20;  // below the floor: a clear error, not a crash
  EXPECT_THROW(match_pairs(a, b, o), std::exception);
}

// The batched writing pass (downloads overlapping the next batch's kernel) gives the same pairs.
TEST(XMatchCuda, BatchedDownloadSameAsOnePass) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(24);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SkyPoints a, b;
  for (int k = 0; k < 100000; ++k) {
    const double dec = (k % 7 == 0) ? 89.7 + 0.3 * u(rng) : std::asin(2 * u(rng) - 1) * 57.29578;
    (k % 2 ? a : b).ra.push_back(360 * u(rng));
    (k % 2 ? a : b).dec.push_back(dec);
  }
  Options o;
  o.radius_arcsec = 200;
  o.backend = celeris::Backend::Cuda;
  const auto one = match_pairs(a, b, o);
  const auto one_self = self_pairs(a, o);
  ASSERT_FALSE(one.empty());
  for (int batches : {2, 5, 16}) {
    SCOPED_TRACE(batches);
    o.cuda_batches = batches;
    expect_same_pairs(match_pairs(a, b, o), one);
    expect_same_pairs(self_pairs(a, o), one_self);
  }
}
