// The whole growth curve (SExtractor 2.25 growth.c makeavergrowth) and the columns read from it:
// FLUX_GROWTH(n), MAG_GROWTH(n), FLUX_GROWTHSTEP, MAG_GROWTHSTEP.
//
// The curve has 64 bins out to rlim = max(6 A_IMAGE, PHOT_AUTOAPERS[0]) around the double
// barycentre; pixels near a bin boundary are split into 5x5 sub-pixels; bad pixels are
// corrected as in the apertures; no local background is subtracted. FLUX_RADIUS reads the same
// curve (photometry.cpp fills only the bins its radii need).
#pragma once

#include <cstdint>

#include "extract/stages/photometry.hpp"

namespace celeris::extract {

constexpr int kGrowthSteps = 64;  // GROWTH_NSTEP

struct GrowthCurve {
  double rlim = 0;                  // the curve's outer radius (pixels)
  double cumul[kGrowthSteps] = {};  // flux within (j + 1) rlim / 64 of the centre
};

// The growth curve of object `s` (its double centre, line-buffer rows, blanking time).
// `flags` receives FLAGS bit 16 when its box is clipped. `min_rlim` is PHOT_AUTOAPERS[0].
GrowthCurve growth_curve(const PhotometryField& f, const ApertureShape& s, double min_rlim,
                         uint16_t& flags);

// Element k (0-based) of a curve resampled to n points as SExtractor remaps it for FLUX_GROWTH
// and MAG_GROWTH: at radius (k + 1) rlim / n, linearly interpolated between bins. For the last
// element SExtractor reads one double past its 64 bins (growth.c); what lies there is 0 in
// source-extractor 2.25's runs, and taken as 0 here. Inline: the catalog writer uses it without
// the measurement (the fuzz targets link the one without the other).
inline double growth_at(const double* cumul, int k, int n) {
  const double step2 = static_cast<double>(kGrowthSteps) / n;
  const double dpos = step2 * (k + 1) - 0.99999;
  const int ipos = static_cast<int>(dpos);
  if (dpos < 0.0) return cumul[0] * (0.99999 + dpos);
  const double next = ipos + 1 < kGrowthSteps ? cumul[ipos + 1] : 0.0;
  return cumul[ipos] + (next - cumul[ipos]) * (dpos - ipos);
}

}  // namespace celeris::extract
