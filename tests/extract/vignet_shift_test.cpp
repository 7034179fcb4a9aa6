// VIGNET_SHIFT (stages/vignet_shift.cpp) against simple references: its kernel is Lanczos-4 to
// float precision; its output equals a double-precision brute force of the same resampling
// (the separable 8 x 8 Lanczos mask normalised over all its taps, pixels off the frame or the
// line buffer counting for nothing); an object on a whole pixel comes out as VIGNET; a Gaussian
// off the pixel grid comes out centred on the vignet's centre pixel; masked pixels come in as
// SExtractor's -1e30; a centre off the frame gives zeros.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "extract/stages/measure_vignet.hpp"
#include "extract/stages/photometry.hpp"
#include "extract/stages/vignet_shift.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

double lanczos4(double x) {
  if (x == 0.0) return 1.0;
  if (std::fabs(x) >= 4.0) return 0.0;
  const double pi = std::acos(-1.0);
  return 4.0 * std::sin(pi * x) * std::sin(pi * x / 4.0) / (pi * pi * x * x);
}

// The resampling in double: out(u, v) = sum of L(i - dx') L(j - dy') P(.) / sum of all the
// weights, the taps i, j as copyimage_center places them, pixels off the image or outside rows
// [fymin, fymax) left out.
std::vector<double> reference(const Image<float>& img, double x, double y, int w, int h, int fymin,
                              int fymax) {
  const float xf = static_cast<float>(x), yf = static_cast<float>(y);
  const int ix = static_cast<int>(xf), iy = static_cast<int>(yf);
  const double dx = xf - ix, dy = yf - iy;
  const int idmx = dx > 0 ? 3 : 4, idmy = dy > 0 ? 3 : 4;
  double norm = 0;
  for (int my = 0; my < 8; ++my)
    for (int mx = 0; mx < 8; ++mx) norm += lanczos4(mx - idmx - dx) * lanczos4(my - idmy - dy);
  std::vector<double> out(static_cast<size_t>(w) * h, 0.0);
  for (int v = 0; v < h; ++v)
    for (int u = 0; u < w; ++u)
      for (int my = 0; my < 8; ++my)
        for (int mx = 0; mx < 8; ++mx) {
          const int px = ix - w / 2 - idmx + mx + u, py = iy - h / 2 - idmy + my + v;
          if (px < 0 || px >= static_cast<int>(img.width()) || py < fymin || py >= fymax) continue;
          const double p = std::isnan(img(px, py)) ? -1e30 : img(px, py);
          out[static_cast<size_t>(v) * w + u] +=
              lanczos4(mx - idmx - dx) * lanczos4(my - idmy - dy) / norm * p;
        }
  return out;
}

Image<float> gaussian(int w, int h, double cx, double cy, double sig, double amp) {
  Image<float> img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
      img(x, y) = static_cast<float>(amp * std::exp(-r2 / (2 * sig * sig)));
    }
  return img;
}

ApertureShape shape() {
  ApertureShape s;
  s.id = 1;
  return s;
}

}  // namespace

TEST(VignetShift, KernelIsLanczos4) {
  EXPECT_EQ(vignet_shift_kernel(0.0f), 1.0);
  EXPECT_EQ(vignet_shift_kernel(4.5f), 0.0);
  EXPECT_EQ(vignet_shift_kernel(-4.001f), 0.0);
  for (float x = -3.97f; x < 4.0f; x += 0.173f)
    EXPECT_NEAR(vignet_shift_kernel(x), lanczos4(x), 2e-7) << x;
}

TEST(VignetShift, MaskIsNormalisedLanczos) {
  // dx > 0: the taps start 3 pixels before the centre (4 when dx is 0).
  for (const auto& [dx, dy, start] : {std::tuple{0.37f, 0.81f, 3}, std::tuple{0.0f, 0.5f, 4}}) {
    float mask[64];
    vignet_shift_mask(dx, dy, mask);
    const int sy = dy > 0 ? 3 : 4;
    double norm = 0;
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) norm += lanczos4(i - start - dx) * lanczos4(j - sy - dy);
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i)
        EXPECT_NEAR(mask[j * 8 + i], lanczos4(i - start - dx) * lanczos4(j - sy - dy) / norm, 1e-6)
            << dx << " " << i << "," << j;
  }
}

TEST(VignetShift, EqualsDoubleReferenceInsideAndAtTheBorders) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-50.0f, 400.0f);
  Image<float> img(40, 30);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) img(x, y) = u(rng);
  PhotometryField f;
  f.value = img.view();
  const ApertureShape s = shape();
  // Inside, at the corners (the vignet and the mask overhang the frame), on whole pixels.
  const double centres[][2] = {{20.3, 14.8}, {0.2, 0.9}, {39.7, 29.4}, {1.6, 28.1}, {12.0, 7.0}};
  for (const auto& c : centres) {
    std::vector<float> out(11 * 9);
    vignet_shift(f, s, c[0], c[1], 11, 9, out.data());
    const std::vector<double> ref = reference(img, c[0], c[1], 11, 9, 0, 30);
    for (size_t k = 0; k < out.size(); ++k)
      EXPECT_NEAR(out[k], ref[k], 1e-5 * 400 * 4) << c[0] << "," << c[1] << " pixel " << k;
  }
}

