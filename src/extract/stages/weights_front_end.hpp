// Stages 1-3 (background, filter, detection) on the CPU with a weight map (weights.hpp).
#pragma once

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/stages/dual_image.hpp"
#include "extract/stages/filter.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract {

// The maps are request.weight_map (measurement, or both) and request.detect_weight_map
// (detection, with Config::separate_weights). The returned detections carry each pixel's
// variance and detection threshold; `maps` receives the variance maps the measurements read.
// In dual-image mode (request.measure_image), `image` is the detection image and `measure`
// receives the measurement image's background and pixels.
FrontEnd weighted_front_end(ImageView<const float> image, const MeasureRequest& request,
                            const Config& config, const FilterParams& filter, int threads,
                            WeightMaps& maps, MeasureImage& measure);

}  // namespace celeris::extract
