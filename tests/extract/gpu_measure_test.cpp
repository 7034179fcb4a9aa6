// The GPU measurement (gpu/measure_gpu.hpp: FLUX_APER, FLUX_AUTO, FLUXERR_AUTO, KRON_RADIUS,
// FLUX_RADIUS and the half-light radius) against the CPU's photometry functions, bit for bit:
// on simulated frames, sparse and crowded, with NaN patches, objects on the border, odd sizes,
// blanking codes of every kind (owned, unowned, given back by cleaning) seen at many scan lines,
// line-buffer rows, MASK_TYPE NONE / BLANK / CORRECT, weight maps, a detection image of its own
// and PHOT_AUTOAPERS; then whole catalogs, --device cuda against --device cpu. Skipped without a
// CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/extract.hpp"
#include "celeris/simulate.hpp"
#include "extract/gpu/measure_gpu.hpp"
#include "extract/gpu/measure_object.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/detect.hpp"
#include "extract/stages/measure.hpp"
#include "extract/stages/moments.hpp"
#include "extract/stages/photometry.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
size_t count_differences(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += !same_bits(a[i], b[i]);
  return n;
}

// A frame to measure: the background-subtracted pixels, its detections and their shapes, and
// the blanking codes SExtractor's scan would have left.
struct Frame {
  Image<float> value, var, dvar, dvalue;
  ObjectList objects;
  std::vector<Shape> shapes;
  Blanking blanking;
};

Frame make_frame(int w, int h, int stars, uint64_t seed, int nan_patches) {
  sim::ImageParams p;
  p.width = w;
  p.height = h;
  p.seed = seed;
  p.n_stars = stars;
  p.n_nan_patches = nan_patches;
  Frame f;
  f.value = sim::simulate_image(p).pixels;
  for (auto& v : f.value.pixels()) v -= 1000.0f;  // the simulation's background, roughly
  const float thresh = 40.0f, low = 25.0f;        // ~1.7 and ~1.1 sigma
  f.objects = detect(f.value.view(), f.value.view(), {thresh, 5});
  f.shapes.resize(f.objects.size());
  for (size_t k = 0; k < f.objects.size(); ++k)
    f.shapes[k] = compute_shape(f.objects[k], thresh, false);
  // Pixels above `low` but in no object are detected and unowned (-1); every seventh object is
  // "merged away" by cleaning, its pixels given back at a scan line of its own.
  std::vector<CleanVictim> removed;
  std::mt19937_64 rng(seed);
  for (size_t k = 3; k < f.objects.size(); k += 7)
    removed.push_back({k, static_cast<int64_t>(rng() % (h + 20)), k - 1, k - 1});
  f.blanking = Blanking(f.value.view(), f.value.view(), low, f.objects, removed, 3, false, 2, {});
  // Weights: a variance map with a few bad pixels, and a detection image and variance of their
  // own (dual-image mode), for the weighted tests.
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  f.var = Image<float>(w, h);
  f.dvar = Image<float>(w, h);
  f.dvalue = Image<float>(w, h);
  for (int64_t i = 0; i < f.value.size(); ++i) {
    f.var.data()[i] = u(rng) < 0.02f ? 1e30f : 400.0f + 200.0f * u(rng);
    f.dvar.data()[i] = u(rng) < 0.02f ? 1e30f : 400.0f + 200.0f * u(rng);
    const float v = f.value.data()[i];
    f.dvalue.data()[i] = std::isnan(v) ? v : 0.8f * v + 10.0f * (u(rng) - 0.5f);
  }
  return f;
}

