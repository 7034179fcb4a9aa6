// Detection with weight maps on the GPU (gpu/detect_weighted_gpu.hpp) against the host's
// detect_weighted, every column bit for bit, and the weighted pipeline's catalogs on both
// devices. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/extract.hpp"
#include "celeris/simulate.hpp"
#include "extract/gpu/detect_weighted_gpu.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/detect.hpp"
#include "extract/stages/filter.hpp"
#include "weighted_detections_compare.hpp"

using namespace celeris;
using namespace celeris::extract;
using celeris::extract::testing::expect_same_detections;
using celeris::extract::testing::same_bits;

namespace {

// A crowded field, background-subtracted by its median (the detection does not care how), a few
// NaN patches; its filtered image; a variance map rising across the field with a rectangle of
// bad pixels (1e30), and each pixel's threshold 1.5 sigma of it.
struct WeightedField {
  Image<float> value, cvalue, var, thresh;
};

WeightedField weighted_field(int w, int h, uint64_t seed) {
  sim::ImageParams p;
  p.width = w;
  p.height = h;
  p.seed = seed;
  p.n_stars = w * h / 150;  // crowded: blends, long chains
  p.n_nan_patches = 2;
  WeightedField f;
  f.value = sim::simulate_image(p).pixels;
  std::vector<float> finite;
  for (int64_t i = 0; i < f.value.size(); ++i)
    if (!std::isnan(f.value.data()[i])) finite.push_back(f.value.data()[i]);
  std::nth_element(finite.begin(), finite.begin() + finite.size() / 2, finite.end());
  const float median = finite[finite.size() / 2];
  for (int64_t i = 0; i < f.value.size(); ++i) f.value.data()[i] -= median;
  Config c;
  FilterParams fp = FilterParams::of(c, 2);
  f.cvalue = detection_image(f.value.view(), fp);
  f.var = Image<float>(w, h);
  f.thresh = Image<float>(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool bad = x > w / 3 && x < w / 3 + 40 && y > h / 4 && y < h / 2;
      f.var(x, y) = bad ? 1e30f : 20.0f + 60.0f * float(x) / float(w) + 10.0f * float(y) / float(h);
      f.thresh(x, y) = static_cast<float>(1.5 * std::sqrt(static_cast<double>(f.var(x, y))));
    }
  return f;
}

void expect_same(const ObjectList& cpu, const gpu::WeightedDetections& gpu,
                 const std::string& what) {
  expect_same_detections(cpu, gpu.detections, 50, what);
  std::vector<int64_t> own(cpu.size());
  for (size_t i = 0; i < own.size(); ++i) own[i] = static_cast<int64_t>(i);
  EXPECT_EQ(gpu.done_lines, done_lines(cpu, own, 1)) << what;
}

}  // namespace

class GpuWeightedDetection : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

// With a threshold map and a variance map, with either alone, with neither, and on the image
// itself (FILTER N): the host's detections, pixel for pixel.
TEST_F(GpuWeightedDetection, SameAsTheHost) {
  const WeightedField f = weighted_field(640, 480, 71);
  Config c;
  c.memory_pixstack = 0;  // no stack: every pixel kept, on either device
  const float t = 6.0f;   // where no map gives the threshold
  struct Case {
    const char* what;
    bool thresh, var, filtered;
  };
  for (const Case& k :
       {Case{"threshold and variance maps", true, true, true},
        Case{"threshold map", true, false, true}, Case{"variance map", false, true, true},
        Case{"no map", false, false, true}, Case{"maps, FILTER N", true, true, false}}) {
    const ImageView<const float> cv = k.filtered ? f.cvalue.view() : f.value.view();
    const ImageView<const float> th = k.thresh ? f.thresh.view() : ImageView<const float>{};
    const ImageView<const float> va = k.var ? f.var.view() : ImageView<const float>{};
    const ObjectList cpu = detect_weighted(f.value.view(), cv, th, va, {t, c.detect_minarea, 0});
    expect_same(cpu, gpu::detect_weighted_gpu(f.value.view(), cv, th, va, t, c, 2), k.what);
  }
  // DETECT_MINAREA 1 and 12.
  for (const int minarea : {1, 12}) {
    c.detect_minarea = minarea;
    const ObjectList cpu = detect_weighted(f.value.view(), f.cvalue.view(), f.thresh.view(),
                                           f.var.view(), {t, minarea, 0});
    expect_same(cpu,
                gpu::detect_weighted_gpu(f.value.view(), f.cvalue.view(), f.thresh.view(),
                                         f.var.view(), t, c, 2),
                "DETECT_MINAREA " + std::to_string(minarea));
  }
}

