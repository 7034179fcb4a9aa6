// The GPU front end (--device cuda) against the CPU path on awkward frames: every column of the
// catalog, every check image, bit for bit. Skipped without a CUDA device (label "gpu" via the
// test names' GpuFrontEnd prefix; scripts/device-extract-gpu.sh covers the real frames).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/device_image.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/simulate.hpp"
#include "extract/gpu/device_memory_plan.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/deblend_tree.hpp"
#include "extract/stages/detect.hpp"
#include "extract/stages/filter.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

bool same_image(const Image<float>& a, const Image<float>& b) {
  return a.width() == b.width() && a.height() == b.height() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// `filtered`: ask the FILTERED check image too, which brings the detection image back to the
// host; without it the GPU path leaves it on the device and makes the blanking codes there
// (the other check images then read the codes' host copy).
void expect_same_on_both(const Image<float>& image, Config config, const char* what,
                         bool filtered) {
  MeasureRequest req;
  req.check_images = {CheckImage::Background,      CheckImage::BackgroundRms,
                      CheckImage::MinusBackground, CheckImage::Segmentation,
                      CheckImage::Objects,         CheckImage::MinusObjects,
                      CheckImage::Apertures};
  if (filtered) req.check_images.push_back(CheckImage::Filtered);
  config.device = Backend::Cpu;
  const Result cpu = extract::extract(image.view(), config, req);
  config.device = Backend::Cuda;
  const Result gpu = extract::extract(image.view(), config, req);
  ASSERT_EQ(cpu.objects.size(), gpu.objects.size()) << what;
  EXPECT_EQ(cpu.info.n_detections, gpu.info.n_detections) << what;
  EXPECT_EQ(cpu.info.global_rms, gpu.info.global_rms) << what;
  EXPECT_TRUE(same_bits(cpu.objects.x, gpu.objects.x)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.y, gpu.objects.y)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.flux_iso, gpu.objects.flux_iso)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.flux_auto, gpu.objects.flux_auto)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.flux_aper, gpu.objects.flux_aper)) << what;
  EXPECT_TRUE(same_bits(cpu.objects.background, gpu.objects.background)) << what;
  EXPECT_EQ(cpu.objects.flags, gpu.objects.flags) << what;
  ASSERT_EQ(cpu.check_images.size(), gpu.check_images.size());
  for (size_t i = 0; i < cpu.check_images.size(); ++i)
    EXPECT_TRUE(same_image(cpu.check_images[i], gpu.check_images[i])) << what << ", check " << i;
}

void expect_same_on_both(const Image<float>& image, const Config& config, const char* what) {
  expect_same_on_both(image, config, what, true);
  expect_same_on_both(image, config, what, false);
}

// The warnings of a run sent to the CPU (the GPU could not hold the frame).
int cpu_warnings(const Result& r) {
  int found = 0;
  for (const std::string& w : r.info.warnings)
    found += w.find("the frame is extracted on the CPU") != std::string::npos;
  return found;
}

Image<float> simulated(int w, int h, uint64_t seed, int nan_patches = 0) {
  sim::ImageParams p;
  p.width = w;
  p.height = h;
  p.seed = seed;
  p.n_nan_patches = nan_patches;
  p.n_stars = std::max(1, w * h / 2000);
  return sim::simulate_image(p).pixels;
}

}  // namespace

class GpuFrontEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(GpuFrontEnd, SameAsCpuOnSmallAndOddFrames) {
  for (auto [w, h] : {std::pair{1, 1},
                      {1, 300},
                      {300, 1},
                      {7, 5},
                      {63, 65},
                      {64, 64},
                      {65, 129},
                      {300, 200},
                      {1000, 37}}) {
    std::mt19937 rng(w * 1000 + h);
    std::normal_distribution<float> noise(100.0f, 5.0f);
    Image<float> img(w, h);
    for (auto& v : img.pixels()) v = noise(rng);
    img(w / 2, h / 2) += 500.0f;  // one object
    Config c;
    c.detect_minarea = 1;
    expect_same_on_both(img, c, "noise frame");
  }
}