// Each object as measured at some scan line (after the scan, or while the buffer still held
// it), with the line buffer's rows then (never above the image) and sometimes a local
// background.
std::vector<ApertureShape> aperture_shapes(const Frame& f, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int h = static_cast<int>(f.value.height());
  std::vector<ApertureShape> out;
  for (size_t k = 0; k < f.shapes.size(); ++k) {
    const Shape& s = f.shapes[k];
    ApertureShape a = centred_aperture(static_cast<int32_t>(k + 1), s);
    switch (rng() % 3) {
      case 0:
        break;  // after the scan, whole image in the buffer
      case 1:
        a.time = s.ymax + 1 + static_cast<int64_t>(rng() % 40);
        a.fymin = std::max(0, static_cast<int>(a.time) - 60);
        a.fymax = static_cast<int>(a.time) + 2;
        break;
      default:
        a.time = static_cast<int64_t>(rng() % (h + 30));
        a.fymin = 0;
        a.fymax = std::numeric_limits<int>::max();
    }
    if (rng() % 4 == 0) a.dbkg = static_cast<float>(rng() % 100) / 37.0f - 1.0f;
    out.push_back(a);
  }
  return out;
}

// The frame's measurement image and blanking codes as photometry reads them (MASK_TYPE CORRECT,
// PhotometryField's default, unless told).
PhotometryField field_of(const Frame& f, MaskType mask = MaskType::Correct) {
  PhotometryField field;
  field.value = f.value.view();
  field.blanking = &f.blanking;
  field.mask_type = mask;
  return field;
}

// measure.cpp's CPU calls for every shape, into the GPU's column layout.
gpu::PhotometryColumns cpu_columns(const PhotometryField& field,
                                   const std::vector<ApertureShape>& shapes,
                                   const gpu::PhotometryRequest& r) {
  const size_t n = shapes.size(), na = r.apertures.size(), nf = r.fluxfrac.size();
  gpu::PhotometryColumns c;
  c.flux_aper.resize(n * na);
  c.fluxerr_aper.resize(n * na);
  c.flux_auto.resize(n);
  c.fluxerr_auto.resize(n);
  c.kron_radius.resize(n);
  c.flux_radius.resize(n * nf);
  c.hl_radius.resize(n);
  c.flags.resize(n);
#pragma omp parallel for schedule(dynamic, 64)
  for (size_t i = 0; i < n; ++i) {
    uint16_t flags = 0;
    for (size_t k = 0; k < na; ++k) {
      const FluxResult f = aperture_flux(field, shapes[i], r.apertures[k], flags);
      c.flux_aper[i * na + k] = f.flux;
      c.fluxerr_aper[i * na + k] = f.fluxerr;
    }
    AutoResult au;
    if (r.compute_auto) au = auto_flux(field, shapes[i], r.autoparams, flags);
    c.flux_auto[i] = au.flux;
    c.fluxerr_auto[i] = au.fluxerr;
    c.kron_radius[i] = au.kron_radius;
    float hl = 0.5f;
    if (r.growth)
      flux_radius(field, shapes[i], static_cast<float>(au.flux), r.fluxfrac, static_cast<int>(nf),
                  r.autoparams.min_search, &c.flux_radius[i * nf], flags,
                  r.hl_radius ? &hl : nullptr);
    c.hl_radius[i] = hl;
    c.flags[i] = flags;
  }
  return c;
}

void expect_same_columns(const gpu::PhotometryColumns& cpu, const gpu::PhotometryColumns& gpu,
                         const std::string& what) {
  EXPECT_EQ(count_differences(cpu.flux_aper, gpu.flux_aper), 0u) << what << ": FLUX_APER";
  EXPECT_EQ(count_differences(cpu.fluxerr_aper, gpu.fluxerr_aper), 0u) << what << ": FLUXERR_APER";
  EXPECT_EQ(count_differences(cpu.flux_auto, gpu.flux_auto), 0u) << what << ": FLUX_AUTO";
  EXPECT_EQ(count_differences(cpu.fluxerr_auto, gpu.fluxerr_auto), 0u) << what << ": FLUXERR_AUTO";
  EXPECT_EQ(count_differences(cpu.kron_radius, gpu.kron_radius), 0u) << what << ": KRON_RADIUS";
  EXPECT_EQ(count_differences(cpu.flux_radius, gpu.flux_radius), 0u) << what << ": FLUX_RADIUS";
  EXPECT_EQ(count_differences(cpu.hl_radius, gpu.hl_radius), 0u) << what << ": half-light radius";
  EXPECT_EQ(count_differences(cpu.flags, gpu.flags), 0u) << what << ": FLAGS";
}

