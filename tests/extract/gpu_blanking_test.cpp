// The blanking codes made on the GPU (gpu/blanking_gpu.hpp) against the host's Blanking, pixel
// for pixel: owned, unowned and given-back codes on simulated frames with NaN patches, objects
// merged away at many scan lines and moments, a frame without objects, one smaller than the
// last (pooled buffers reused), and the codes' host copy as Blanking::view() gives it. The same
// from a draft (blanking_draft.hpp: every object's codes from its pixel indexes on the device,
// added in two pieces on two streams, then only the merged objects' pixels), and from a draft
// short of objects (made whole instead). Skipped without a CUDA device (--device cuda's whole
// catalogs: gpu_front_end_test.cpp).
#ifdef CELERIS_HAVE_CUDA

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "celeris/device.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/blanking_draft.hpp"
#include "extract/gpu/blanking_gpu.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/detect.hpp"
#include "gpu_test_frames.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

using Case = gpu_test::FrameCase;

// The pixels whose codes differ between two blankings of n pixels.
size_t differing(const Blanking& host, const Blanking& gpu, size_t n) {
  const BlankingView a = host.view(), b = gpu.view();
  size_t differ = 0;
  for (size_t i = 0; i < n; ++i) differ += a.code[i] != b.code[i];
  return differ;
}

// The codes from a draft to which objects 0 .. drafted - 1 are added, in two pieces on two
// streams (the pixel indexes and offsets uploaded here, as shapes_gpu.cpp uploads them).
Blanking drafted_codes(const float* dv, const float* dc, const Case& k, float thresh,
                       const ObjectList& objects, const std::vector<CleanVictim>& removed, int lag,
                       size_t drafted) {
  std::vector<int32_t> index(objects.pixel_count());
  for (size_t i = 0; i < index.size(); ++i) index[i] = objects.y[i] * k.width + objects.x[i];
  cuda::DeviceBuffer<int32_t> d_index(std::max<size_t>(index.size(), 1));
  cuda::DeviceBuffer<int64_t> d_offset(objects.offset.size());
  d_index.upload(index.data(), index.size());
  d_offset.upload(objects.offset.data(), objects.offset.size());
  std::shared_ptr<gpu::BlankingDraft> draft =
      gpu::blanking_draft(dv, dc, k.width, k.height, thresh);
  cuda::Stream one, two;
  const size_t half = drafted / 2;
  draft->add(one.get(), d_index.data(), d_offset.data(), 0, half);
  // The second piece's offsets are its own objects', its indexes from its first pixel.
  std::vector<int64_t> rest(objects.offset.begin() + half, objects.offset.begin() + drafted + 1);
  for (int64_t& o : rest) o -= objects.offset[half];
  cuda::DeviceBuffer<int64_t> d_rest(rest.size());
  d_rest.upload(rest.data(), rest.size());
  draft->add(two.get(), d_index.data() + objects.offset[half], d_rest.data(), half, drafted - half);
  return Blanking(gpu::blanking_codes(draft, k.width, objects, removed, lag, 2), k.width, lag);
}

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
  if (objects.size() > 0) {
    EXPECT_EQ(differing(host,
                        drafted_codes(dv.data(), dc.data(), k, thresh, objects, removed, lag,
                                      objects.size()),
                        n),
              0u)
        << "from a draft, " << k.width << "x" << k.height << " seed " << k.seed;
    EXPECT_EQ(differing(host,
                        drafted_codes(dv.data(), dc.data(), k, thresh, objects, removed, lag,
                                      objects.size() - 1),
                        n),
              0u)
        << "from a draft short of an object, " << k.width << "x" << k.height << " seed " << k.seed;
  }
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
