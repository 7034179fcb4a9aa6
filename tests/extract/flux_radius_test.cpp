// FLUX_RADIUS fills the growth curve's bins outward, only as far as the radii asked for need.
// Reference: the whole curve in one pass over the 6 A_IMAGE disc (SExtractor growth.c's loop,
// as celeris had it). Radii, the half-light radius and the flags must be identical bit for bit,
// for fractions near 0, past 1, a negative or NaN total, masked pixels and clipped discs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "celeris/extract.hpp"
#include "extract/stages/photometry.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

constexpr int kOversamp = 5, kNStep = 64;

// A masked (NaN) pixel reads as its mirror through the centre (MASK_TYPE CORRECT), or 0.
double reference_pixel(const PhotometryField& f, const ApertureShape& s, int x, int y) {
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  if (!std::isnan(f.value(x, y))) return f.value(x, y);
  if (f.mask_type == MaskType::Correct) {
    const int x2 = static_cast<int>(2 * s.dmx + 0.49999 - x);
    const int y2 = static_cast<int>(2 * s.dmy + 0.49999 - y);
    if (x2 >= 0 && x2 < w && y2 >= s.fymin && y2 < std::min(s.fymax, h) &&
        !std::isnan(f.value(x2, y2)))
      return f.value(x2, y2);
  }
  return 0.0;
}

void reference_flux_radius(const PhotometryField& f, const ApertureShape& s, float flux_auto,
                           const std::vector<double>& fractions, double min_rlim, float* out,
                           uint16_t& flags, float* hl_radius) {
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  const double mx = s.dmx, my = s.dmy;
  const double rlim = std::max(6.0 * s.a, min_rlim);
  const double raper = rlim + 1.5, rextlim2 = raper * raper;
  const double stepdens = kNStep / rlim, step = 1 / stepdens;
  const double prevbinmargin = 0.75, nextbinmargin = step - 0.75;
  const double scale = 1.0 / kOversamp, scale2 = scale * scale, offset = 0.5 * (scale - 1.0);
  double growth[kNStep] = {0};
  int xmin = static_cast<int>(mx - raper + 0.499999),
      xmax = static_cast<int>(mx + raper + 1.499999);
  int ymin = static_cast<int>(my - raper + 0.499999),
      ymax = static_cast<int>(my + raper + 1.499999);
  const int fymax = std::min(s.fymax, h);
  if (xmin < 0) xmin = 0, flags |= kFlagAperIncomplete;
  if (xmax > w) xmax = w, flags |= kFlagAperIncomplete;
  if (ymin < s.fymin) ymin = s.fymin, flags |= kFlagAperIncomplete;
  if (ymax > fymax) ymax = fymax, flags |= kFlagAperIncomplete;
  for (int y = ymin; y < ymax; ++y)
    for (int x = xmin; x < xmax; ++x) {
      double dx = x - mx, dy = y - my;
      const double r2 = dx * dx + dy * dy;
      if (r2 >= rextlim2) continue;
      const double pix = reference_pixel(f, s, x, y);
      const double r = std::sqrt(r2);
      const double d = std::fmod(r, step);
      if (d < prevbinmargin || d > nextbinmargin) {
        dx += offset;
        dy += offset;
        for (int sy = kOversamp; sy--; dy += scale) {
          double dx1 = dx;
          const double dy2 = dy * dy;
          for (int sx = kOversamp; sx--; dx1 += scale) {
            const int j = static_cast<int>(std::sqrt(dx1 * dx1 + dy2) * stepdens);
            if (j < kNStep) growth[j] += scale2 * pix;
          }
        }
      } else {
        const int j = static_cast<int>(r * stepdens);
        if (j < kNStep) growth[j] += pix;
      }
    }
  double acc = 0.0;
  for (double& g : growth) {
    g += acc;
    acc = g;
  }
  const int n = kNStep - 1;
  auto radius_at = [&](double tv) {
    int i = 0;
    while (i < n && growth[i] < tv) ++i;
    const int cur = i < n ? i : n - 1;
    if (i) {
      const double dg = growth[cur] - growth[cur - 1];
      return step * (dg != 0.0 ? i + (tv - growth[cur - 1]) / dg : i);
    }
    return step * (growth[0] != 0.0 ? tv / growth[0] : 0.0);
  };
  for (size_t j = 0; j < fractions.size(); ++j) {
    float fr = static_cast<float>(radius_at(fractions[j] * flux_auto));
    if (fr > rlim) fr = static_cast<float>(rlim);
    out[j] = fr;
  }
  if (hl_radius) {
    float hl = static_cast<float>(std::fabs(radius_at(0.5 * flux_auto)));
    if (hl > rlim) hl = static_cast<float>(rlim);
    if (hl < 0.5f) hl = 0.5f;
    *hl_radius = hl;
  }
}

TEST(FluxRadius, OutwardFillingEqualsTheWholeCurve) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  const std::vector<std::vector<double>> fraction_sets = {
      {0.5}, {0.05, 0.5, 0.9}, {0.99, 1.0}, {1.2, 0.2}, {0.0}, {-0.3}};
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int w = 30 + rng() % 60, h = 30 + rng() % 60;
    Image<float> img(w, h);
    const double cx = u(rng) * w, cy = u(rng) * h, sig = 0.6 + 4 * u(rng),
                 amp = trial % 17 == 0 ? -50.0 : 10 + 1e4 * u(rng);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
        img(x, y) = static_cast<float>(amp * std::exp(-r2 / (2 * sig * sig)) + (u(rng) - 0.5));
        if (u(rng) < 0.01) img(x, y) = NAN;
      }
    PhotometryField f;
    f.value = img.view();
    f.mask_type = trial % 3 == 0 ? MaskType::None : MaskType::Correct;
    ApertureShape s;
    s.dmx = cx;
    s.dmy = cy;
    s.a = static_cast<float>(sig * (0.5 + u(rng)));
    // Rows of a line buffer that ends near the object (as SExtractor's, never above the image).
    if (trial % 5 == 0)
      s.fymin = std::max(0, static_cast<int>(cy) - 3), s.fymax = static_cast<int>(cy) + 6;
    const double min_rlim = trial % 4 == 0 ? 12.0 * u(rng) : 0.0;
    double total = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if (!std::isnan(img(x, y))) total += img(x, y);
    const float flux_auto =
        trial % 23 == 0 ? NAN : static_cast<float>(total * (0.8 + 0.3 * u(rng)));
    for (const auto& fr : fraction_sets) {
      std::vector<float> got(fr.size()), ref(fr.size());
      uint16_t got_flags = 0, ref_flags = 0;
      float got_hl = 0, ref_hl = 0;
      const bool hl = trial % 2 == 0;
      flux_radius(f, s, flux_auto, fr, static_cast<int>(fr.size()), min_rlim, got.data(), got_flags,
                  hl ? &got_hl : nullptr);
      reference_flux_radius(f, s, flux_auto, fr, min_rlim, ref.data(), ref_flags,
                            hl ? &ref_hl : nullptr);
      for (size_t j = 0; j < fr.size(); ++j)
        EXPECT_TRUE(got[j] == ref[j] || (std::isnan(got[j]) && std::isnan(ref[j])))
            << "trial " << trial << " fraction " << fr[j] << ": " << got[j] << " vs " << ref[j];
      EXPECT_EQ(got_flags, ref_flags) << "trial " << trial;
      EXPECT_TRUE(got_hl == ref_hl || (std::isnan(got_hl) && std::isnan(ref_hl)))
          << "trial " << trial << ": " << got_hl << " vs " << ref_hl;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 300 * 6);
}

}  // namespace