// Every object on the GPU (none kept for the host threads), unless a test says otherwise.
gpu::PhotometryRequest full_request() {
  gpu::PhotometryRequest r;
  r.host_min_rlim = std::numeric_limits<double>::infinity();
  r.apertures = {1.0, 3.0, 5.0, 12.5, 30.0};
  r.fluxfrac = {0.1, 0.5, 0.9, 1.0};
  r.growth = true;
  r.hl_radius = true;
  return r;
}

// The kernel's body (measure_object) run on the host over every object: what the device runs.
gpu::PhotometryColumns body_on_host(const PhotometryField& field,
                                    const std::vector<ApertureShape>& shapes,
                                    const gpu::PhotometryRequest& r) {
  const size_t n = shapes.size(), na = r.apertures.size(), nf = r.fluxfrac.size();
  gpu::PhotometryColumns c;
  c.flux_aper.resize(n * na);
  c.fluxerr_aper.resize(n * na);
  c.flux_auto.resize(n);
  c.fluxerr_auto.resize(n);
  c.kron_radius.resize(n);
  c.flux_radius.resize(n * nf);
  c.hl_radius.resize(n);
  c.flags.resize(n);
  gpu::PhotometryArgs a;
  a.field = photometry_view(field);
  a.shapes = shapes.data();
  a.n = static_cast<int64_t>(n);
  a.apertures = r.apertures.data();
  a.n_apertures = static_cast<int>(na);
  a.compute_auto = r.compute_auto;
  a.autoparams = r.autoparams;
  a.fractions = r.fluxfrac.data();
  a.n_fluxfrac = static_cast<int>(nf);
  a.growth = r.growth;
  a.hl_radius = r.hl_radius;
  a.flux_aper = c.flux_aper.data();
  a.fluxerr_aper = c.fluxerr_aper.data();
  a.flux_auto = c.flux_auto.data();
  a.fluxerr_auto = c.fluxerr_auto.data();
  a.kron_radius = c.kron_radius.data();
  a.flux_radius = c.flux_radius.data();
  a.hl_radius_out = c.hl_radius.data();
  a.flags = c.flags.data();
  for (size_t i = 0; i < n; ++i) gpu::measure_object(a, static_cast<int64_t>(i));
  return c;
}

using Measurer = gpu::PhotometryColumns (*)(const PhotometryField&,
                                            const std::vector<ApertureShape>&,
                                            const gpu::PhotometryRequest&);

// The frame under every MASK_TYPE, with and without weights and a detection image of its own,
// with and without PHOT_AUTOAPERS and GAIN: GPU == CPU. On the device, each request twice: every
// object a thread, and every object a warp (measure_warp.cuh), none on the host.
constexpr double kNoWarps = std::numeric_limits<double>::infinity();

