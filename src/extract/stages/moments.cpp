#include "extract/stages/moments.hpp"
#include "extract/sextractor/pi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace celeris::extract {

namespace {
constexpr double kSingularLimit = 0.00694;  // det below which a pixel's 1/12 variance is added
constexpr double kTwelfth = 0.0833333;

// A DGEO map's shift at a pixel (shape_sums.hpp's Shift).
struct DgeoShift {
  static constexpr bool kActive = true;
  const DgeoMap* map;
  void operator()(int32_t x, int32_t y, float& dx, float& dy) const {
    dx = map->dx(x, y);
    dy = map->dy(x, y);
  }
};

}  // namespace

Shape compute_shape(const ObjectView& object, float thresh, bool weighted, const DgeoMap* dgeo) {
  const auto px = [&](int64_t i) { return object[static_cast<size_t>(i)]; };
  const int64_t n = static_cast<int64_t>(object.size());
  const ShapeSums sums =
      dgeo ? shape_sums(px, n, thresh, DgeoShift{dgeo}) : shape_sums(px, n, thresh, NoShift{});
  return finish_shape(sums, n, object.fixed_centre, object.cx, object.cy, thresh, weighted);
}

Shape finish_shape(const ShapeSums& sums, int64_t npix, bool fixed_centre, double cx, double cy,
                   float thresh, bool weighted) {
  Shape s;
  s.xmin = sums.xmin, s.xmax = sums.xmax, s.ymin = sums.ymin, s.ymax = sums.ymax;
  s.cpeak = sums.cpeak;
  s.peak = sums.peak;
  s.npix = static_cast<int>(npix);
  s.flux = sums.rv;
  const double rv = sums.rv;
  s.dgeox = static_cast<float>(sums.mdx / rv);
  s.dgeoy = static_cast<float>(sums.mdy / rv);
  const CentralMoments m = central_moments(sums, fixed_centre, cx, cy);
  const double xm = m.xm, ym = m.ym;
  double xm2 = m.xm2, ym2 = m.ym2;
  const double xym = m.xym;
  double det = xm2 * ym2 - xym * xym;
  if (det < kSingularLimit) {
    xm2 += kTwelfth;
    ym2 += kTwelfth;
    det = xm2 * ym2 - xym * xym;
    s.singular = true;
  }
  const double diff = xm2 - ym2;
  double theta = std::fabs(diff) > 0.0 ? std::atan2(2 * xym, diff) / 2 : kSexPi / 4;
  const double t = std::sqrt(0.25 * diff * diff + xym * xym);
  const double half_sum = (xm2 + ym2) / 2;
  s.a = static_cast<float>(std::sqrt(half_sum + t));
  const double b2 = half_sum - t;
  s.b = static_cast<float>(b2 > 0 ? std::sqrt(b2) : 0.0);
  s.theta = theta;
  s.cxx = static_cast<float>(ym2 / det);
  s.cyy = static_cast<float>(xm2 / det);
  s.cxy = static_cast<float>(-2 * xym / det);
  s.x2 = xm2;
  s.y2 = ym2;
  s.xy = xym;
  s.mx = xm + s.xmin;
  s.my = ym + s.ymin;
  // Isophotal area correction (SExtractor abcor), used by deblending and cleaning: compares the
  // area above half the peak with the area above the threshold.
  const float thresh2 = (thresh + s.peak) / 2;
  const double darea = static_cast<double>(sums.area2) - sums.dnpix;
  const float t1t2 = thresh / thresh2;
  if (t1t2 > 0 && !weighted) {
    double ab = (darea < 0 ? darea : -1.0) / (2 * kSexPi * std::log(t1t2 < 1 ? t1t2 : 0.99) *
                                              static_cast<float>(s.a) * static_cast<float>(s.b));
    s.abcor = static_cast<float>(ab > 1 ? 1.0 : ab);
  } else {
    s.abcor = 1.0f;
  }
  return s;
}

}  // namespace celeris::extract
