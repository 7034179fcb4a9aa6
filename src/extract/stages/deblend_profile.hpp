// The deblender's pixel assignment at one pixel (SExtractor refine.c gatherup), written once for
// the host's finish_deblend (deblend.cpp) and the GPU's (gpu/deblend_children_kernels.cu): each
// child's Gaussian profile weight at the pixel, their running sum in float, the nearest child,
// and the child a rand() draw picks. Plain C++ (CELERIS_HD); `exp` is the caller's expf (the
// host's glibc, the GPU's glibcmath::glibc_expf, which gives its bits). No contraction: the
// host's C++ is compiled without it, the GPU's file with --fmad=false.
#pragma once

#include <cfloat>
#include <cstdint>

#include "celeris/host_device.hpp"

namespace celeris::extract {

// What the assignment reads of a child: its core's barycentre and ellipse (as floats, as
// SExtractor reads them there), the core's isophotal area correction, and its profile's
// amplitude.
struct DeblendChild {
  double mx = 0, my = 0;
  float cxx = 0, cyy = 0, cxy = 0, abcor = 1, amplitude = 0;
};

// The Gaussian profile's exponent of child `c` at pixel (x, y): the weight is
// amplitude exp(-dist) where dist < 70, else 0.
CELERIS_HD inline float deblend_profile_dist(const DeblendChild& c, int x, int y) {
  const float dx = static_cast<float>(x - c.mx), dy = static_cast<float>(y - c.my);
  return static_cast<float>(0.5 * (c.cxx * dx * dx + c.cyy * dy * dy + c.cxy * dx * dy) /
                            static_cast<double>(c.abcor));
}

// The running sum of the weights after one more child (the sum in double, kept as a float).
template <class Exp>
CELERIS_HD inline float add_profile_weight(float sum, float dist, float amplitude, Exp exp) {
  return static_cast<float>(sum + (dist < 70.0 ? amplitude * exp(-dist) : 0.0));
}

// Whether a pixel whose weights sum to `total` takes a draw (else it goes to the nearest child).
CELERIS_HD inline bool takes_draw(float total) {
  return static_cast<double>(total) > 1.0e-31;
}

// The threshold a draw `r` (of the C library's rand(), up to rand_max) sets on the running sum.
CELERIS_HD inline float draw_threshold(float total, int32_t r, int32_t rand_max) {
  return total * static_cast<float>(r) / rand_max;
}

// The weights' sum over the n children, child i's exponent dist_of(i), and the nearest child
// (the first of the smallest exponent) in `nearest`; with `sums`, each running sum too (sums[i +
// 1] after child i, as SExtractor keeps them; sums[0] is the caller's).
template <class Dist, class Exp>
CELERIS_HD inline float profile_sums(const DeblendChild* c, int n, Dist dist_of, Exp exp,
                                     int& nearest, float* sums) {
  float sum = 0.0f, distmin = 1e31f;
  nearest = 0;
  for (int i = 0; i < n; ++i) {
    const float dist = dist_of(i);
    sum = add_profile_weight(sum, dist, c[i].amplitude, exp);
    if (sums) sums[i + 1] = sum;
    if (dist < distmin) {
      distmin = dist;
      nearest = i;
    }
  }
  return sum;
}

// profile_sums at pixel (x, y), the exponents computed as they are needed, no running sums kept.
template <class Exp>
CELERIS_HD inline float profile_total(const DeblendChild* c, int n, int x, int y, Exp exp,
                                      int& nearest) {
  return profile_sums(
      c, n, [&](int i) { return deblend_profile_dist(c[i], x, y); }, exp, nearest, nullptr);
}

// The child whose running sum first reaches `threshold` (draw_threshold), the sums taken again
// as profile_total takes them; `nearest` when none does.
template <class Exp>
CELERIS_HD inline int drawn_child(const DeblendChild* c, int n, int x, int y, float threshold,
                                  int nearest, Exp exp) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    sum = add_profile_weight(sum, deblend_profile_dist(c[i], x, y), c[i].amplitude, exp);
    if (!(sum < threshold)) return i;
  }
  return nearest;
}

// An amplitude from which one weight alone makes the sum certain to pass 1e-31: for dist < 70,
// amp exp(-dist) > 0.6 x 3.97e-31 = 2.4e-31, whose float is still above 1e-31; the partial sums
// (rounded to float) never decrease when no weight is negative.
constexpr float kSureAmplitude = 0.6f;

// Whether pixel_takes_draw may answer without the exp: every amplitude finite and not negative.
CELERIS_HD inline bool draws_shortcut(const DeblendChild* c, int n) {
  for (int i = 0; i < n; ++i)
    if (!(c[i].amplitude >= 0 && c[i].amplitude <= FLT_MAX)) return false;
  return true;
}

// Whether the pixel at (x, y), outside the cores, takes a rand() draw: takes_draw of its weights'
// sum (profile_total), the exp taken only where the answer is not certain without it (with
// `shortcut`, draws_shortcut's: a child within reach, dist < 70, of amplitude kSureAmplitude or
// more makes it certain; no child within reach leaves every weight 0).
template <class Exp>
CELERIS_HD inline bool pixel_takes_draw(const DeblendChild* c, int n, int x, int y, bool shortcut,
                                        Exp exp) {
  if (shortcut) {
    bool near = false;
    for (int i = 0; i < n; ++i)
      if (deblend_profile_dist(c[i], x, y) < 70.0) {
        if (c[i].amplitude >= kSureAmplitude) return true;
        near = true;
      }
    if (!near) return false;
  }
  int nearest = 0;
  return takes_draw(profile_total(c, n, x, y, exp, nearest));
}

}  // namespace celeris::extract