namespace {

// The weighted pipeline on both devices: the same catalog. `where`: where the run's warning
// says the detection ran with --device cuda (the host's weighted front end), or empty where the
// whole front end ran on the GPU (gpu/weighted_front_end_gpu.hpp), whose steps `stage` (a step
// of the run's timings) names.
void expect_same_catalogs(const Image<float>& image, Config c, const MeasureRequest& req,
                          const std::string& what, const std::string& where,
                          const std::string& stage = "") {
  c.device = Backend::Cpu;
  const Result cpu = extract::extract(image.view(), c, req);
  c.device = Backend::Cuda;
  const Result gpu = extract::extract(image.view(), c, req);
  ASSERT_EQ(cpu.objects.size(), gpu.objects.size()) << what;
  EXPECT_GT(cpu.objects.size(), 100u) << what;
  EXPECT_GT(cpu.info.n_deblended, cpu.info.n_detections) << what;  // blends were split
  EXPECT_TRUE(same_bits(cpu.objects.x, gpu.objects.x)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.y, gpu.objects.y)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.flux_iso, gpu.objects.flux_iso)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.fluxerr_iso, gpu.objects.fluxerr_iso)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.flux_auto, gpu.objects.flux_auto)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.fluxerr_auto, gpu.objects.fluxerr_auto)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.flux_aper, gpu.objects.flux_aper)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.threshold, gpu.objects.threshold)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.fwhm, gpu.objects.fwhm)) << what;
  EXPECT_EQ(cpu.objects.flags, gpu.objects.flags) << what;
  bool said = false, host_front = false;
  for (const std::string& w : gpu.info.warnings) {
    said |= !where.empty() && w.find("the detection " + where) != std::string::npos;
    host_front |= w.find("with weight maps") != std::string::npos;
  }
  if (!where.empty()) {
    EXPECT_TRUE(said) << what << ": the warning says the detection ran " << where;
  } else {
    EXPECT_FALSE(host_front) << what << ": the front end ran on the host";
  }
  if (!stage.empty()) {
    bool timed = false;
    for (const auto& step : gpu.info.stage_seconds) timed |= step.first == stage;
    EXPECT_TRUE(timed) << what << ": no step \"" << stage << "\" in the run's timings";
  }
}

}  // namespace

// A crowded field with a weight map (MAP_WEIGHT, MAP_RMS with an absolute threshold, separate
// detection and measurement maps), and with a pixel stack too small for it (the detection then
// on the host): the CPU path's catalog.
TEST_F(GpuWeightedDetection, WeightedCatalogsAreTheCpuPaths) {
  sim::ImageParams p;
  p.width = 700;
  p.height = 600;
  p.seed = 83;
  p.n_stars = 2500;
  const Image<float> image = sim::simulate_image(p).pixels;
  Image<float> weight(image.width(), image.height()), rms(image.width(), image.height());
  for (int64_t y = 0; y < image.height(); ++y)
    for (int64_t x = 0; x < image.width(); ++x) {
      const bool bad = x > 300 && x < 360 && y > 100 && y < 400;
      weight(x, y) = bad ? 0.0f : 0.5f + float(x) / 700.0f;
      rms(x, y) = 4.0f + float(y) / 300.0f;
    }
  Config c;
  c.phot_apertures = {3.0, 8.0};
  MeasureRequest req;
  req.weight_map = weight.view();
  c.detect_weight.type = WeightType::MapWeight;
  c.measure_weight.type = WeightType::MapWeight;
  expect_same_catalogs(image, c, req, "MAP_WEIGHT", "", "gpu weighted: background meshes");
  // BACKPHOTO_TYPE LOCAL: the host's blanking, from the detection image and each pixel's
  // threshold brought back.
  Config local = c;
  local.backphoto_type = BackPhotoType::Local;
  expect_same_catalogs(image, local, req, "MAP_WEIGHT, BACKPHOTO_TYPE LOCAL", "",
                       "gpu weighted: background meshes");
  Config r = c;
  MeasureRequest rreq;
  rreq.weight_map = rms.view();
  r.detect_weight.type = WeightType::MapRms;
  r.measure_weight.type = WeightType::MapRms;
  r.thresh_type = ThreshType::Absolute;
  r.detect_thresh = 12.0;
  r.analysis_thresh = 12.0;
  expect_same_catalogs(image, r, rreq, "MAP_RMS, THRESH_TYPE ABSOLUTE", "",
                       "gpu weighted: background meshes");
  Config sep = c;
  sep.separate_weights = true;
  sep.measure_weight.type = WeightType::MapRms;
  MeasureRequest sreq;
  sreq.detect_weight_map = weight.view();
  sreq.weight_map = rms.view();
  expect_same_catalogs(image, sep, sreq, "MAP_WEIGHT, MAP_RMS", "on the GPU");
  c.memory_pixstack = 300;
  expect_same_catalogs(image, c, req, "MAP_WEIGHT, MEMORY_PIXSTACK 300", "",
                       "host detection (MEMORY_PIXSTACK may overflow)");
}
