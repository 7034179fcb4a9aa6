// compute_shape's second half (SExtractor scan.c preanalyse), from the per-pixel sums
// (shape_sums.hpp): the moments, the ellipse and the area correction; and a deblending core's
// child (refine.c), its profile's amplitude from that shape. Written once for the host
// (moments.cpp finish_shape and deblend.cpp's plans, with the C library's atan2, log and expf)
// and the GPU (gpu/deblend_core_kernels.cu: the cores' children, with glibc's log and expf
// reproduced, core/glibc_float_math.hpp, and no theta). Plain C++17 (CELERIS_HD); compiled
// without contraction on both (moments.cpp, deblend.cpp: -ffp-contract=off; the kernels:
// --fmad=false), so that both give the same bits.
#pragma once

#include <cmath>
#include <cstdint>

#include "celeris/host_device.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/deblend_profile.hpp"
#include "extract/stages/shape.hpp"
#include "extract/stages/shape_sums.hpp"

namespace celeris::extract {

namespace shape_finish {
constexpr double kSingularLimit = 0.00694;  // det below which a pixel's 1/12 variance is added
constexpr double kTwelfth = 0.0833333;
constexpr double kRatioCap = 0.99;  // the area correction's threshold ratio at most (below 1)
}  // namespace shape_finish

// theta from the moments as finish_shape_with leaves them (the 1/12 guard applied): half the
// angle atan2(y, x) gives, or pi/4 where the two variances are equal.
template <class Atan2>
CELERIS_HD double ellipse_theta(double xm2, double ym2, double xym, Atan2 atan2) {
  const double diff = xm2 - ym2;
  // (|diff| > 0: neither 0 nor NaN)
  return (diff > 0.0 || diff < 0.0) ? atan2(2 * xym, diff) / 2 : kSexPi / 4;
}

// An Atan2 for callers that make theta later (ellipse_theta on the host, from the shape's x2,
// y2 and xy: the GPU's shapes, whose atan2 is not the C library's) or never read it.
struct ThetaLater {
  CELERIS_HD double operator()(double, double) const { return 0.0; }
};

// The shape from its sums. atan2(y, x): theta's (ThetaLater: none); log_ratio(t1t2):
// log(t1t2 < 1 ? t1t2 : shape_finish::kRatioCap) in double, for t1t2 > 0, the area
// correction's.
template <class Atan2, class LogRatio>
CELERIS_HD Shape finish_shape_with(const ShapeSums& sums, int64_t npix, bool fixed_centre,
                                   double cx, double cy, float thresh, bool weighted, Atan2 atan2,
                                   LogRatio log_ratio) {
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
  if (det < shape_finish::kSingularLimit) {
    xm2 += shape_finish::kTwelfth;
    ym2 += shape_finish::kTwelfth;
    det = xm2 * ym2 - xym * xym;
    s.singular = true;
  }
  const double diff = xm2 - ym2;
  const double theta = ellipse_theta(xm2, ym2, xym, atan2);
  const double t = sqrt(0.25 * diff * diff + xym * xym);
  const double half_sum = (xm2 + ym2) / 2;
  s.a = static_cast<float>(sqrt(half_sum + t));
  const double b2 = half_sum - t;
  s.b = static_cast<float>(b2 > 0 ? sqrt(b2) : 0.0);
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
    double ab = (darea < 0 ? darea : -1.0) /
                (2 * kSexPi * log_ratio(t1t2) * static_cast<float>(s.a) * static_cast<float>(s.b));
    s.abcor = static_cast<float>(ab > 1 ? 1.0 : ab);
  } else {
    s.abcor = 1.0f;
  }
  return s;
}

// The child a deblending core makes (refine.c): its barycentre and ellipse as the pixel
// assignment reads them, and its Gaussian profile's amplitude from the detection's threshold t0
// (expf: the C library's expf, called with d < 70 only).
template <class Expf>
CELERIS_HD DeblendChild core_child(const Shape& s, float t0, Expf expf) {
  const float d = static_cast<float>(
      s.npix / (2 * kSexPi * s.abcor * static_cast<float>(s.a) * static_cast<float>(s.b)));
  float amp = d < 70.0f ? t0 * expf(d) : static_cast<float>(4.0 * s.cpeak);
  if (amp > 4.0 * s.cpeak) amp = static_cast<float>(4.0 * s.cpeak);
  return {s.mx,
          s.my,
          static_cast<float>(s.cxx),
          static_cast<float>(s.cyy),
          static_cast<float>(s.cxy),
          s.abcor,
          amp};
}

}  // namespace celeris::extract
