// Measurement of final objects (SExtractor analyse.c:examineiso and endobject): isophotal
// quantities, position errors, FWHM, BACKGROUND, photometry and FLAGS, into an Objects table.
#pragma once

#include <vector>

#include "background.hpp"
#include "celeris/extract.hpp"
#include "moments.hpp"
#include "objects.hpp"
#include "photometry.hpp"

namespace celeris::extract {

struct MeasureContext {
  const Config& config;
  const BackgroundMap& background;
  PhotometryField field;
  float detect_thresh = 0;    // ADU above background
  float analysis_thresh = 0;  // ADU above background
  double satur_level = 50000.0;
  bool compute_auto = true;  // FLUX_AUTO family, KRON_RADIUS or FLUX_RADIUS requested
  int n_apertures = 0;
  int n_fluxfrac = 0;
};

// Measures every object (in parallel); object k's pixels own id k + 1 in field.owner.
Objects measure_objects(const std::vector<Detection>& objects, const std::vector<Shape>& shapes,
                        const MeasureContext& ctx);

}  // namespace celeris::extract
