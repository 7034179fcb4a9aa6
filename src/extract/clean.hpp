// Cleaning of spurious detections (SExtractor clean.c): a faint object lying in the wings of a
// brighter one, where the bright object's extrapolated profile alone would exceed the detection
// threshold, is merged into it.
#pragma once

#include <vector>

#include "moments.hpp"
#include "objects.hpp"

namespace celeris::extract {

struct CleanParams {
  double clean_param = 1.0;
  float detect_thresh = 0;
  int minarea = 5;
};

// Merges spurious objects into their hosts; returns the surviving objects (and their shapes) in
// order. `shapes[i]` is the shape of `objects[i]`.
void clean_objects(std::vector<Detection>& objects, std::vector<Shape>& shapes,
                   const CleanParams& params);

}  // namespace celeris::extract