TEST_F(GpuFrontEnd, SameAsCpuOnSimulationsAndConfigurations) {
  const Image<float> img = simulated(700, 500, 5, 4);
  Config c;
  expect_same_on_both(img, c, "defaults");
  c.back_width = c.back_height = 16;
  c.back_filter_width = c.back_filter_height = 5;
  expect_same_on_both(img, c, "small meshes");
  c = Config{};
  c.back_width = c.back_height = 1000;  // one mesh
  expect_same_on_both(img, c, "one mesh");
  c = Config{};
  c.back_manual = true;
  c.back_value = 1000.0;
  expect_same_on_both(img, c, "BACK_TYPE MANUAL");
  c = Config{};
  c.filter = false;
  c.thresh_type = c.analysis_thresh_type = ThreshType::Absolute;
  c.detect_thresh = c.analysis_thresh = 40;
  expect_same_on_both(img, c, "no filter, absolute threshold");
  c = Config{};
  c.filter_kernel = {0, 1, 0, 1, 4, 1, 0, 1, 0, 1, 2, 1, 0, 1, 0};  // 5 x 3, zero taps
  c.filter_width = 5;
  c.filter_height = 3;
  expect_same_on_both(img, c, "5x3 kernel with zero taps");
  // The back stages' blanking: made on the host for LOCAL (as seen at each detection, which
  // brings the filtered image back), unread with MASK_TYPE NONE.
  c = Config{};
  c.backphoto_type = BackPhotoType::Local;
  c.backphoto_thick = 12;
  expect_same_on_both(img, c, "BACKPHOTO_TYPE LOCAL");
  c = Config{};
  c.mask_type = MaskType::None;
  expect_same_on_both(img, c, "MASK_TYPE NONE");
  // DETECT_TYPE PHOTO: the front end on the GPU, the photometry on the CPU (its exp). The
  // frame as densities of a few units (tests/extract/photo_parity.py's scaling: the brightest
  // pixel 60 above the faintest), whose fluxes exp(density / ngamma) stay finite.
  c = Config{};
  c.photo = true;
  Image<float> densities = img;
  float lo = INFINITY, hi = -INFINITY;
  for (float v : densities.pixels())
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  for (float& v : densities.pixels())
    if (std::isfinite(v)) v = 2.0f + (v - lo) * 60.0f / (hi - lo);
  EXPECT_GT(extract::extract(densities.view(), c, MeasureRequest{}).objects.size(), 50u);
  expect_same_on_both(densities, c, "DETECT_TYPE PHOTO");
}

// SExtractor's pixel stack (MEMORY_PIXSTACK) overflowing: the GPU's labels give no scan order,
// so the frame is detected again on the host (gpu/front_end.cpp) and must give the CPU's
// catalog and warnings; with a stack just large enough, no overflow on either.
TEST_F(GpuFrontEnd, SameAsCpuWhenThePixelStackOverflows) {
  const Image<float> img = simulated(700, 500, 5, 4);
  Config c;
  c.detect_thresh = c.analysis_thresh = 0.3;
  c.memory_pixstack = 1000;
  c.device = Backend::Cpu;
  const Result cpu = extract::extract(img.view(), c);
  ASSERT_FALSE(cpu.info.warnings.empty()) << "the case must overflow the stack";
  c.device = Backend::Cuda;
  const Result gpu = extract::extract(img.view(), c);
  EXPECT_EQ(cpu.info.warnings, gpu.info.warnings);
  expect_same_on_both(img, c, "MEMORY_PIXSTACK 1000");
  c.memory_pixstack = 100000000;
  expect_same_on_both(img, c, "MEMORY_PIXSTACK 1e8");
}

