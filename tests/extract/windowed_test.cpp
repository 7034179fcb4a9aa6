// Windowed measurements (measure_windowed.hpp) against analytic references: a sampled Gaussian
// whose window has its own sigma is centred on its true position; its windowed second moments
// are those of the product of two Gaussians; masked pixels mirrored (MASK_TYPE CORRECT) leave a
// symmetric profile's centroid unchanged; the flags of degenerate cases. The last digit against
// SExtractor is checked by the parity ctests (extract.parity.*_windowed).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include <cmath>

#include "celeris/image.hpp"
#include "extract/stages/measure_windowed.hpp"

namespace celeris::extract {
namespace {

// A circular Gaussian of `sigma` pixels and total flux `flux` centred on (x0, y0), 0-based,
// each pixel sampled at its centre.
Image<float> gaussian(int w, int h, double x0, double y0, double sigma, double flux) {
  Image<float> img(w, h, 0.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double r2 = (x - x0) * (x - x0) + (y - y0) * (y - y0);
      img(x, y) = static_cast<float>(flux / (2 * M_PI * sigma * sigma) *
                                     std::exp(-r2 / (2 * sigma * sigma)));
    }
  return img;
}

struct WindowFixture {
  Image<float> img;
  Blanking blanking;  // none until another object is placed
  PhotometryField field;
  ApertureShape shape;
  WindowedStart start;
  WindowFixture(Image<float>&& image, double mx, double my, float hl) : img(std::move(image)) {
    field = {img.view(), nullptr, 1.0f, 0.0, MaskType::Correct};
    shape = {1, float(mx), float(my), mx, my, 2.0f, 2.0f, 0.25f, 0.25f, 0.0f};
    start.mx = mx;
    start.my = my;
    start.x2 = start.y2 = 4.0;
    start.a = start.b = 2.0f;
    start.cxx = start.cyy = 0.25f;
    start.errx2 = start.erry2 = 1e-4;
    start.hl_radius = hl;
  }
};

// The window sigma is hl_radius * 2 / 2.35; choose hl so that it equals `sigma`.
float hl_for_sigma(double sigma) {
  return static_cast<float>(sigma * 2.35 / 2.0);
}

TEST(Windowed, GaussianIsCentredOnItsTruePosition) {
  const double x0 = 30.37, y0 = 27.81, sigma = 2.0;
  WindowFixture s(gaussian(64, 60, x0, y0, sigma, 1e5), 30.0, 28.3, hl_for_sigma(sigma));
  uint16_t flags = 0;
  const WindowedResult r = windowed(s.field, s.shape, s.start, flags);
  EXPECT_EQ(r.flags, 0);
  EXPECT_EQ(flags, 0);
  // Sampling a Gaussian at pixel centres biases its centroid by far less than 1e-4 px.
  EXPECT_NEAR(r.x, x0, 1e-4);
  EXPECT_NEAR(r.y, y0, 1e-4);
  EXPECT_GT(r.niter, 1);
  EXPECT_LE(r.niter, 17);
}

TEST(Windowed, MomentsAreThoseOfTheWindowedProfile) {
  // Profile sigma s and window sigma w: the product is a Gaussian of variance s^2 w^2 /
  // (s^2 + w^2); the flux within it is F w^2 / (s^2 + w^2) (window peak 1).
  const double sigma = 3.0, wsig = 2.0, flux = 1e5;
  WindowFixture s(gaussian(80, 80, 40.0, 40.0, sigma, flux), 40.0, 40.0, hl_for_sigma(wsig));
  uint16_t flags = 0;
  const WindowedResult r = windowed(s.field, s.shape, s.start, flags);
  const double v = sigma * sigma * wsig * wsig / (sigma * sigma + wsig * wsig);
  ASSERT_EQ(r.flags, 0);
  // The window is cut at 4 sigma (a 3e-4 loss) and the float window sigma is rounded.
  EXPECT_NEAR(r.x2, v, 2e-3 * v);
  EXPECT_NEAR(r.y2, v, 2e-3 * v);
  EXPECT_NEAR(r.xy, 0.0, 1e-6);
  EXPECT_NEAR(r.a, std::sqrt(v), 2e-3);
  EXPECT_NEAR(r.b, std::sqrt(v), 2e-3);
  EXPECT_NEAR(r.flux, flux * wsig * wsig / (sigma * sigma + wsig * wsig), 2e-3 * flux);
  // Error: background variance 1 (backsig 1) and no gain term.
  EXPECT_GT(r.errx2, 0.0);
  EXPECT_NEAR(r.errx2, r.erry2, 1e-9);
}

TEST(Windowed, MirroredMaskedPixelsKeepTheCentroid) {
  WindowFixture s(gaussian(64, 64, 32.0, 32.0, 2.0, 1e5), 32.0, 32.0, hl_for_sigma(2.0));
  uint16_t flags = 0;
  const WindowedResult ref = windowed(s.field, s.shape, s.start, flags);
  // Another object's pixels right of the centre: blanked, replaced by their mirror.
  ObjectList objects = ObjectList::of({{32, 32, 0.0f, 0.0f}});  // this object: id 1
  for (int y = 30; y <= 33; ++y)
    for (int x = 34; x <= 35; ++x) objects.push_pixel({x, y, 0.0f, 0.0f});
  objects.end_object(0);  // the other object: id 2
  s.blanking = Blanking(s.img.view(), s.img.view(), std::numeric_limits<float>::max(), objects, {},
                        0, false);
  s.field.blanking = &s.blanking;
  const WindowedResult corrected = windowed(s.field, s.shape, s.start, flags);
  EXPECT_NEAR(corrected.x, ref.x, 1e-6);
  EXPECT_NEAR(corrected.y, ref.y, 1e-6);
  // Without the correction the blanked pixels count as 0 and pull the centroid left.
  s.field.mask_type = MaskType::Blank;
  const WindowedResult blanked = windowed(s.field, s.shape, s.start, flags);
  EXPECT_LT(blanked.x, ref.x - 0.01);
}

TEST(Windowed, DegenerateCasesFallBackOnIsophotalValues) {
  // No flux: FLAGS_WIN 4, and the isophotal values are returned.
  WindowFixture s(Image<float>(32, 32, 0.0f), 16.2, 15.7, 1.5f);
  uint16_t flags = 0;
  WindowedResult r = windowed(s.field, s.shape, s.start, flags);
  EXPECT_TRUE(r.flags & 4);
  EXPECT_EQ(r.x, 16.2);
  EXPECT_EQ(r.y, 15.7);
  EXPECT_EQ(r.x2, 4.0);
  EXPECT_EQ(r.errx2, 1e-4);
  // A window crossing the border sets FLAGS bit 16 (aperture data incomplete).
  WindowFixture e(gaussian(32, 32, 1.0, 16.0, 2.0, 1e5), 1.0, 16.0, hl_for_sigma(2.0));
  flags = 0;
  r = windowed(e.field, e.shape, e.start, flags);
  EXPECT_TRUE(flags & kFlagAperIncomplete);
}

TEST(Windowed, ErrorEllipseAxesAndAngle) {
  float a, b, t;
  error_ellipse(4.0, 1.0, 0.0, a, b, t);
  EXPECT_FLOAT_EQ(a, 2.0f);
  EXPECT_FLOAT_EQ(b, 1.0f);
  EXPECT_FLOAT_EQ(t, 0.0f);
  error_ellipse(1.0, 4.0, 0.0, a, b, t);
  EXPECT_FLOAT_EQ(a, 2.0f);
  EXPECT_NEAR(t, 90.0f, 1e-4);
  // Equal variances, positive covariance: major axis at 45 degrees, axes sqrt(2.5 +- 1.5).
  error_ellipse(2.5, 2.5, 1.5, a, b, t);
  EXPECT_FLOAT_EQ(a, 2.0f);
  EXPECT_FLOAT_EQ(b, 1.0f);
  EXPECT_NEAR(t, 45.0f, 1e-4);
}

// With weights (winpos.c): a variance map equal to the global variance gives the unweighted
// result (the Poisson term var / backnoise2 is then 1); a pixel of bad weight is treated as a
// masked one, mirrored with its mirror's variance; doubling every variance doubles the error
// variance of the flux when there is no Poisson term.
TEST(Windowed, WeightsEnterAsSExtractorsVarianceMap) {
  const double x0 = 30.37, y0 = 27.81, sigma = 2.0;
  WindowFixture s(gaussian(64, 60, x0, y0, sigma, 1e5), 30.0, 28.3, hl_for_sigma(sigma));
  s.field.backsig = 2.0f;
  s.field.gain = 4.0;
  uint16_t flags = 0;
  const WindowedResult plain = windowed(s.field, s.shape, s.start, flags);
  Image<float> var(64, 60, 4.0f);
  s.field.var = var.view();
  s.field.wthresh = 1e30f;
  const WindowedResult same = windowed(s.field, s.shape, s.start, flags);
  EXPECT_EQ(same.x, plain.x);
  EXPECT_EQ(same.y, plain.y);
  EXPECT_EQ(same.flux, plain.flux);
  EXPECT_EQ(same.fluxerr, plain.fluxerr);
  EXPECT_EQ(same.errx2, plain.errx2);
  // A bad weight is a masked pixel: the same result as NaN there.
  var(31, 27) = 2e30f;
  const WindowedResult bad_weight = windowed(s.field, s.shape, s.start, flags);
  var(31, 27) = 4.0f;
  s.img(31, 27) = NAN;
  const WindowedResult masked = windowed(s.field, s.shape, s.start, flags);
  EXPECT_EQ(bad_weight.x, masked.x);
  EXPECT_EQ(bad_weight.flux, masked.flux);
  EXPECT_EQ(bad_weight.fluxerr, masked.fluxerr);
  // Without gain, the flux error variance scales with the variances.
  s.img(31, 27) = s.img(29, 28);
  s.field.gain = 0.0;
  const WindowedResult v4 = windowed(s.field, s.shape, s.start, flags);
  std::fill(var.data(), var.data() + var.size(), 8.0f);
  const WindowedResult v8 = windowed(s.field, s.shape, s.start, flags);
  EXPECT_NEAR(v8.fluxerr * v8.fluxerr, 2.0 * v4.fluxerr * v4.fluxerr,
              1e-6 * v8.fluxerr * v8.fluxerr);
  EXPECT_EQ(v8.x, v4.x);
}

}  // namespace
}  // namespace celeris::extract
