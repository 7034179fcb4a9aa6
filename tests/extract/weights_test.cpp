// Weight maps (stages/weights.hpp): conversion to variance, thresholds, bad-pixel interpolation
// against hand-worked cases, the WEIGHT_* keys, and the refusals (what is not reproduced yet).
// The whole path is compared with source-extractor by weights_parity.py.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/extract_settings.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract {
namespace {

// `image` extracted with `c` and --device cuda: refused without a CUDA device; with one, the
// CPU path's catalog.
void expect_cuda_refused_or_cpu_catalog(const Image<float>& image, Config c,
                                        const MeasureRequest& r) {
  c.device = Backend::Cuda;
  if (cuda_device_count() == 0) {
    EXPECT_THROW(extract(image.view(), c, r), celeris::Error);
    return;
  }
  Config cpu = c;
  cpu.device = Backend::Cpu;
  const Result want = extract(image.view(), cpu, r);
  const Result got = extract(image.view(), c, r);
  EXPECT_EQ(got.objects.size(), want.objects.size());
  EXPECT_EQ(got.objects.flux_auto, want.objects.flux_auto);
}

std::vector<float> converted(WeightType t, float sigfac, std::vector<float> v) {
  to_variance(t, sigfac, v.data(), static_cast<int64_t>(v.size()));
  return v;
}

TEST(Weights, ToVarianceForEachType) {
  EXPECT_EQ(converted(WeightType::MapRms, 3.0f, {2.0f, 0.5f, 2e30f}),
            (std::vector<float>{4.0f, 0.25f, 2e30f}));  // RMS squared, never rescaled
  EXPECT_EQ(converted(WeightType::MapVar, 2.0f, {2.0f, 0.5f}), (std::vector<float>{8.0f, 2.0f}));
  EXPECT_EQ(converted(WeightType::MapWeight, 2.0f, {4.0f, 0.0f, -1.0f}),
            (std::vector<float>{1.0f, kBig, kBig}));  // sigfac^2 / w, bad when w <= 0
}

TEST(Weights, ThresholdDefaultsAndConversion) {
  WeightParams c;
  c.type = WeightType::MapWeight;
  EXPECT_EQ(variance_threshold(c), kBig);  // default 0: weight 0 is bad
  c.thresh = 0.25;
  EXPECT_EQ(variance_threshold(c), 4.0f);  // weights below 0.25 are bad
  c.type = WeightType::MapRms;
  c.thresh = 3.0;
  EXPECT_EQ(variance_threshold(c), 9.0f);
  c.thresh = std::nan("");
  EXPECT_EQ(variance_threshold(c), kBig);
}

TEST(Weights, InterpolationTakesLeftThenUpperNeighbours) {
  const float B = kBig;
  // 5 x 3, bad pixels B; x lag 1, y lag 1.
  std::vector<float> var = {1, B, B, 4, 5,   //
                            B, 7, 8, B, B,   //
                            B, B, 3, 2, B};  //
  std::vector<float> val(var.size());
  for (size_t i = 0; i < val.size(); ++i) val[i] = 100.0f + static_cast<float>(i);
  interpolate_bad_pixels({val.data(), 5, 3}, {var.data(), 5, 3}, 1e29f, 1, 1);
  // Row 0: (1,0) from its left; (2,0) beyond the x lag, no row above: stays bad.
  // Row 1: (0,1) has no left: from above (1); (3,1) from its left (8); (4,1) beyond the x lag,
  // from above (5). Row 2: (0,2) from above, but column 0's y lag is spent: stays bad; (1,2)
  // left is bad and not a good pixel: xtimeout 0, from above (7); (4,2) from its left (2).
  const std::vector<float> want = {1, 1, B, 4, 5, 1, 7, 8, 8, 5, B, 7, 3, 2, 2};
  EXPECT_EQ(var, want);
  EXPECT_EQ(val[1], 100.0f);  // the image is interpolated with the variance
  EXPECT_EQ(val[5], 100.0f);
  EXPECT_EQ(val[8], 107.0f);
  EXPECT_EQ(val[9], 104.0f);
  EXPECT_EQ(val[11], 106.0f);
  EXPECT_EQ(val[10], 110.0f);  // left bad
}

namespace {

// SExtractor's interpolate.c loop as it stands, its backups kept in arrays of their own: the
// reference for interpolate_bad_pixels, which reads them from the row before instead and skips
// the rows without a bad pixel.
void reference_interpolation(std::vector<float>* value, std::vector<float>& var, int64_t w,
                             int64_t h, float wthresh, int xlag, int ylag) {
  std::vector<int> ytimeout(static_cast<size_t>(w), 0);
  std::vector<float> backup(static_cast<size_t>(w), 0.0f), wbackup(static_cast<size_t>(w), 0.0f);
  for (int64_t y = 0; y < h; ++y) {
    float* wd = var.data() + y * w;
    float* d = value ? value->data() + y * w : nullptr;
    int xtimeout = 0;
    for (int64_t x = 0; x < w; ++x) {
      if (wd[x] >= wthresh) {
        if (!xtimeout) {
          if (ytimeout[x]) {
            --ytimeout[x];
            wd[x] = wbackup[x];
            if (d) d[x] = backup[x];
          }
        } else {
          --xtimeout;
          wd[x] = wd[x - 1];
          if (d) d[x] = d[x - 1];
        }
      } else {
        xtimeout = xlag;
        ytimeout[x] = ylag;
      }
      wbackup[x] = wd[x];
      if (d) backup[x] = d[x];
    }
  }
}

}  // namespace

// Random maps: bad pixels alone, in runs along rows and columns, whole bad rows and rows without
// any; lags 0 to 5; with the image and without (VAR_ONLY): the reference's values, every pixel.
TEST(Weights, InterpolationEqualsSExtractorsLoop) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t w = 1 + static_cast<int64_t>(rng() % 40),
                  h = 1 + static_cast<int64_t>(rng() % 40);
    const float density = trial % 4 == 0 ? 0.0f : u(rng) * 0.5f;
    std::vector<float> var(static_cast<size_t>(w * h)), val(var.size());
    for (int64_t y = 0; y < h; ++y) {
      const int kind = static_cast<int>(rng() % 5);  // 0: no bad pixel, 1: all bad, else random
      for (int64_t x = 0; x < w; ++x) {
        const bool bad = kind == 1 || (kind > 1 && u(rng) < density);
        var[static_cast<size_t>(y * w + x)] = bad ? 1e30f : 1.0f + u(rng);
        val[static_cast<size_t>(y * w + x)] = 100.0f * u(rng);
      }
    }
    const int xlag = static_cast<int>(rng() % 6), ylag = static_cast<int>(rng() % 6);
    for (const bool with_image : {true, false}) {
      std::vector<float> v1 = var, d1 = val, v2 = var, d2 = val;
      reference_interpolation(with_image ? &d1 : nullptr, v1, w, h, 1e29f, xlag, ylag);
      interpolate_bad_pixels(with_image ? ImageView<float>{d2.data(), w, h} : ImageView<float>{},
                             {v2.data(), w, h}, 1e29f, xlag, ylag);
      EXPECT_EQ(v1, v2) << "trial " << trial << (with_image ? "" : ", VAR_ONLY");
      EXPECT_EQ(d1, d2) << "trial " << trial;
    }
  }
}