void expect_same_on_frame(const Frame& f, uint64_t seed, const std::string& name,
                          Measurer measure = gpu::measure_photometry,
                          std::vector<double> warp_rlims = {kNoWarps, 0.0}) {
  const std::vector<ApertureShape> shapes = aperture_shapes(f, seed);
  ASSERT_FALSE(shapes.empty()) << name;
  for (MaskType mask : {MaskType::None, MaskType::Blank, MaskType::Correct})
    for (int variant = 0; variant < 4; ++variant) {
      PhotometryField field;
      field.value = f.value.view();
      field.blanking = &f.blanking;
      field.backsig = 23.5f;
      field.mask_type = mask;
      gpu::PhotometryRequest r = full_request();
      if (variant >= 1) {
        field.gain = 2.0;
        r.autoparams.min_search = 9.0;
        r.autoparams.min_flux = 7.0;
      }
      if (variant >= 2) {
        field.var = f.var.view();
        field.wthresh = 1e29f;
        field.weight_gain = variant == 2;
      }
      if (variant == 3) {
        field.dvar = f.dvar.view();
        field.dwthresh = 1e29f;
        field.dvalue = f.dvalue.view();
        r.hl_radius = false;
      }
      const gpu::PhotometryColumns cpu = cpu_columns(field, shapes, r);
      r.device_slowdown = 0;
      r.min_warps = 0;
      // On the device also with the growth curve in a kernel of its own (growth_apart).
      const std::vector<bool> aparts = measure == gpu::measure_photometry
                                           ? std::vector<bool>{false, true}
                                           : std::vector<bool>{false};
      using GrowthKernel = gpu::PhotometryRequest::GrowthKernel;
      for (const double warp : warp_rlims)
        for (const bool apart : aparts) {
          r.warp_min_rlim = warp;
          r.growth_kernel = apart ? GrowthKernel::apart : GrowthKernel::inside;
          const std::string what = name + ", MASK_TYPE " + std::to_string(static_cast<int>(mask)) +
                                   ", variant " + std::to_string(variant) + ", warp_min_rlim " +
                                   std::to_string(warp) + (apart ? ", growth apart" : "");
          const gpu::PhotometryColumns got = measure(field, shapes, r);
          expect_same_columns(cpu, got, what);
          if (measure == gpu::measure_photometry)
            EXPECT_EQ(got.warp_objects, warp == 0.0 ? shapes.size() : 0u) << what;
        }
    }
}

}  // namespace

// Without a device: the kernel's body, run on the host, gives measure.cpp's CPU photometry (the
// device runs this body; the GPU tests below check that it gives the same bits there).
TEST(GpuMeasureBody, SameAsCpuPhotometryOnTheHost) {
  expect_same_on_frame(make_frame(300, 200, 60, 11, 3), 1, "300x200", body_on_host, {kNoWarps});
  expect_same_on_frame(make_frame(41, 37, 8, 12, 1), 2, "41x37", body_on_host, {kNoWarps});
}

class GpuMeasure : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(GpuMeasure, SameAsCpuOnSparseFrameWithNanPatches) {
  expect_same_on_frame(make_frame(500, 400, 150, 11, 5), 1, "sparse 500x400");
}

TEST_F(GpuMeasure, SameAsCpuOnOddSizesAndBorders) {
  // Small and odd frames, where most apertures cross the border.
  for (auto [w, h] : {std::pair{37, 29}, {64, 65}, {129, 31}, {300, 17}})
    expect_same_on_frame(make_frame(w, h, std::max(3, w * h / 300), w * 100 + h, 1), w + h,
                         std::to_string(w) + "x" + std::to_string(h));
}

TEST_F(GpuMeasure, SameAsCpuOnCrowded2048WithBlanking) {
  const Frame f = make_frame(2048, 2048, 20000, 7, 3);
  ASSERT_GT(f.objects.size(), 5000u);
  const std::vector<ApertureShape> shapes = aperture_shapes(f, 3);
  PhotometryField field;
  field.value = f.value.view();
  field.blanking = &f.blanking;
  field.backsig = 23.5f;
  field.gain = 2.0;
  gpu::PhotometryRequest r = full_request();
  std::vector<gpu::PhotometryColumns> cpu;
  for (MaskType mask : {MaskType::None, MaskType::Blank, MaskType::Correct}) {
    field.mask_type = mask;
    cpu.push_back(cpu_columns(field, shapes, r));
    // The default split between warps and threads, then every object a warp.
    // and the growth curve in a kernel of its own at each of its launch bounds, its first fill
    // beside the photometry kernel or not.
    for (const double warp : {gpu::PhotometryRequest{}.warp_min_rlim, 0.0})
      for (const int apart : {0, 4, 6, 8})
        for (const bool beside : {false, true}) {
          if (!apart && beside) continue;
          r.warp_min_rlim = warp;
          r.growth_kernel = apart ? gpu::PhotometryRequest::GrowthKernel::apart
                                  : gpu::PhotometryRequest::GrowthKernel::inside;
          if (apart) r.growth_blocks_per_sm = apart;
          r.growth_first_beside = beside;
          const gpu::PhotometryColumns got = gpu::measure_photometry(field, shapes, r);
          const std::string what = "crowded 2048, MASK_TYPE " +
                                   std::to_string(static_cast<int>(mask)) + ", warp_min_rlim " +
                                   std::to_string(warp) + ", growth apart " +
                                   std::to_string(apart) + (beside ? ", first fill beside" : "");
          expect_same_columns(cpu.back(), got, what);
          EXPECT_GT(got.warp_objects, 0u) << what;
        }
  }
  // The frame is crowded enough for the blanking to matter: the three masks give different
  // fluxes for many objects (else this test could not see a blanking bug).
  EXPECT_GT(count_differences(cpu[0].flux_auto, cpu[1].flux_auto), shapes.size() / 20);
  EXPECT_GT(count_differences(cpu[1].flux_auto, cpu[2].flux_auto), shapes.size() / 20);
  EXPECT_GT(count_differences(cpu[0].flux_radius, cpu[2].flux_radius), shapes.size() / 20);
}

