// The CPU front end of `celeris extract` (background, its subtraction, the filter, detection) of
// one frame, for the benchmarks of the stages after it (bench_deblend, bench_clean).
#pragma once

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/objects.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/detect.hpp"
#include "extract/stages/filter.hpp"

namespace celeris::bench {

struct CpuFrontEnd {
  extract::BackgroundMap background;
  Image<float> value, filtered;
  extract::Thresholds thresholds;
  extract::ObjectList detections;
};

inline CpuFrontEnd cpu_front_end(ImageView<const float> image, const extract::Config& config,
                                 int threads) {
  using namespace celeris::extract;
  CpuFrontEnd f;
  f.background = background_map(image, config);
  f.value = subtract_background(image, f.background, nullptr, threads);
  f.thresholds = detection_thresholds(config, f.background.global_rms);
  f.filtered = detection_image(f.value.view(), FilterParams::of(config, threads));
  f.detections =
      detect(f.value.view(), f.filtered.view(), {f.thresholds.detect, config.detect_minarea});
  return f;
}

}  // namespace celeris::bench
