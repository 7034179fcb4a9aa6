#include "extract/stages/dual_image.hpp"

#include <string>

#include "celeris/error.hpp"
#include "extract/stages/detect.hpp"

namespace celeris::extract {

void check_dual_image(ImageView<const float> detect, const Config& config,
                      const MeasureRequest& request) {
  const ImageView<const float> m = request.measure_image;
  if (!m.data) return;
  if (m.width != detect.width || m.height != detect.height)
    throw Error("dual-image mode: the detection image is " + std::to_string(detect.width) + "x" +
                std::to_string(detect.height) + ", the measurement image " +
                std::to_string(m.width) + "x" + std::to_string(m.height) +
                ": they must have the same size");
  if (config.backphoto_type == BackPhotoType::Local)
    throw Error("dual-image mode with BACKPHOTO_TYPE LOCAL is not supported yet");
  for (CheckImage c : request.check_images)
    if (c == CheckImage::BackgroundRms || c == CheckImage::MiniBackground ||
        c == CheckImage::MiniBackRms)
      throw Error(
          "dual-image mode: CHECKIMAGE_TYPE BACKGROUND_RMS, MINIBACKGROUND and MINIBACK_RMS are "
          "not supported yet");
}

MeasureImage measure_image(ImageView<const float> measure, const Config& config, int threads) {
  MeasureImage out;
  if (!measure.data) return out;
  out.dual = true;
  out.background = background_map(measure, config);
  out.value = subtract_background(measure, out.background, nullptr, threads);
  out.analysis_thresh = detection_thresholds(config, out.background.global_rms).analysis;
  return out;
}

}  // namespace celeris::extract
