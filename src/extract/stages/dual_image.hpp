// Dual-image mode (SExtractor `sex detect.fits,measure.fits`): detection, deblending, shapes and
// CLEAN on the first image; fluxes, peaks, isophotal areas, the background and photometry on the
// second, with its own background map and analysis threshold (ANALYSIS_THRESH x its RMS). Kron's
// radius pass and the position errors read the detection image, as SExtractor's
// computeautoflux and examineiso do.
#pragma once

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/gpu/front_end.hpp"

namespace celeris::extract {

// Throws celeris::Error naming what dual-image mode does not support yet (the GPU front end,
// BACKPHOTO_TYPE LOCAL, some check images) or a size mismatch; nothing without a measurement
// image. With weights the measurement image is made by weighted_front_end.
void check_dual_image(ImageView<const float> detect, const Config& config,
                      const MeasureRequest& request);

struct MeasureImage {
  bool dual = false;
  BackgroundMap background;  // of the measurement image
  Image<float> value;        // the measurement image less its background
  float analysis_thresh = 0;
};

// The measurement image's background and background-subtracted pixels (not dual when `measure`
// is empty).
MeasureImage measure_image(ImageView<const float> measure, const Config& config, int threads);

}  // namespace celeris::extract
