// Petrosian photometry, the whole growth curve and VIGNET against simple references: the growth
// curve gives the same FLUX_RADIUS as photometry.cpp's outward filling, bit for bit; its
// resampling (FLUX_GROWTH) hits the bins at their edges; FLUX_PETRO is the plain sum of the
// pixels inside its ellipse, a masked pixel is replaced by its mirror, and the Petrosian factor
// follows SExtractor's definition on a flat profile; VIGNET copies the pixels with SExtractor's
// -1e30 outside the frame, the line buffer and at masked pixels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "celeris/extract.hpp"
#include "extract/stages/measure_growth.hpp"
#include "extract/stages/measure_petro.hpp"
#include "extract/stages/measure_vignet.hpp"
#include "extract/stages/photometry.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

Image<float> gaussian(int w, int h, double cx, double cy, double sig, double amp, double noise,
                      std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  Image<float> img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
      img(x, y) = static_cast<float>(amp * std::exp(-r2 / (2 * sig * sig)) + noise * u(rng));
    }
  return img;
}

ApertureShape circle(double cx, double cy, float a) {
  ApertureShape s;
  s.id = 1;
  s.mx = static_cast<float>(cx);
  s.my = static_cast<float>(cy);
  s.dmx = cx;
  s.dmy = cy;
  s.a = s.b = a;
  s.cxx = s.cyy = 1.0f / (a * a);
  s.cxy = 0.0f;
  return s;
}

// SExtractor's radius where the cumulative curve reaches tv (growth.c).
double radius_at(const GrowthCurve& g, double tv) {
  const double step = g.rlim / kGrowthSteps;
  const int n = kGrowthSteps - 1;
  int i = 0;
  while (i < n && g.cumul[i] < tv) ++i;
  const int cur = i < n ? i : n - 1;  // no bin reaches tv: SExtractor's pointer stops at n - 1
  if (i) {
    const double dg = g.cumul[cur] - g.cumul[cur - 1];
    return step * (dg != 0.0 ? i + (tv - g.cumul[cur - 1]) / dg : i);
  }
  return step * (g.cumul[0] != 0.0 ? tv / g.cumul[0] : 0.0);
}

TEST(GrowthCurve, GivesFluxRadiusBitForBit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  const std::vector<double> fractions = {0.1, 0.5, 0.9, 0.99};
  for (int trial = 0; trial < 200; ++trial) {
    const int w = 30 + rng() % 60, h = 30 + rng() % 60;
    const double cx = u(rng) * w, cy = u(rng) * h, sig = 0.6 + 4 * u(rng);
    Image<float> img = gaussian(w, h, cx, cy, sig, 10 + 1e4 * u(rng), 1.0, rng);
    for (int k = 0; k < w * h / 100; ++k) img(rng() % w, rng() % h) = NAN;
    PhotometryField f;
    f.value = img.view();
    f.mask_type = trial % 3 == 0 ? MaskType::None : MaskType::Correct;
    ApertureShape s = circle(cx, cy, static_cast<float>(sig * (0.5 + u(rng))));
    if (trial % 5 == 0)
      s.fymin = std::max(0, static_cast<int>(cy) - 3), s.fymax = static_cast<int>(cy) + 6;
    const double min_rlim = trial % 4 == 0 ? 12.0 * u(rng) : 0.0;
    const float flux_auto = static_cast<float>(2 * M_PI * sig * sig * 1e3 * u(rng));
    float radii[4];
    uint16_t radius_flags = 0, growth_flags = 0;
    flux_radius(f, s, flux_auto, fractions, 4, min_rlim, radii, radius_flags);
    const GrowthCurve g = growth_curve(f, s, min_rlim, growth_flags);
    EXPECT_EQ(growth_flags, radius_flags) << "trial " << trial;
    for (int j = 0; j < 4; ++j) {
      float r = static_cast<float>(radius_at(g, fractions[j] * flux_auto));
      if (r > g.rlim) r = static_cast<float>(g.rlim);
      EXPECT_EQ(r, radii[j]) << "trial " << trial << " fraction " << fractions[j];
    }
  }
}

TEST(GrowthCurve, ResampledAtTheBinEdges) {
  double cumul[kGrowthSteps];
  for (int j = 0; j < kGrowthSteps; ++j) cumul[j] = 100.0 * (j + 1) + j * j;
  // 64 points: bin k itself, plus 1e-5 of the way to the next bin; the last point reaches past
  // the curve, where SExtractor reads 0.
  for (int k = 0; k + 1 < kGrowthSteps; ++k)
    EXPECT_NEAR(growth_at(cumul, k, 64), cumul[k] + 1e-5 * (cumul[k + 1] - cumul[k]), 1e-9);
  EXPECT_NEAR(growth_at(cumul, 63, 64), cumul[63] * (1 - 1e-5), 1e-6);
  // 128 points: the first lies before bin 0, scaled down linearly.
  EXPECT_NEAR(growth_at(cumul, 0, 128), cumul[0] * (0.99999 + 0.5 - 0.99999), 1e-9);
  // 4 points: at bins 15, 31, 47 (+1e-5) and 63.
  EXPECT_NEAR(growth_at(cumul, 1, 4), cumul[31] + 1e-5 * (cumul[32] - cumul[31]), 1e-9);
}