// The detections' chain order and the pixel-stack bound, computed on the device
// (gpu/chain_kernels.cu), against the host's: detect() (lutz_scan over the whole frame) on the
// images the GPU front end returned, every pixel column and flag, and detect.hpp's
// pixel_stack_bound over those detections.
void expect_same_detections(const Image<float>& img, Config c, const std::string& what) {
  c.device = Backend::Cuda;
  c.memory_pixstack = 0;  // no stack: the detections are the GPU's chains
  const FilterParams filter = FilterParams::of(c, 2);
  const FrontEnd fe = gpu::front_end(img.view(), c, filter, 2);
  const ObjectList cpu =
      detect(fe.value, fe.detection_image(), {fe.detect_thresh, c.detect_minarea, 0});
  const ObjectList& gpu = fe.detections;
  ASSERT_EQ(cpu.size(), gpu.size()) << what;
  EXPECT_EQ(cpu.offset, gpu.offset) << what;
  EXPECT_TRUE(cpu.x == gpu.x) << what;
  EXPECT_TRUE(cpu.y == gpu.y) << what;
  EXPECT_TRUE(std::memcmp(cpu.value.data(), gpu.value.data(), 4 * cpu.value.size()) == 0) << what;
  EXPECT_TRUE(std::memcmp(cpu.cvalue.data(), gpu.cvalue.data(), 4 * cpu.value.size()) == 0) << what;
  EXPECT_EQ(cpu.flags, gpu.flags) << what;
  EXPECT_EQ(fe.pixel_stack_bound, -1) << what;
  // Each detection's done line, taken in the gather, as the host's done_lines gives it.
  std::vector<int64_t> own(cpu.size());
  for (size_t i = 0; i < own.size(); ++i) own[i] = static_cast<int64_t>(i);
  EXPECT_EQ(fe.done_lines, done_lines(cpu, own, 1)) << what;
  // Each detection's peaks (gpu/peak_kernels.cu) as the deblender counts them on the host.
  ASSERT_EQ(fe.peaks.size(), cpu.size()) << what;
  DeblendTreeScratch scratch;
  size_t several = 0, mismatches = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const int host = std::min(2, count_peaks(cpu[i], 2, scratch));
    several += host >= 2;
    mismatches += fe.peaks[i] != host;
  }
  EXPECT_EQ(mismatches, 0u) << what << " (" << several << " of " << cpu.size()
                            << " detections of two peaks or more)";
  // The bound, with a stack one entry larger than the frame (so that the bound is taken, and
  // the host's detection that follows a large one cannot overflow), against the host's over
  // the unbounded detections. Frames under MEMORY_PIXSTACK's minimum take no bound.
  const int64_t npix = img.width() * img.height();
  c.memory_pixstack = std::max<int64_t>(kMinPixStack, npix + 1);
  const FrontEnd bounded = gpu::front_end(img.view(), c, filter, 2);
  if (npix >= kMinPixStack - 1)
    EXPECT_EQ(bounded.pixel_stack_bound, pixel_stack_bound(bounded.value, bounded.detection_image(),
                                                           bounded.detect_thresh, cpu, 2))
        << what;
  else
    EXPECT_EQ(bounded.pixel_stack_bound, -1) << what;
}

TEST_F(GpuFrontEnd, ChainOrderAndPixelStackBoundAsOnTheHost) {
  expect_same_detections(simulated(700, 500, 5, 4), Config{}, "sparse with NaN patches");
  sim::ImageParams p;
  p.width = p.height = 1024;
  p.seed = 17;
  p.n_stars = 6000;  // crowded (celeris simulate --density crowded)
  p.n_galaxies = 3000;
  const Image<float> crowded = sim::simulate_image(p).pixels;
  expect_same_detections(crowded, Config{}, "crowded 1024^2");
  Config low;
  low.detect_thresh = low.analysis_thresh = 0.2;  // large merged components
  expect_same_detections(crowded, low, "crowded at 0.2 sigma");
  low.detect_thresh = low.analysis_thresh = 0.02;  // nearly the whole frame one component
  expect_same_detections(crowded, low, "crowded at 0.02 sigma");
  Config one;
  one.detect_minarea = 1;
  one.filter = false;
  expect_same_detections(simulated(1, 300, 3), one, "one column");
  expect_same_detections(simulated(300, 1, 3), one, "one row");
  expect_same_detections(simulated(37, 29, 3), one, "37x29");
  // Every pixel lit: one component as large as the frame, touching every border.
  Image<float> flat(300, 200, 5.0f);
  flat(0, 0) = 4.0f;  // some RMS, so that a relative threshold is defined
  Config absolute;
  absolute.thresh_type = absolute.analysis_thresh_type = ThreshType::Absolute;
  absolute.detect_thresh = absolute.analysis_thresh = 0.5;
  absolute.back_manual = true;
  absolute.back_value = 0.0;
  expect_same_detections(flat, absolute, "all lit");
  // Plateaus: values in steps of 4 ADU and no filter, so that neighbours tie (each of two equal
  // neighbours is a peak when nothing around is higher, on either device).
  Image<float> steps = crowded;
  for (float& v : steps.pixels()) v = 4.0f * std::round(v / 4.0f);
  Config nofilter;
  nofilter.filter = false;
  expect_same_detections(steps, nofilter, "crowded in steps of 4, no filter");
}

