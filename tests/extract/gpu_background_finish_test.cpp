// The background grid finished on the device (gpu/background_finish.hpp) against the host's
// finish_background, bit for bit: the finished backgrounds and their y-derivatives, on grids of
// one mesh, one row, one column and larger, with bad meshes from none to all but one, filters
// from none to windows of 25 meshes, BACK_FILTTHRESH 0 and above the values' spread, and values
// that are equal, or zeros of both signs (where which of equal values a median keeps shows).
// Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"

#ifdef CELERIS_HAVE_CUDA

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "extract/gpu/background_finish.hpp"
#include "extract/stages/background.hpp"

namespace {

using celeris::extract::BackgroundMap;
using celeris::extract::Config;
namespace gpu = celeris::extract::gpu;

enum class Values { Noise, FewLevels, SignedZeros };

// Raw mesh statistics: `bad` of them kBadMesh (at least one good).
std::vector<float> raw_grid(int nx, int ny, double bad, Values kind, std::mt19937_64& rng) {
  std::vector<float> v(static_cast<size_t>(nx) * ny);
  std::normal_distribution<float> noise(100.0f, 3.0f);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (float& x : v) {
    switch (kind) {
      case Values::Noise:
        x = noise(rng);
        break;
      case Values::FewLevels:
        x = static_cast<float>(rng() % 4) * 0.25f;
        break;
      case Values::SignedZeros: {
        const float levels[] = {0.0f, -0.0f, 1.0f, -1.0f};
        x = levels[rng() % 4];
        break;
      }
    }
    if (u(rng) < bad) x = celeris::extract::kBadMesh;
  }
  v[rng() % v.size()] = 2.0f;  // one good mesh at least
  return v;
}

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expect_same_grid(int nx, int ny, int fw, int fh, double fthresh, double bad, Values kind,
                      uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<float> raw = raw_grid(nx, ny, bad, kind, rng);
  const std::string what = std::to_string(nx) + " x " + std::to_string(ny) + " grid, filter " +
                           std::to_string(fw) + " x " + std::to_string(fh) + ", thresh " +
                           std::to_string(fthresh) + ", bad " + std::to_string(bad) + ", kind " +
                           std::to_string(static_cast<int>(kind)) + ", seed " +
                           std::to_string(seed);
  Config config;
  config.back_filter_width = fw;
  config.back_filter_height = fh;
  config.back_filtthresh = fthresh;
  BackgroundMap m;
  m.mesh_w = m.mesh_h = 8;
  m.width = nx * m.mesh_w;
  m.height = ny * m.mesh_h;
  m.nx = nx;
  m.ny = ny;
  m.back = raw;
  m.sigma = raw;
  celeris::extract::finish_background(m, config);

  const gpu::BackGrid g{nx, ny, fw, fh, fthresh};
  ASSERT_TRUE(gpu::back_grid_on_device(g)) << what;
  const size_t n = raw.size();
  celeris::cuda::DeviceBuffer<float> d_raw(n), filled(n), dback(n), u(n);
  d_raw.upload(raw.data(), n);
  // Garbage first: every mesh of the outputs must be written.
  for (auto* b : {&filled, &dback, &u}) CELERIS_CUDA_CHECK(cudaMemset(b->data(), 0x5a, b->bytes()));
  gpu::finish_back_grid(d_raw.data(), g, filled.data(), d_raw.data(), dback.data(), u.data(),
                        nullptr);
  CELERIS_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> back(n), d2(n);
  d_raw.download(back.data(), n);
  dback.download(d2.data(), n);
  for (size_t i = 0; i < n; ++i) {
    if (!same_bits(back[i], m.back[i])) {
      ADD_FAILURE() << what << ": mesh " << i << " back " << back[i] << ", host " << m.back[i];
      return;
    }
    if (!same_bits(d2[i], m.dback[i])) {
      ADD_FAILURE() << what << ": mesh " << i << " dback " << d2[i] << ", host " << m.dback[i];
      return;
    }
  }
}

class GpuBackgroundFinish : public ::testing::Test {
 protected:
  void SetUp() override {
    if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(GpuBackgroundFinish, SameGridAsTheHost) {
  const int grids[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {5, 3}, {13, 9}, {64, 64}, {3, 40}};
  const int filters[][2] = {{1, 1}, {3, 3}, {2, 2}, {5, 5}, {3, 5}, {5, 3}, {1, 5}, {4, 1}};
  uint64_t seed = 1;
  for (const auto& gr : grids)
    for (const auto& f : filters)
      for (double fthresh : {0.0, 0.5, 1e9})
        for (double bad : {0.0, 0.3, 0.95})
          for (Values kind : {Values::Noise, Values::FewLevels, Values::SignedZeros})
            expect_same_grid(gr[0], gr[1], f[0], f[1], fthresh, bad, kind, seed++);
}

TEST_F(GpuBackgroundFinish, AllButOneMeshBad) {
  for (const auto& gr : {std::pair{1, 1}, std::pair{9, 4}, std::pair{64, 64}})
    expect_same_grid(gr.first, gr.second, 3, 3, 0.0, 1.0, Values::Noise, 7);
}

TEST_F(GpuBackgroundFinish, LargerWindowsStayOnTheHost) {
  // A window of more than 32 meshes: the host's nth_element picks among equal values the device
  // would not repeat (background_finish.hpp), so the front end finishes those grids on the host.
  EXPECT_FALSE(gpu::back_grid_on_device({64, 64, 7, 5, 0.0}));
  EXPECT_FALSE(gpu::back_grid_on_device({64, 64, 11, 11, 0.0}));
  EXPECT_TRUE(gpu::back_grid_on_device({64, 64, 5, 5, 0.0}));
  // Along an axis of one mesh the window does not extend: 7 x 5 is a window of 5 there.
  EXPECT_TRUE(gpu::back_grid_on_device({1, 64, 7, 5, 0.0}));
  EXPECT_TRUE(gpu::back_grid_on_device({64, 1, 7, 31, 0.0}));
}

}  // namespace

#endif  // CELERIS_HAVE_CUDA