TEST(Petro, FluxIsTheSumInsideItsEllipse) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 50; ++trial) {
    const int w = 80, h = 70;
    const double cx = 30 + 20 * u(rng), cy = 25 + 20 * u(rng), sig = 1 + 2 * u(rng);
    const Image<float> img = gaussian(w, h, cx, cy, sig, 1e3, 2.0, rng);
    PhotometryField f;
    f.value = img.view();
    f.backsig = 1.5f;
    const ApertureShape s = circle(cx, cy, static_cast<float>(sig));
    uint16_t flags = 0;
    const PetroResult r = petro_flux(f, s, PetroParams{}, flags);
    ASSERT_GT(r.radius, 0.0f);
    EXPECT_GE(r.radius, 3.5f);  // PHOT_PETROPARAMS' minimum
    double sum = 0;
    int area = 0;
    const float k2 = r.radius * r.radius;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float dx = x - s.mx, dy = y - s.my;
        if (s.cxx * dx * dx + s.cyy * dy * dy <= k2) sum += img(x, y), ++area;
      }
    EXPECT_NEAR(r.flux, sum, 1e-6 * std::fabs(sum)) << "trial " << trial;
    // Without gain the error is the background noise over the pixels summed.
    EXPECT_NEAR(r.fluxerr, std::sqrt(area * 1.5 * 1.5), 1e-4);
    EXPECT_EQ(flags, 0) << "trial " << trial;
  }
}

TEST(Petro, MaskedPixelTakesItsMirror) {
  std::mt19937 rng(5);
  Image<float> img = gaussian(60, 60, 30.0, 30.0, 2.0, 500, 0.0, rng);
  const ApertureShape s = circle(30.0, 30.0, 2.0f);
  PhotometryField f;
  f.value = img.view();
  uint16_t flags = 0;
  const PetroResult whole = petro_flux(f, s, PetroParams{}, flags);
  img(32, 31) = NAN;  // mirror (28, 29) holds the same value on this symmetric profile
  flags = 0;
  const PetroResult corrected = petro_flux(f, s, PetroParams{}, flags);
  EXPECT_FLOAT_EQ(corrected.flux, whole.flux);
  f.mask_type = MaskType::Blank;
  const PetroResult blanked = petro_flux(f, s, PetroParams{}, flags);
  EXPECT_NEAR(blanked.flux, whole.flux - img(28, 29), 1e-3);
}

TEST(Petro, FlatProfileRunsTheWholeSearch) {
  // A constant image: the annulus never falls below 0.2 x the inner mean, so the search runs
  // to its last step: k from 6/20 by 6/20 while 1.2 k < 6, the factor 2 x the last midpoint.
  Image<float> img(200, 200);
  std::fill(img.data(), img.data() + img.size(), 1.0f);
  PhotometryField f;
  f.value = img.view();
  const ApertureShape s = circle(100.0, 100.0, 3.0f);
  float kmin = static_cast<float>(6.0f / 20.0), kstep = kmin, kmea = 0;
  for (float kmax; (kmax = static_cast<float>(kmin * 1.2)) < 6.0f; kmin += kstep)
    kmea = static_cast<float>((kmin + kmax) / 2.0);
  uint16_t flags = 0;
  const PetroResult r = petro_flux(f, s, {2.0, 3.5, 0.0, 0.0}, flags);
  EXPECT_FLOAT_EQ(r.radius, static_cast<float>(2.0 * kmea));
  EXPECT_GT(kmea, 5.0f);
  // PHOT_PETROPARAMS' minimum applies when the factor is smaller.
  const PetroResult m = petro_flux(f, s, {0.5, 3.5, 0.0, 0.0}, flags);
  EXPECT_FLOAT_EQ(m.radius, 3.5f);
}

TEST(Vignet, PixelsWithSExtractorsBlanks) {
  Image<float> img(10, 8);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 10; ++x) img(x, y) = static_cast<float>(100 * y + x);
  img(1, 1) = NAN;
  PhotometryField f;
  f.value = img.view();
  ApertureShape s = circle(0.6, 0.2, 1.0f);  // centre pixel (1, 0)
  float out[5 * 3];
  vignet(f, s, 0.6, 0.2, 5, 3, out);
  // The box is x -1..3, y -1..1: row -1 and column -1 are off the frame, (1, 1) is masked.
  for (int v = 0; v < 3; ++v)
    for (int u = 0; u < 5; ++u) {
      const int x = u - 1, y = v - 1;
      const bool blank = x < 0 || y < 0 || (x == 1 && y == 1);
      EXPECT_EQ(out[v * 5 + u], blank ? kVignetBlank : img(x, y)) << u << "," << v;
    }
  // Rows outside the line buffer are blank; a centre outside it blanks everything.
  s.fymin = 1;
  s.fymax = 8;
  vignet(f, s, 5.0, 1.0, 3, 3, out);
  EXPECT_EQ(out[0], kVignetBlank);
  EXPECT_EQ(out[3], img(4, 1));
  vignet(f, s, 5.0, 0.2, 3, 3, out);
  for (int k = 0; k < 9; ++k) EXPECT_EQ(out[k], kVignetBlank) << k;
}

}  // namespace
