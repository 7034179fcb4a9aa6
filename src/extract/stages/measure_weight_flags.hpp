// FLAGS_WEIGHT, NLOWWEIGHT_ISO and NLOWDWEIGHT_ISO (SExtractor scan.c and weight.c:weight_count):
// which pixels of an object have a low measurement weight, or a low detection weight nearby.
#pragma once

#include <cstddef>
#include <vector>

#include "celeris/extract.hpp"
#include "extract/objects.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract {

constexpr int kLowWeight = 1;   // SExtractor's OBJ_LOWWEIGHT
constexpr int kLowDWeight = 2;  // OBJ_LOWDWEIGHT

// For each output object objects[order[i]], over its own pixels as detected (cleaning does not
// merge these, as in SExtractor): bit 1 and NLOWWEIGHT_ISO where the measurement variance
// (interpolated) is at or beyond WEIGHT_THRESH; bit 2 and NLOWDWEIGHT_ISO where the detection
// variance `cdvar` (filtered by the detection filter with FILTER Y, as the scan reads it) is at
// or beyond `cdwthresh` at the pixel or one of its 8 neighbours inside the image. SExtractor
// computes them only with both detection and measurement weights; otherwise they are 0.
void weight_flags(const ObjectList& objects, const std::vector<size_t>& order,
                  ImageView<const float> var, float wthresh, ImageView<const float> cdvar,
                  float cdwthresh, Objects& out);

// The detection variance threshold as scan.c caps it (BIG x WTHRESH_CONVFAC, 1e26).
float capped_detection_wthresh(float dwthresh);

}  // namespace celeris::extract