TEST_F(GpuFrontEnd, SameErrorsAsCpu) {
  // An all-NaN frame: the GPU path counts the valid pixels on the device (the host's pass is
  // left out), and refuses it with the CPU path's message.
  Image<float> nan_image(40, 30, NAN);
  std::string message[2];
  for (const Backend device : {Backend::Cuda, Backend::Cpu}) {
    Config c;
    c.device = device;
    try {
      extract::extract(nan_image.view(), c);
      ADD_FAILURE() << "an all-NaN frame was extracted on " << device_name(device);
    } catch (const Error& e) {
      message[device == Backend::Cpu] = e.what();
    }
  }
  EXPECT_EQ(message[0], message[1]);
  EXPECT_NE(message[1].find("all pixels are masked"), std::string::npos) << message[1];
  Image<float> flat(40, 30, 5.0f);  // zero RMS everywhere: no object on either device
  expect_same_on_both(flat, Config{}, "flat frame");
}

// Issue 17's largest parity case: a crowded 8192 x 8192 field (as `celeris simulate --size 8192
// --density crowded`: 400,000 stars and 200,000 galaxies), the catalog's columns and every check
// image the CPU path's, the detection image left on the device.
TEST_F(GpuFrontEnd, SameAsCpuOnACrowded8192Field) {
  sim::ImageParams p;
  p.width = p.height = 8192;
  p.seed = 8192;
  p.n_stars = 400000;
  p.n_galaxies = 200000;
  const Image<float> img = sim::simulate_image(p).pixels;
  expect_same_on_both(img, Config{}, "crowded 8192^2", false);
}

// Issue 17's target workload: a 4096 x 4096 frame with about 150k objects in its catalog (the
// frame of `celeris simulate --size 4096 --seed 7 --density dense`: 149,086 rows), the
// GPU-SExtractor paper's 167k-object frame. The object stack is full for most of the clean pass
// and the deblending splits some 58k objects more.
TEST_F(GpuFrontEnd, SameAsCpuOnThePapersWorkload) {
  sim::ImageParams p;
  p.width = p.height = 4096;
  p.seed = 7;
  sim::apply_density(p, sim::Density::Dense);
  const Image<float> img = sim::simulate_image(p).pixels;
  expect_same_on_both(img, Config{}, "dense 4096^2", false);
}

// A frame already in device memory (DeviceImage, owned or borrowed): the same catalog as from
// host memory, on either device, and the same errors.
TEST_F(GpuFrontEnd, DeviceResidentFrameGivesTheSameCatalog) {
  const Image<float> img = simulated(700, 500, 9, 3);
  Config c;
  c.device = Backend::Cpu;
  const Result host = extract::extract(img.view(), c);
  const DeviceImage owned = DeviceImage::upload(img.view());
  const DeviceImage borrowed = DeviceImage::borrow(owned.address(), owned.width(), owned.height());
  for (const DeviceImage* d : {&owned, &borrowed})
    for (Backend device : {Backend::Cuda, Backend::Cpu}) {
      c.device = device;
      const Result r = extract::extract(*d, c);
      ASSERT_EQ(r.objects.size(), host.objects.size());
      EXPECT_TRUE(same_bits(r.objects.x, host.objects.x));
      EXPECT_TRUE(same_bits(r.objects.flux_auto, host.objects.flux_auto));
      EXPECT_TRUE(same_bits(r.objects.flux_aper, host.objects.flux_aper));
      EXPECT_EQ(r.objects.flags, host.objects.flags);
    }
  EXPECT_TRUE(same_image(owned.download(), img));
  Image<float> nan_image(40, 30, NAN);
  c.device = Backend::Cuda;
  EXPECT_THROW(extract::extract(DeviceImage::upload(nan_image.view()), c), Error);
  int on_host = 0;
  EXPECT_THROW(DeviceImage::borrow(reinterpret_cast<std::uintptr_t>(&on_host), 1, 1), Error);
  EXPECT_THROW(DeviceImage::borrow(owned.address(), 0, 5), Error);
}