TEST_F(GpuMeasure, RequestsWithoutAutoOrGrowthCurve) {
  const Frame f = make_frame(300, 300, 80, 5, 2);
  const std::vector<ApertureShape> shapes = aperture_shapes(f, 9);
  const PhotometryField field = field_of(f);
  gpu::PhotometryRequest r;
  r.host_min_rlim = std::numeric_limits<double>::infinity();
  r.apertures = {4.0};
  r.compute_auto = false;  // FLUX_RADIUS then reads a FLUX_AUTO of 0, as measure.cpp does
  r.fluxfrac = {0.5};
  r.growth = true;
  expect_same_columns(cpu_columns(field, shapes, r), gpu::measure_photometry(field, shapes, r),
                      "no AUTO");
  r.growth_kernel =
      gpu::PhotometryRequest::GrowthKernel::apart;  // the growth curve's kernel reads the first
                                                    // kernel's FLUX_AUTO of 0
  expect_same_columns(cpu_columns(field, shapes, r), gpu::measure_photometry(field, shapes, r),
                      "no AUTO, growth apart");
  r.growth_first_beside = false;
  expect_same_columns(cpu_columns(field, shapes, r), gpu::measure_photometry(field, shapes, r),
                      "no AUTO, growth apart, first fill after the photometry");
  r = gpu::PhotometryRequest{};  // nothing but AUTO
  r.host_min_rlim = std::numeric_limits<double>::infinity();
  expect_same_columns(cpu_columns(field, shapes, r), gpu::measure_photometry(field, shapes, r),
                      "AUTO only");
  // No objects: empty columns, no launch.
  const gpu::PhotometryColumns none = gpu::measure_photometry(field, {}, full_request());
  EXPECT_TRUE(none.flux_auto.empty() && none.flags.empty());
}

// With the default request, a frame of fewer objects than the device holds warps at once is
// measured a warp per object (PhotometryRequest::min_warps), whatever their radius; asking for
// warps by radius alone leaves the small ones to single threads. The same columns either way.
TEST_F(GpuMeasure, FewObjectsAreMeasuredAWarpEach) {
  const Frame f = make_frame(500, 400, 150, 17, 2);
  const std::vector<ApertureShape> shapes = aperture_shapes(f, 5);
  const PhotometryField field = field_of(f);
  gpu::PhotometryRequest r;
  r.apertures = {3.0, 9.0};
  r.fluxfrac = {0.5};
  r.growth = true;
  const gpu::PhotometryColumns cpu = cpu_columns(field, shapes, r);
  const gpu::PhotometryColumns all = gpu::measure_photometry(field, shapes, r);
  expect_same_columns(cpu, all, "default request");
  EXPECT_EQ(all.warp_objects, shapes.size());
  EXPECT_EQ(all.host_objects, 0u);
  r.min_warps = 0;
  const gpu::PhotometryColumns by_radius = gpu::measure_photometry(field, shapes, r);
  expect_same_columns(cpu, by_radius, "warps by radius alone");
  EXPECT_LT(by_radius.warp_objects, shapes.size());
}

