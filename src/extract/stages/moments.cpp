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
}  // namespace

Shape compute_shape(const ObjectView& object, float thresh, bool weighted, const DgeoMap* dgeo) {
  Shape s;
  s.xmin = s.ymin = std::numeric_limits<int>::max();
  s.xmax = s.ymax = std::numeric_limits<int>::min();
  s.cpeak = s.peak = -std::numeric_limits<float>::max();
  double rv = 0;
  for (const Pixel p : object) {
    s.xmin = std::min(s.xmin, p.x);
    s.xmax = std::max(s.xmax, p.x);
    s.ymin = std::min(s.ymin, p.y);
    s.ymax = std::max(s.ymax, p.y);
    s.cpeak = std::max(s.cpeak, p.cvalue);
    s.peak = std::max(s.peak, p.value);
    rv += p.cvalue;
  }
  s.npix = static_cast<int>(object.size());
  s.flux = rv;
  // Moments relative to the box corner to limit round-off, as SExtractor.
  double mx = 0, my = 0, mx2 = 0, my2 = 0, mxy = 0, mdx = 0, mdy = 0;
  int area2 = 0;
  const float half = (thresh + s.peak) / 2;
  for (const Pixel p : object) {
    // The products in float (SExtractor: PIXTYPE times int), summed in double.
    int x = p.x - s.xmin, y = p.y - s.ymin;
    const float c = p.cvalue;
    if (dgeo) {
      // SExtractor's int offsets less the float shift, truncated back to int (scan.c).
      const float dx = dgeo->dx(p.x, p.y), dy = dgeo->dy(p.x, p.y);
      x = static_cast<int>(static_cast<float>(x) - dx);
      y = static_cast<int>(static_cast<float>(y) - dy);
      mdx += c * dx;
      mdy += c * dy;
    }
    mx += c * static_cast<float>(x);
    my += c * static_cast<float>(y);
    mx2 += c * static_cast<float>(x) * static_cast<float>(x);
    my2 += c * static_cast<float>(y) * static_cast<float>(y);
    mxy += c * static_cast<float>(x) * static_cast<float>(y);
    if (p.value > half) ++area2;
  }
  double xm = mx / rv, ym = my / rv, xm2, ym2, xym;
  s.dgeox = static_cast<float>(mdx / rv);
  s.dgeoy = static_cast<float>(mdy / rv);
  if (object.fixed_centre) {
    const double xn = object.cx - s.xmin, yn = object.cy - s.ymin;
    xm2 = mx2 / rv + xn * xn - 2 * xm * xn;
    ym2 = my2 / rv + yn * yn - 2 * ym * yn;
    xym = mxy / rv + xn * yn - xm * yn - xn * ym;
    xm = xn;
    ym = yn;
  } else {
    xm2 = mx2 / rv - xm * xm;
    ym2 = my2 / rv - ym * ym;
    xym = mxy / rv - xm * ym;
  }
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
  int dnpix = 0;
  for (const Pixel p : object) dnpix += p.value > thresh;
  const float thresh2 = (thresh + s.peak) / 2;
  const double darea = static_cast<double>(area2) - dnpix;
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
