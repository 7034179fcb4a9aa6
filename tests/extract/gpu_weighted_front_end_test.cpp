// The weighted front end on the GPU (gpu/weighted_front_end_gpu.hpp) against the host's
// (stages/weights_front_end.hpp): the background map, the subtracted and filtered images, the
// variance and threshold maps and every detection column, bit for bit, over the weight types,
// RESCALE_WEIGHTS, INTERP_TYPE and its lags, FILTER, THRESH_TYPE and BACK_TYPE, on maps whose bad
// pixels come in every shape the interpolation meets. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/extract.hpp"
#include "celeris/simulate.hpp"
#include "extract/gpu/weighted_front_end_gpu.hpp"
#include "extract/stages/dual_image.hpp"
#include "extract/stages/weights_front_end.hpp"
#include "weighted_detections_compare.hpp"

using namespace celeris;
using namespace celeris::extract;
using celeris::extract::testing::expect_same_detections;
using celeris::extract::testing::same_bits;

namespace {

// A weight map (MAP_WEIGHT's units: larger is better) with bad pixels (weight 0) in every
// shape: a rectangle, scattered pixels, runs longer and shorter than the lags, a whole row, a
// column segment and (`border`) the first and last columns, which make every row a bad one.
Image<float> weight_map(int w, int h, uint64_t seed, bool bad_pixels, bool border) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> noise(0.8f, 1.2f);
  std::uniform_int_distribution<int> pick(0, 199);
  Image<float> m(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float v = (0.5f + float(x) / float(w) + 0.3f * float(y) / float(h)) * noise(rng);
      if (bad_pixels) {
        const bool rect = x > w / 3 && x < w / 3 + 30 && y > h / 4 && y < h / 2;
        const bool scattered = pick(rng) == 0;
        const bool run = (y % 37 == 5 && x >= 10 && x < 10 + (y % 5) * 9) ||
                         (y % 41 == 7 && x < 25);  // from the row's start: above or nothing
        const bool row = y == h / 2 + 11;
        const bool column = x == w / 5 && y > 40 && y < 90;
        const bool edge = border && (x == 0 || x == w - 1);
        if (rect || scattered || run || row || column || edge) v = 0.0f;
      }
      m(x, y) = v;
    }
  return m;
}

// The same map in `type`'s units (a weight w is the variance 1 / w, the RMS 1 / sqrt(w)); bad
// pixels huge for MAP_RMS and MAP_VAR.
Image<float> in_units(const Image<float>& weight, WeightType type) {
  Image<float> m(weight.width(), weight.height());
  for (int64_t i = 0; i < m.size(); ++i) {
    const float w = weight.data()[i];
    const float var = w > 0.0f ? 1.0f / w : 1e30f;
    m.data()[i] = type == WeightType::MapWeight ? w
                  : type == WeightType::MapVar  ? var
                                                : (w > 0.0f ? std::sqrt(var) : 1e30f);
  }
  return m;
}

void expect_same(const FrontEnd& cpu, const WeightMaps& cmaps, const FrontEnd& gpu,
                 const WeightMaps& gmaps, bool filtered, const std::string& what) {
  const BackgroundMap &a = cpu.background, &b = gpu.background;
  EXPECT_TRUE(same_bits(a.back, b.back)) << what;
  EXPECT_TRUE(same_bits(a.sigma, b.sigma)) << what;
  EXPECT_EQ(a.global_back, b.global_back) << what;
  EXPECT_EQ(a.global_rms, b.global_rms) << what;
  EXPECT_EQ(cpu.detect_thresh, gpu.detect_thresh) << what;
  EXPECT_EQ(cpu.analysis_thresh, gpu.analysis_thresh) << what;
  EXPECT_TRUE(same_bits(cpu.value, gpu.value)) << what << ": the subtracted image";
  if (filtered) EXPECT_TRUE(same_bits(cpu.filtered, gpu.filtered)) << what << ": filtered";
  EXPECT_EQ(cmaps.wthresh, gmaps.wthresh) << what;
  EXPECT_EQ(cmaps.dwthresh, gmaps.dwthresh) << what;
  EXPECT_TRUE(same_bits(cmaps.var.view(), gmaps.var.view())) << what << ": the variances";
  EXPECT_TRUE(same_bits(cmaps.thresh.view(), gmaps.thresh.view())) << what << ": thresholds";
  expect_same_detections(cpu.detections, gpu.detections, 30, what);
}

}  // namespace

class GpuWeightedFrontEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(GpuWeightedFrontEnd, SameAsTheHost) {
  sim::ImageParams p;
  p.width = 520;
  p.height = 390;
  p.seed = 29;
  p.n_stars = 1500;
  const Image<float> image = sim::simulate_image(p).pixels;
  struct Case {
    std::string what;
    WeightType type = WeightType::MapWeight;
    bool bad_pixels = true, border = false;
    std::function<void(Config&)> set = [](Config&) {};
  };
  const std::vector<Case> cases = {
      {"MAP_WEIGHT"},
      {"MAP_WEIGHT, bad first and last columns", WeightType::MapWeight, true, true},
      {"MAP_WEIGHT, no bad pixel", WeightType::MapWeight, false},
      {"MAP_WEIGHT, RESCALE_WEIGHTS N", WeightType::MapWeight, true, false,
       [](Config& c) { c.measure_weight.rescale = c.detect_weight.rescale = false; }},
      {"MAP_VAR, INTERP_MAXXLAG 3, INTERP_MAXYLAG 2", WeightType::MapVar, true, false,
       [](Config& c) {
         c.measure_weight.xlag = c.detect_weight.xlag = 3;
         c.measure_weight.ylag = c.detect_weight.ylag = 2;
       }},
      {"MAP_VAR, INTERP_MAXXLAG 0", WeightType::MapVar, true, true,
       [](Config& c) { c.measure_weight.xlag = c.detect_weight.xlag = 0; }},
      {"MAP_RMS, WEIGHT_THRESH 2, INTERP_TYPE VAR_ONLY", WeightType::MapRms, true, false,
       [](Config& c) {
         c.measure_weight.thresh = c.detect_weight.thresh = 2.0;
         c.interp_image = false;
       }},
      {"MAP_RMS, INTERP_TYPE NONE", WeightType::MapRms, true, false,
       [](Config& c) { c.measure_weight.interpolate = c.detect_weight.interpolate = false; }},
      {"MAP_WEIGHT, FILTER N", WeightType::MapWeight, true, true,
       [](Config& c) { c.filter = false; }},
      {"MAP_RMS, THRESH_TYPE ABSOLUTE", WeightType::MapRms, true, false,
       [](Config& c) {
         c.thresh_type = c.analysis_thresh_type = ThreshType::Absolute;
         c.detect_thresh = c.analysis_thresh = 30.0;
       }},
      {"MAP_WEIGHT, BACK_TYPE MANUAL", WeightType::MapWeight, true, false,
       [](Config& c) {
         c.back_manual = true;
         c.back_value = 990.0;
       }},
  };
  for (const Case& k : cases) {
    const Image<float> map =
        in_units(weight_map(p.width, p.height, 5, k.bad_pixels, k.border), k.type);
    Config c;
    c.memory_pixstack = 0;  // no stack: every pixel kept, on either device
    c.measure_weight.type = c.detect_weight.type = k.type;
    k.set(c);
    MeasureRequest req;
    req.weight_map = map.view();
    const FilterParams f = FilterParams::of(c, 2);
    ASSERT_TRUE(gpu::weighted_front_end_fits(c, false)) << k.what;
    WeightMaps cmaps, gmaps;
    MeasureImage measure;
    c.device = Backend::Cpu;
    const FrontEnd cpu = weighted_front_end(image.view(), req, c, f, 2, cmaps, measure);
    const FrontEnd gpu = gpu::weighted_front_end_gpu(image.view(), map.view(), c, f, 2, gmaps);
    gpu.wait_for_host_images();
    ASSERT_TRUE(gpu.fill_weight_maps) << k.what;
    gpu.fill_weight_maps(gmaps, 4);
    expect_same(cpu, cmaps, gpu, gmaps, c.filter, k.what);
  }
}

// What it does not take: dual-image mode, separate maps, WEIGHT_TYPE BACKGROUND.
TEST_F(GpuWeightedFrontEnd, TakesOneImageAndOneMapFromAFile) {
  Config c;
  for (const WeightType t : {WeightType::MapWeight, WeightType::MapVar, WeightType::MapRms}) {
    c.measure_weight.type = c.detect_weight.type = t;
    EXPECT_TRUE(gpu::weighted_front_end_fits(c, false)) << weight_type_name(t);
    EXPECT_FALSE(gpu::weighted_front_end_fits(c, true)) << weight_type_name(t);
  }
  Config sep = c;
  sep.separate_weights = true;
  EXPECT_FALSE(gpu::weighted_front_end_fits(sep, false));
  Config bg = c;
  bg.measure_weight.type = bg.detect_weight.type = WeightType::Background;
  EXPECT_FALSE(gpu::weighted_front_end_fits(bg, false));
}

// A weighted frame in which nothing passes the threshold: no detection and an empty catalog on
// either device, no error.
TEST_F(GpuWeightedFrontEnd, AFrameWithoutDetections) {
  sim::ImageParams p;
  p.width = 300;
  p.height = 200;
  p.seed = 3;
  p.n_stars = 40;
  const Image<float> image = sim::simulate_image(p).pixels;
  const Image<float> map = weight_map(p.width, p.height, 9, true, true);
  Config c;
  c.measure_weight.type = c.detect_weight.type = WeightType::MapWeight;
  c.detect_thresh = c.analysis_thresh = 1e6;
  MeasureRequest req;
  req.weight_map = map.view();
  for (const Backend b : {Backend::Cpu, Backend::Cuda}) {
    c.device = b;
    const Result r = extract::extract(image.view(), c, req);
    EXPECT_EQ(r.objects.size(), 0u) << (b == Backend::Cuda ? "cuda" : "cpu");
    EXPECT_EQ(r.info.n_detections, 0u) << (b == Backend::Cuda ? "cuda" : "cpu");
  }
}