// The largest objects measured on the host threads beside the kernel (host_min_rlim): the same
// columns, whichever objects go where.
TEST_F(GpuMeasure, LargestObjectsOnTheHostGiveTheSameColumns) {
  const Frame f = make_frame(600, 500, 200, 13, 2);
  const std::vector<ApertureShape> shapes = aperture_shapes(f, 4);
  PhotometryField field;
  field.value = f.value.view();
  field.blanking = &f.blanking;
  field.gain = 2.0;
  gpu::PhotometryRequest r = full_request();
  const gpu::PhotometryColumns cpu = cpu_columns(field, shapes, r);
  size_t split = 0;
  for (double rlim : {0.0, 6.0, 12.0, 48.0}) {
    r.host_min_rlim = rlim;
    const gpu::PhotometryColumns got = gpu::measure_photometry(field, shapes, r);
    expect_same_columns(cpu, got, "host_min_rlim " + std::to_string(rlim));
    split += got.host_objects > 0 && got.host_objects < shapes.size();
  }
  EXPECT_GT(split, 0u) << "no threshold split the objects between host and device";
}

// Whole catalogs: --device cuda (front end and photometry on the GPU) against --device cpu,
// every photometry column and FLAGS bit for bit, windowed measurements included (they start
// from the GPU's half-light radius).
namespace {

void expect_same_catalogs(const Image<float>& image, Config config, const MeasureRequest& req,
                          const std::string& what) {
  config.device = Backend::Cpu;
  const Result cpu = extract::extract(image.view(), config, req);
  config.device = Backend::Cuda;
  const Result gpu = extract::extract(image.view(), config, req);
  ASSERT_EQ(cpu.objects.size(), gpu.objects.size()) << what;
  ASSERT_GT(cpu.objects.size(), 0u) << what;
  const Objects &a = cpu.objects, &b = gpu.objects;
  EXPECT_EQ(count_differences(a.flux_aper, b.flux_aper), 0u) << what << ": FLUX_APER";
  EXPECT_EQ(count_differences(a.fluxerr_aper, b.fluxerr_aper), 0u) << what << ": FLUXERR_APER";
  EXPECT_EQ(count_differences(a.flux_auto, b.flux_auto), 0u) << what << ": FLUX_AUTO";
  EXPECT_EQ(count_differences(a.fluxerr_auto, b.fluxerr_auto), 0u) << what << ": FLUXERR_AUTO";
  EXPECT_EQ(count_differences(a.kron_radius, b.kron_radius), 0u) << what << ": KRON_RADIUS";
  EXPECT_EQ(count_differences(a.flux_radius, b.flux_radius), 0u) << what << ": FLUX_RADIUS";
  EXPECT_EQ(count_differences(a.flags, b.flags), 0u) << what << ": FLAGS";
  EXPECT_EQ(count_differences(a.x, b.x), 0u) << what << ": X";
  EXPECT_EQ(count_differences(a.flux_iso, b.flux_iso), 0u) << what << ": FLUX_ISO";
  EXPECT_EQ(count_differences(a.xwin, b.xwin), 0u) << what << ": XWIN";
  EXPECT_EQ(count_differences(a.flux_win, b.flux_win), 0u) << what << ": FLUX_WIN";
  EXPECT_EQ(count_differences(a.flags_win, b.flags_win), 0u) << what << ": FLAGS_WIN";
  bool timed = false;
  for (const auto& [name, s] : gpu.info.stage_seconds) timed |= name == "gpu measure kernel";
  EXPECT_TRUE(timed) << what << ": the GPU measurement's time is reported";
}

Image<float> simulated(int w, int h, int stars, uint64_t seed, int nan_patches) {
  sim::ImageParams p;
  p.width = w;
  p.height = h;
  p.seed = seed;
  p.n_stars = stars;
  p.n_nan_patches = nan_patches;
  return sim::simulate_image(p).pixels;
}

}  // namespace