// A frame planned at more device memory than Config::gpu_memory_bytes allows runs on the CPU
// (gpu/device_memory_plan.hpp): the same catalog, a warning saying so; from host memory and from
// device memory alike. Under the limit, no warning.
TEST_F(GpuFrontEnd, AFrameOverTheMemoryLimitIsOnTheCpu) {
  const Image<float> img = simulated(600, 500, 41);
  Config c;
  c.gpu_memory_bytes = int64_t{1} << 20;  // far less than a 600 x 500 frame plans for
  expect_same_on_both(img, c, "over the memory limit");
  c.device = Backend::Cuda;
  const Result from_host = extract::extract(img.view(), c);
  EXPECT_EQ(cpu_warnings(from_host), 1);
  const Result from_device = extract::extract(DeviceImage::upload(img.view()), c);
  EXPECT_EQ(cpu_warnings(from_device), 1);
  EXPECT_TRUE(same_bits(from_host.objects.flux_auto, from_device.objects.flux_auto));
  c.gpu_memory_bytes = 0;  // the device's own memory
  EXPECT_EQ(cpu_warnings(extract::extract(img.view(), c)), 0);
  c.gpu_memory_bytes = -1;
  EXPECT_THROW(extract::extract(img.view(), c), Error);
}

namespace {

// A crowded field (the density of `celeris simulate --density crowded`) with masked patches:
// thousands of detections, blends and objects across any band's edge.
Image<float> crowded(int w, int h, uint64_t seed) {
  sim::ImageParams p;
  p.width = w;
  p.height = h;
  p.seed = seed;
  p.n_stars = w * h / 175;
  p.n_galaxies = w * h / 350;
  p.n_nan_patches = 3;
  return sim::simulate_image(p).pixels;
}

bool in_bands(const Result& r) {
  for (const auto& [name, s] : r.info.stage_seconds)
    if (name.rfind("gpu detection in bands of", 0) == 0) return true;
  return false;
}

// A run whose detection ran in bands on the GPU, not sent to the CPU.
void expect_in_bands_on_the_gpu(const Result& r, const std::string& what) {
  EXPECT_TRUE(in_bands(r)) << what;
  EXPECT_EQ(cpu_warnings(r), 0) << what;
}

template <class Column>
bool same_column(const Column& a, const Column& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
}

}  // namespace

// The detection in bands of rows (Config::gpu_band_rows) gives the whole frame's detections: the
// same components in the same order, each pixel's coordinates and values, FLAGS, done lines,
// peaks, and the pixel stack's bound (with the stack large, and small enough that the bound
// sends the frame to the host's detection), for bands of the least rows allowed and more, one
// row short of the frame, and bands that do not divide it.
TEST_F(GpuFrontEnd, BandsOfRowsGiveTheWholeFramesDetections) {
  const Image<float> img = crowded(1024, 1000, 61);
  for (const int64_t pixstack : {int64_t{300000}, int64_t{2000}}) {
    Config c;
    c.device = Backend::Cuda;
    c.memory_pixstack = pixstack;
    const FilterParams f = FilterParams::of(c, 1);
    const FrontEnd whole = gpu::front_end(img.view(), c, f, 4);
    ASSERT_GT(whole.detections.size(), 2000u);
    for (const int64_t rows : {int64_t{64}, int64_t{100}, int64_t{257}, int64_t{999}}) {
      c.gpu_band_rows = rows;
      const FrontEnd banded = gpu::front_end(img.view(), c, f, 4);
      const std::string what =
          "bands of " + std::to_string(rows) + " rows, stack " + std::to_string(pixstack);
      const ObjectList &a = whole.detections, &b = banded.detections;
      ASSERT_EQ(a.size(), b.size()) << what;
      EXPECT_EQ(a.offset, b.offset) << what;
      EXPECT_TRUE(same_column(a.x, b.x)) << what;
      EXPECT_TRUE(same_column(a.y, b.y)) << what;
      EXPECT_TRUE(same_column(a.value, b.value)) << what;
      EXPECT_TRUE(same_column(a.cvalue, b.cvalue)) << what;
      EXPECT_EQ(a.flags, b.flags) << what;
      EXPECT_EQ(whole.done_lines, banded.done_lines) << what;
      EXPECT_EQ(whole.peaks, banded.peaks) << what;
      EXPECT_EQ(whole.pixel_stack_bound, banded.pixel_stack_bound) << what;
      EXPECT_EQ(whole.warnings, banded.warnings) << what;
    }
  }
}

