// The blanking codes made on the GPU (gpu/blanking_gpu.hpp) against the host's Blanking, pixel
// for pixel: owned, unowned and given-back codes on simulated frames with NaN patches, objects
// merged away at many scan lines and moments, a frame without objects, one smaller than the
// last (pooled buffers reused), and the codes' host copy as Blanking::view() gives it. Skipped
// without a CUDA device (--device cuda's whole catalogs: gpu_front_end_test.cpp).
#ifdef CELERIS_HAVE_CUDA

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "celeris/device.hpp"
#include "core/cuda/device_buffer.hpp"
#include "extract/gpu/blanking_gpu.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/detect.hpp"
#include "gpu_test_frames.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

using Case = gpu_test::FrameCase;

// Builds both blankings of one frame and counts the pixels whose codes differ.
void expect_same_codes(const Case& k) {
  std::mt19937_64 rng(k.seed);
  const gpu_test::TestFrame frame = gpu_test::test_frame(k, rng);
  const Image<float>& value = frame.value;
  const Image<float>& cvalue = frame.cvalue;
  const float thresh = 40.0f;
  const ObjectList objects = detect(value.view(), cvalue.view(), {thresh, 5});
  // Every fifth object merged away at a line or a moment of its own (some before its rows).
  std::vector<CleanVictim> removed;
  for (size_t o = 2; o < objects.size(); o += 5) {
    const int64_t line = static_cast<int64_t>(rng() % (k.height + 20));
    removed.push_back({o, line, o - 1, o - 1, rng() % 2 ? -1 : line + int64_t(rng() % 3)});
  }
  const int lag = 2;
  const Blanking host(value.view(), cvalue.view(), thresh, objects, removed, lag, false, 2);
  const size_t n = static_cast<size_t>(value.size());
  cuda::DeviceBuffer<float> dv(n), dc(n);
  dv.upload(value.data(), n);
  dc.upload(cvalue.data(), n);
  const Blanking gpu(gpu::blanking_codes(dv.data(), dc.data(), k.width, k.height, thresh, objects,
                                         removed, lag, 2),
                     k.width, lag);
  ASSERT_NE(gpu.device_view().code, nullptr);
  EXPECT_EQ(host.device_view().code, nullptr);
  gpu.prefetch_host();
  const BlankingView a = host.view(), b = gpu.view();
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.blank_lag, b.blank_lag);
  size_t differ = 0, owned = 0, given_back = 0;
  for (size_t i = 0; i < n; ++i) {
    differ += a.code[i] != b.code[i];
    owned += a.code[i] > 0;
    given_back += a.code[i] < -1;
  }
  EXPECT_EQ(differ, 0u) << k.width << "x" << k.height << " seed " << k.seed;
  // The cases exercise what they claim to (not a frame of zeros).
  if (k.stars > 0) {
    EXPECT_GT(owned, 0u);
    EXPECT_GT(given_back, 0u);
  }
}

}  // namespace

TEST(GpuBlanking, CodesEqualTheHostsPixelForPixel) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const Case& k : {Case{512, 384, 300, 0, 11, false}, Case{777, 513, 900, 3, 12, true},
                        Case{1500, 1200, 2500, 5, 13, true}, Case{64, 48, 0, 0, 14, false},
                        Case{301, 97, 120, 2, 15, false}})
    expect_same_codes(k);
}

#endif  // CELERIS_HAVE_CUDA
