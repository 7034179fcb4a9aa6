// The per-pixel half of an object's shape (SExtractor scan.c:preanalyse), written once for the
// CPU (moments.cpp) and the GPU (gpu/shape_kernels.cu): the bounding box, the peaks, the sums
// of the filtered values and of their first and second moments about the box corner, and the
// two pixel counts of the area correction. Everything here is arithmetic and comparisons,
// summed in the pixels' order, so the GPU (compiled without FMA contraction) gives the CPU's
// sums bit for bit; the finish (moments.cpp finish_shape) takes atan2 and log, whose device
// versions are not the C library's, and stays on the host. Plain C++17, no CUDA headers.
#pragma once

#include <cfloat>
#include <climits>
#include <cstdint>

#include "celeris/host_device.hpp"
#include "extract/objects.hpp"

namespace celeris::extract {

struct ShapeSums {
  int xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  float cpeak = 0.0f, peak = 0.0f;   // max filtered and unfiltered values
  double rv = 0;                     // sum of the filtered values (fdflux)
  double mx = 0, my = 0;             // first moments about (xmin, ymin)
  double mx2 = 0, my2 = 0, mxy = 0;  // second moments about (xmin, ymin)
  double mdx = 0, mdy = 0;           // flux-weighted shifts (a DGEO map only)
  int area2 = 0;                     // pixels above (thresh + peak) / 2
  int dnpix = 0;                     // pixels above thresh
};

// No differential-geometry shift (the GPU's case, and the CPU's without DGEO_TYPE PIXEL).
struct NoShift {
  static constexpr bool kActive = false;
  CELERIS_HD void operator()(int32_t, int32_t, float&, float&) const {}
};

// The sums over pixels px(0) .. px(n - 1) (each a Pixel), `thresh` the object's detection
// threshold. With a Shift whose kActive is true, each pixel's offset from the box corner less
// its shift (dx, dy) is truncated back to an int, as SExtractor 2.25 stores it.
template <class Pixels, class Shift>
CELERIS_HD ShapeSums shape_sums(const Pixels& px, int64_t n, float thresh, const Shift& shift) {
  ShapeSums s;
  // In locals: the result's fields live in memory, which the pixels' loads might alias.
  int xmin = INT_MAX, ymin = INT_MAX, xmax = INT_MIN, ymax = INT_MIN;
  float cpeak = -FLT_MAX, peak = -FLT_MAX;
  double rv = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Pixel p = px(i);
    xmin = p.x < xmin ? p.x : xmin;  // std::min and std::max, as selects
    xmax = xmax < p.x ? p.x : xmax;
    ymin = p.y < ymin ? p.y : ymin;
    ymax = ymax < p.y ? p.y : ymax;
    cpeak = cpeak < p.cvalue ? p.cvalue : cpeak;
    peak = peak < p.value ? p.value : peak;
    rv += p.cvalue;
  }
  s.xmin = xmin, s.xmax = xmax, s.ymin = ymin, s.ymax = ymax;
  s.cpeak = cpeak, s.peak = peak;
  s.rv = rv;
  // Moments relative to the box corner to limit round-off, as SExtractor: the products in
  // float (SExtractor: PIXTYPE times int), summed in double.
  double mx = 0, my = 0, mx2 = 0, my2 = 0, mxy = 0, mdx = 0, mdy = 0;
  int area2 = 0, dnpix = 0;
  const float half = (thresh + peak) / 2;
  for (int64_t i = 0; i < n; ++i) {
    const Pixel p = px(i);
    int x = p.x - xmin, y = p.y - ymin;
    const float c = p.cvalue;
    if constexpr (Shift::kActive) {
      float dx = 0, dy = 0;
      shift(p.x, p.y, dx, dy);
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
    area2 += p.value > half;  // (counts without branches: the outcome is unpredictable)
    dnpix += p.value > thresh;
  }
  s.mx = mx, s.my = my, s.mx2 = mx2, s.my2 = my2, s.mxy = mxy, s.mdx = mdx, s.mdy = mdy;
  s.area2 = area2;
  s.dnpix = dnpix;
  return s;
}

// The barycentre and second moments relative to the box corner (with the 1/12 guard still to
// apply): about the barycentre, or about a fixed centre (cx, cy) (deblended children,
// SExtractor's ANALYSE_ROBUST).
struct CentralMoments {
  double xm = 0, ym = 0, xm2 = 0, ym2 = 0, xym = 0;
};

CELERIS_HD inline CentralMoments central_moments(const ShapeSums& s, bool fixed_centre, double cx,
                                                 double cy) {
  CentralMoments m;
  const double rv = s.rv;
  double xm = s.mx / rv, ym = s.my / rv;
  if (fixed_centre) {
    const double xn = cx - s.xmin, yn = cy - s.ymin;
    m.xm2 = s.mx2 / rv + xn * xn - 2 * xm * xn;
    m.ym2 = s.my2 / rv + yn * yn - 2 * ym * yn;
    m.xym = s.mxy / rv + xn * yn - xm * yn - xn * ym;
    xm = xn;
    ym = yn;
  } else {
    m.xm2 = s.mx2 / rv - xm * xm;
    m.ym2 = s.my2 / rv - ym * ym;
    m.xym = s.mxy / rv - xm * ym;
  }
  m.xm = xm;
  m.ym = ym;
  return m;
}

}  // namespace celeris::extract