TEST_F(GpuMeasure, WholeCatalogSameOnBothDevices) {
  const Image<float> sparse = simulated(700, 500, 200, 5, 4);
  MeasureRequest req;
  Config c;
  c.phot_apertures = {2.0, 5.0, 10.0, 25.0};
  c.phot_fluxfrac = {0.2, 0.5, 0.8};
  expect_same_catalogs(sparse, c, req, "sparse, defaults");
  req.windowed = true;
  expect_same_catalogs(sparse, c, req, "sparse, windowed");
  for (MaskType mask : {MaskType::None, MaskType::Blank}) {
    c.mask_type = mask;
    expect_same_catalogs(sparse, c, req, "sparse, MASK_TYPE " + std::to_string(int(mask)));
  }
  c = Config{};
  c.autoaper_search = 12.0;
  c.autoaper_flux = 20.0;
  c.memory_bufsize = 100;  // objects measured while the buffer holds only part of the frame
  expect_same_catalogs(sparse, c, req, "sparse, PHOT_AUTOAPERS, MEMORY_BUFSIZE 100");
  const Image<float> odd = simulated(257, 63, 40, 8, 1);  // most objects near the border
  expect_same_catalogs(odd, Config{}, MeasureRequest{}, "257x63");
  const Image<float> crowded = simulated(2048, 2048, 20000, 21, 3);
  expect_same_catalogs(crowded, Config{}, MeasureRequest{}, "crowded 2048");
}

// Weight maps and dual-image mode with --device cuda: stages 1-3 on the CPU, the photometry on
// the GPU (with the variance maps and the measurement image uploaded), the same catalog as the
// CPU path's; the run says where its detection ran.
TEST_F(GpuMeasure, WeightsAndDualImageSameOnBothDevices) {
  const Image<float> image = simulated(700, 500, 200, 6, 3);
  Image<float> weight(image.width(), image.height()), second(image.width(), image.height());
  for (int64_t y = 0; y < image.height(); ++y)
    for (int64_t x = 0; x < image.width(); ++x) {
      // A smooth gradient of relative weights, a rectangle of zero weight over part of the field.
      weight(x, y) = (x > 300 && x < 360 && y > 100 && y < 400) ? 0.0f : 0.5f + float(x) / 700.0f;
      second(x, y) = 1.5f * image(x, y) + 3.0f;  // the "other band"
    }
  Config c;
  c.phot_apertures = {3.0, 8.0};
  MeasureRequest req;
  req.weight_map = weight.view();
  c.detect_weight.type = WeightType::MapWeight;
  c.measure_weight.type = WeightType::MapWeight;
  expect_same_catalogs(image, c, req, "MAP_WEIGHT");
  c.gain = 4.0;
  req.windowed = true;
  expect_same_catalogs(image, c, req, "MAP_WEIGHT, GAIN 4, windowed");
  // Separate detection (MAP_WEIGHT) and measurement (MAP_VAR) maps, not interpolated.
  Image<float> var(image.width(), image.height());
  for (int64_t y = 0; y < image.height(); ++y)
    for (int64_t x = 0; x < image.width(); ++x) var(x, y) = 1.0f + float(y) / 250.0f;
  Config sep = c;
  sep.separate_weights = true;
  sep.measure_weight.type = WeightType::MapVar;
  sep.measure_weight.interpolate = false;
  MeasureRequest sreq;
  sreq.detect_weight_map = weight.view();
  sreq.weight_map = var.view();
  expect_same_catalogs(image, sep, sreq, "MAP_WEIGHT,MAP_VAR");
  Config d;
  MeasureRequest dual;
  dual.measure_image = second.view();
  expect_same_catalogs(image, d, dual, "dual-image");
  dual.weight_map = weight.view();
  d.detect_weight.type = WeightType::MapWeight;
  d.measure_weight.type = WeightType::MapWeight;
  expect_same_catalogs(image, d, dual, "dual-image, MAP_WEIGHT");
  d = Config{};
  dual.weight_map = {};
  d.device = Backend::Cuda;
  const Result r = extract::extract(image.view(), d, dual);
  bool said = false;
  for (const std::string& w : r.info.warnings) said |= w.find("on the CPU") != std::string::npos;
  EXPECT_TRUE(said) << "the run's warnings say that the detection ran on the CPU";
}