TEST(VignetShift, LineBufferRowsAndOffFrameCentre) {
  Image<float> img = gaussian(30, 30, 15.0, 15.0, 3.0, 100.0);
  PhotometryField f;
  f.value = img.view();
  ApertureShape s = shape();
  s.fymin = 10;
  s.fymax = 20;
  std::vector<float> out(9 * 13);
  vignet_shift(f, s, 14.6, 11.3, 9, 13, out.data());
  const std::vector<double> ref = reference(img, 14.6, 11.3, 9, 13, 10, 20);
  for (size_t k = 0; k < out.size(); ++k) EXPECT_NEAR(out[k], ref[k], 1e-4) << k;
  EXPECT_EQ(out[0], 0.0f);  // row 0's mask reaches rows 2..9, all below the buffer
  EXPECT_NE(out[9], 0.0f);  // row 1's reaches row 10
  // A centre (truncated, not rounded) off the buffer or the frame: zeros.
  for (const auto& c : {std::pair{14.6, 9.9}, std::pair{14.6, 20.0}, std::pair{30.2, 15.0}}) {
    std::fill(out.begin(), out.end(), 7.0f);
    vignet_shift(f, s, c.first, c.second, 9, 13, out.data());
    for (float v : out) EXPECT_EQ(v, 0.0f) << c.first << "," << c.second;
  }
}

TEST(VignetShift, WholePixelCentreIsVignet) {
  Image<float> img = gaussian(30, 30, 12.0, 17.0, 2.5, 1000.0);
  PhotometryField f;
  f.value = img.view();
  const ApertureShape s = shape();
  std::vector<float> shifted(7 * 5), plain(7 * 5);
  vignet_shift(f, s, 12.0, 17.0, 7, 5, shifted.data());
  vignet(f, s, 12.0, 17.0, 7, 5, plain.data());
  // The mask is a delta up to float's sin(4 pi) at its far taps.
  for (size_t k = 0; k < plain.size(); ++k) EXPECT_NEAR(shifted[k], plain[k], 1e-4) << k;
}

TEST(VignetShift, CentresAnObjectOffTheGrid) {
  const double cx = 20.37, cy = 16.74;
  Image<float> img = gaussian(40, 34, cx, cy, 2.0, 1000.0);
  PhotometryField f;
  f.value = img.view();
  std::vector<float> out(15 * 15);
  vignet_shift(f, shape(), cx, cy, 15, 15, out.data());
  double sum = 0, sx = 0, sy = 0;
  for (int v = 0; v < 15; ++v)
    for (int u = 0; u < 15; ++u) {
      const double p = out[v * 15 + u];
      sum += p, sx += p * u, sy += p * v;
    }
  // Within what Lanczos-4 itself leaves: resampling samples of this Gaussian in float64 puts
  // its centroid at 6.991 (offset 0.37) and 7.013 (offset 0.74), not at 7 exactly.
  EXPECT_NEAR(sx / sum, 7.0, 0.02);
  EXPECT_NEAR(sy / sum, 7.0, 0.02);
  // The plain VIGNET has it where it lies: 0.37 and -0.26 pixels off (int)(x + 0.49999).
  std::vector<float> plain(15 * 15);
  vignet(f, shape(), cx, cy, 15, 15, plain.data());
  double px = 0, pn = 0;
  for (int v = 0; v < 15; ++v)
    for (int u = 0; u < 15; ++u) pn += plain[v * 15 + u], px += plain[v * 15 + u] * u;
  EXPECT_NEAR(px / pn, 7.37, 0.01);
}

TEST(VignetShift, MaskedPixelsComeInAsMinusBig) {
  Image<float> img = gaussian(30, 30, 15.0, 15.0, 3.0, 100.0);
  img(16, 15) = NAN;
  PhotometryField f;
  f.value = img.view();
  std::vector<float> out(9 * 9);
  vignet_shift(f, shape(), 15.4, 15.2, 9, 9, out.data());
  const std::vector<double> ref = reference(img, 15.4, 15.2, 9, 9, 0, 30);
  for (size_t k = 0; k < out.size(); ++k)
    EXPECT_NEAR(out[k], ref[k], 1e-5 * std::max(1.0, std::fabs(ref[k]))) << k;
  EXPECT_LT(out[4 * 9 + 5], -1e29f);  // the pixel on the masked one
}