// Through the pipeline: a frame in bands gives the CPU path's catalog and check images.
TEST_F(GpuFrontEnd, AFrameInBandsGivesTheCpuCatalog) {
  const Image<float> img = crowded(700, 640, 67);
  Config c;
  c.gpu_band_rows = 90;
  expect_same_on_both(img, c, "bands of 90 rows");
  c.device = Backend::Cuda;
  expect_in_bands_on_the_gpu(extract::extract(img.view(), c), "bands of 90 rows");
  c.gpu_band_rows = -1;
  EXPECT_THROW(extract::extract(img.view(), c), Error);
}

// A frame over the memory limit whose detection fits in bands runs on the GPU in bands (host
// and device-resident frames alike), the CPU path's catalog.
TEST_F(GpuFrontEnd, AFrameOverTheMemoryLimitIsDetectedInBands) {
  const Image<float> img = crowded(800, 900, 71);
  const int64_t pixels = int64_t{800} * 900;
  Config c;
  // Room for bands of about 200 rows, not for the whole frame's detection.
  c.gpu_memory_bytes =
      static_cast<int64_t>(gpu::banded_frame_device_bytes(pixels, 800 * 200) / gpu::kUsableShare) +
      1000;
  ASSERT_GT(gpu::frame_device_bytes(pixels), c.gpu_memory_bytes);
  const int64_t rows = gpu::detection_band_rows(800, 900, 1, 0, c.gpu_memory_bytes);
  EXPECT_GE(rows, 199);
  EXPECT_LE(rows, 201);
  EXPECT_EQ(gpu::detection_band_rows(800, 900, 1, 0, int64_t{1} << 20), 0);  // not even a band
  expect_same_on_both(img, c, "bands by the memory limit");
  c.device = Backend::Cuda;
  const Result from_host = extract::extract(img.view(), c);
  expect_in_bands_on_the_gpu(from_host, "from host memory");
  const Result from_device = extract::extract(DeviceImage::upload(img.view()), c);
  expect_in_bands_on_the_gpu(from_device, "from device memory");
  EXPECT_TRUE(same_bits(from_host.objects.flux_auto, from_device.objects.flux_auto));
}

// A detection taller than a band: the frame goes to the CPU whole, with a warning naming it.
TEST_F(GpuFrontEnd, ADetectionTallerThanABandSendsTheFrameToTheCpu) {
  Image<float> img = crowded(400, 500, 73);
  for (int y = 100; y < 400; ++y)
    for (int x = 200; x < 203; ++x) img(x, y) += 5000.0f;  // a trail 300 rows tall
  Config c;
  c.gpu_band_rows = 64;
  expect_same_on_both(img, c, "a detection taller than a band");
  c.device = Backend::Cuda;
  const Result r = extract::extract(img.view(), c);
  EXPECT_FALSE(in_bands(r));
  ASSERT_EQ(cpu_warnings(r), 1);
  bool named = false;
  for (const std::string& w : r.info.warnings)
    named |= w.find("spans a whole band") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(DeviceImageWithoutGpu, IsRefusedWithAMessage) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  Image<float> img(4, 4, 1.0f);
  EXPECT_THROW(DeviceImage::upload(img.view()), Error);
}