// The map's scale from the map as read (the GPU's weighted front end) is the one from the
// masked image and the converted map (the host's), for each type, with bad pixels and NaN.
TEST(Weights, ScaleOfTheMapAsReadIsTheMaskedCopys) {
  const int w = 300, h = 260;
  std::mt19937 rng(17);
  std::normal_distribution<float> sky(100.0f, 5.0f);
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  Image<float> image(w, h), weight(w, h);
  for (int64_t i = 0; i < image.size(); ++i) {
    image.data()[i] = pick(rng) == 0 ? std::nanf("") : sky(rng);
    weight.data()[i] = pick(rng) < 3 ? 0.0f : u(rng);
  }
  Config config;
  for (const WeightType t : {WeightType::MapVar, WeightType::MapWeight, WeightType::MapRms}) {
    Image<float> map(w, h);
    for (int64_t i = 0; i < map.size(); ++i) {
      const float v = weight.data()[i];
      map.data()[i] = t == WeightType::MapWeight ? v : v > 0.0f ? 1.0f / v : 1e30f;
    }
    WeightParams p;
    p.type = t;
    const float wthresh = variance_threshold(p);
    Image<float> var = map;
    to_variance(t, 1.0f, var.data(), var.size());
    Image<float> masked = image;
    for (int64_t i = 0; i < masked.size(); ++i)
      if (var.data()[i] >= wthresh) masked.data()[i] = std::nanf("");
    const BackgroundMap bkg = background_map(masked.view(), config);
    const float expected = weight_scale(masked.view(), var.view(), wthresh, bkg, config, 2);
    EXPECT_NE(expected, 1.0f) << weight_type_name(t);  // measured, not the default
    EXPECT_EQ(weight_scale_of_map(image.view(), map.view(), map_kind(t), wthresh, bkg, config, 2),
              expected)
        << weight_type_name(t);
  }
}

