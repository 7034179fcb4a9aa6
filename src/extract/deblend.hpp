// Multi-threshold deblending (SExtractor refine.c): each detection is re-thresholded at
// DEBLEND_NTHRESH exponentially spaced levels between the detection threshold and its peak;
// branches of the resulting tree holding more than DEBLEND_MINCONT of the total flux are
// separate objects; pixels below the branching levels go to the most probable child.
#pragma once

#include <vector>

#include "celeris/extract.hpp"
#include "objects.hpp"

namespace celeris::extract {

struct DeblendParams {
  int nthresh = 32;
  double mincont = 0.005;
  int minarea = 5;
  float detect_thresh = 0;
  float analysis_thresh = 0;
  int width = 0, height = 0;
};

// Returns the children of `object` (the object itself when it does not split). Children carry
// kFlagBlended and keep the barycentre found during deblending.
std::vector<Detection> deblend(const Detection& object, const DeblendParams& params);

}  // namespace celeris::extract
