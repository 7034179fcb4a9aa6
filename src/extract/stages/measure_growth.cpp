// SExtractor 2.25's growth curve (growth.c makeavergrowth), in its arithmetic (double
// throughout, the sub-pixel additions in its order), so that FLUX_GROWTH agrees to the last
// printed digit.
#include "extract/stages/measure_growth.hpp"

#include <algorithm>
#include <cmath>

#include "extract/stages/measure_aperture_pixels.hpp"

namespace celeris::extract {

namespace {

constexpr double kGrowthNSig = 6.0;  // GROWTH_NSIG (3 * MARGIN_SCALE)
constexpr int kOversamp = 5;         // GROWTH_OVERSAMP

}  // namespace

GrowthCurve growth_curve(const PhotometryField& f, const ApertureShape& s, double min_rlim,
                         uint16_t& flags) {
  const int w = static_cast<int>(f.value.width), h = static_cast<int>(f.value.height);
  const AperturePixels rd(f, s, s.dmx, s.dmy);  // growth.c: the double centre
  const double mx = s.dmx, my = s.dmy;
  GrowthCurve g;
  g.rlim = std::max(kGrowthNSig * s.a, min_rlim);
  const double raper = g.rlim + 1.5, rextlim2 = raper * raper;  // margin for interpolation
  const double stepdens = kGrowthSteps / g.rlim, step = 1 / stepdens;
  // Sub-sampled within these distances of a bin boundary (0.75 > sqrt(2) / 2).
  const double prevbinmargin = 0.75, nextbinmargin = step - 0.75;
  const double scale = 1.0 / kOversamp, scale2 = scale * scale, offset = 0.5 * (scale - 1.0);
  int xmin = static_cast<int>(mx - raper + 0.499999),
      xmax = static_cast<int>(mx + raper + 1.499999);
  int ymin = static_cast<int>(my - raper + 0.499999),
      ymax = static_cast<int>(my + raper + 1.499999);
  clip_aperture_box(xmin, xmax, ymin, ymax, w, h, s, flags);
  double* bins = g.cumul;
  for (int y = ymin; y < ymax; ++y)
    for (int x = xmin; x < xmax; ++x) {
      double dx = x - mx, dy = y - my;
      const double r2 = dx * dx + dy * dy;
      if (!(r2 < rextlim2)) continue;
      double var = 0.0;  // unused: SExtractor's growth curve has no errors
      const double pix = rd.read(x, y, var);
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
            if (j < kGrowthSteps) bins[j] += scale2 * pix;
          }
        }
      } else {
        const int j = static_cast<int>(r * stepdens);
        if (j < kGrowthSteps) bins[j] += pix;
      }
    }
  for (int j = 1; j < kGrowthSteps; ++j) bins[j] += bins[j - 1];
  return g;
}

}  // namespace celeris::extract