TEST(Weights, ObjectThresholdIsTheSmallestOfItsPixels) {
  ObjectList l;
  l.pixel_weights = true;
  l.push_pixel({0, 0, 1.0f, 1.0f, 4.0f, 3.0f});
  l.push_pixel({1, 0, 1.0f, 1.0f, 4.0f, 2.5f});
  l.end_object(0);
  EXPECT_EQ(object_dthresh(l[0], 7.0f, true), 2.5f);
  EXPECT_EQ(object_dthresh(l[0], 7.0f, false), 7.0f);
}

TEST(WeightSettings, OneMapForBoth) {
  const Settings s =
      parse_settings("WEIGHT_TYPE MAP_RMS\nWEIGHT_IMAGE rms.fits\n", {{"WEIGHT_THRESH", "100"},
                                                                      {"WEIGHT_GAIN", "N"},
                                                                      {"RESCALE_WEIGHTS", "Y,N"},
                                                                      {"INTERP_TYPE", "NONE"},
                                                                      {"INTERP_MAXXLAG", "4"},
                                                                      {"INTERP_MAXYLAG", "5"}});
  const Config& c = s.config;
  EXPECT_FALSE(c.separate_weights);
  EXPECT_EQ(c.detect_weight.type, WeightType::MapRms);
  EXPECT_EQ(c.measure_weight.type, WeightType::MapRms);
  EXPECT_EQ(s.weight_images, (std::vector<std::string>{"rms.fits", "rms.fits"}));
  EXPECT_EQ(c.measure_weight.thresh, 100.0);
  EXPECT_FALSE(c.weight_gain);
  EXPECT_FALSE(c.measure_weight.rescale);  // one map: SExtractor takes the second value
  EXPECT_FALSE(c.measure_weight.interpolate);
  EXPECT_FALSE(c.interp_image);
  EXPECT_EQ(c.measure_weight.xlag, 4);
  EXPECT_EQ(c.measure_weight.ylag, 5);
  EXPECT_EQ(parse_settings("", {}).config.measure_weight.type, WeightType::None);
}

TEST(WeightSettings, SeparateMapsTakeSExtractorsDefaults) {
  // Two types: the second list elements not given are NONE / 0 (INTERP_*), the first
  // (RESCALE_WEIGHTS) or the type's default (WEIGHT_THRESH).
  const Settings s = parse_settings("", {{"WEIGHT_TYPE", "MAP_WEIGHT,MAP_RMS"},
                                         {"WEIGHT_IMAGE", "w.fits,r.fits"},
                                         {"WEIGHT_THRESH", "0.5"},
                                         {"RESCALE_WEIGHTS", "N"}});
  const Config& c = s.config;
  EXPECT_TRUE(c.separate_weights);
  EXPECT_EQ(c.detect_weight.type, WeightType::MapWeight);
  EXPECT_EQ(c.measure_weight.type, WeightType::MapRms);
  EXPECT_EQ(s.weight_images, (std::vector<std::string>{"w.fits", "r.fits"}));
  EXPECT_EQ(c.detect_weight.thresh, 0.5);
  EXPECT_TRUE(std::isnan(c.measure_weight.thresh));
  EXPECT_FALSE(c.detect_weight.rescale);
  EXPECT_FALSE(c.measure_weight.rescale);
  EXPECT_TRUE(c.detect_weight.interpolate);
  EXPECT_FALSE(c.measure_weight.interpolate);
  EXPECT_TRUE(c.interp_image);
  // Two maps and one type: two maps of that type.
  const Settings t = parse_settings("", {{"WEIGHT_TYPE", "MAP_VAR"}, {"WEIGHT_IMAGE", "a,b"}});
  EXPECT_TRUE(t.config.separate_weights);
  EXPECT_EQ(t.config.measure_weight.type, WeightType::MapVar);
}

// VAR_ONLY: the variance interpolated, the image not (INTERP_TYPE ALL of the first element does
// both); with two weight types, or one BACKGROUND weight.
TEST(WeightSettings, VarOnlyInterpolatesTheVarianceOnly) {
  Settings s = parse_settings("", {{"WEIGHT_TYPE", "MAP_WEIGHT,MAP_RMS"},
                                   {"WEIGHT_IMAGE", "a.fits,b.fits"},
                                   {"INTERP_TYPE", "VAR_ONLY,ALL"}});
  EXPECT_TRUE(s.config.detect_weight.interpolate);
  EXPECT_TRUE(s.config.measure_weight.interpolate);
  EXPECT_FALSE(s.config.interp_image);
  EXPECT_TRUE(s.config.interp_measure_image);
  s = parse_settings("", {{"WEIGHT_TYPE", "BACKGROUND"}, {"INTERP_TYPE", "VAR_ONLY"}});
  EXPECT_TRUE(s.config.measure_weight.interpolate);
  EXPECT_FALSE(s.config.interp_image);
}

TEST(WeightSettings, WhatIsNotReproducedIsRefusedByName) {
  auto error_of = [](const std::string& key, const std::string& value) -> std::string {
    try {
      parse_settings("", {{key, value}});
    } catch (const celeris::Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of("WEIGHT_TYPE", "MAP_WEIGHT,MAP_RMS").find("WEIGHT_IMAGE"),
            std::string::npos);  // two map types need two maps
  EXPECT_NE(error_of("WEIGHT_IMAGE", "a.fits,b.fits,c.fits").find("WEIGHT_IMAGE"),
            std::string::npos);
  // INTERP_TYPE VAR_ONLY with one map: source-extractor 2.25 itself stops there.
  try {
    parse_settings(
        "",
        {{"WEIGHT_TYPE", "MAP_WEIGHT"}, {"WEIGHT_IMAGE", "w.fits"}, {"INTERP_TYPE", "VAR_ONLY"}});
    ADD_FAILURE() << "VAR_ONLY with one map accepted";
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("VAR_ONLY"), std::string::npos);
  }
  EXPECT_NE(error_of("WEIGHT_TYPE", "MAP_FOO").find("WEIGHT_TYPE"), std::string::npos);
  EXPECT_NE(error_of("WEIGHT_THRESH", "1,2,3").find("WEIGHT_THRESH"), std::string::npos);
}

TEST(WeightPipeline, RefusesWhatItCannotHonour) {
  Image<float> img(64, 64, 1.0f), w(32, 32, 1.0f);
  img(10, 10) = 100.0f;
  Config c;
  c.detect_weight.type = c.measure_weight.type = WeightType::MapWeight;
  MeasureRequest r;
  r.weight_map = w.view();
  EXPECT_THROW(extract(img.view(), c, r), celeris::Error);  // size mismatch
  // With --device cuda: refused without a CUDA device, extracted with one (the weighted front
  // end on the GPU: the same catalog as the CPU path's).
  r.weight_map = img.view();
  expect_cuda_refused_or_cpu_catalog(img, c, r);
}

}  // namespace
}  // namespace celeris::extract

namespace celeris::extract {
namespace {

TEST(DualImage, RefusesWhatItCannotHonour) {
  Image<float> detect(64, 64, 1.0f), small(32, 32, 1.0f);
  detect(10, 10) = 100.0f;
  Config c;
  MeasureRequest r;
  r.measure_image = small.view();
  EXPECT_THROW(extract(detect.view(), c, r), celeris::Error);  // sizes differ
  r.measure_image = detect.view();
  c.backphoto_type = BackPhotoType::Local;
  EXPECT_THROW(extract(detect.view(), c, r), celeris::Error);  // LOCAL background
  // --device cuda: refused without a CUDA device; with one, the front end on the CPU and the
  // photometry on the GPU, the CPU path's catalog.
  c.backphoto_type = BackPhotoType::Global;
  expect_cuda_refused_or_cpu_catalog(detect, c, r);
}

TEST(DualImage, SameImageTwiceIsTheSingleImageCatalog) {
  // Detection and measurement on the same pixels: every column as with one image.
  Image<float> img(96, 80, 0.0f);
  uint32_t seed = 7;
  for (int64_t i = 0; i < img.size(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    img.data()[i] = 100.0f + static_cast<float>(seed >> 8) / static_cast<float>(1u << 24);
  }
  for (int k = 0; k < 6; ++k)
    for (int y = -3; y <= 3; ++y)
      for (int x = -3; x <= 3; ++x)
        img(15 + 13 * k + x, 20 + 7 * k + y) +=
            static_cast<float>(50.0 * std::exp(-(x * x + y * y) / 3.0));
  Config c;
  MeasureRequest single, dual;
  dual.measure_image = img.view();
  const Result a = extract(img.view(), c, single), b = extract(img.view(), c, dual);
  ASSERT_GT(a.objects.size(), 3u);
  EXPECT_EQ(a.objects.x, b.objects.x);
  EXPECT_EQ(a.objects.flux_iso, b.objects.flux_iso);
  EXPECT_EQ(a.objects.fluxerr_iso, b.objects.fluxerr_iso);
  EXPECT_EQ(a.objects.flux_auto, b.objects.flux_auto);
  EXPECT_EQ(a.objects.flux_aper, b.objects.flux_aper);
  EXPECT_EQ(a.objects.errx2, b.objects.errx2);
  EXPECT_EQ(a.objects.flags, b.objects.flags);
}

}  // namespace
}  // namespace celeris::extract
