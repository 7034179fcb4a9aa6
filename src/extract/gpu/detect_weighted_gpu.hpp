// Detection with weight maps on the GPU: the GPU front end's labelling, components, chain order
// and gather (front_end.cpp) on a weighted frame's images, each pixel tested against its own
// threshold: images the GPU's weighted front end left on the device (weighted_front_end_gpu.hpp),
// or those the host's made (weights_front_end.cpp: dual-image mode, separate maps, WEIGHT_TYPE
// BACKGROUND). The result is detect_weighted()'s (stages/detect.hpp) to the bit, its pixel stack
// aside: where SExtractor's stack could overflow (pixel_stack_bound at MEMORY_PIXSTACK - 1 or
// more) the caller detects on the host instead, as the GPU front end does.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/objects.hpp"

namespace celeris::extract::gpu {

struct WeightedDetections {
  ObjectList detections;            // with pixel weights: each pixel's variance and threshold
  std::vector<int64_t> done_lines;  // each detection's (scan_order.hpp done_lines)
  // The bound of SExtractor's pixel stack (-1: not taken, the frame smaller than the stack).
  int64_t pixel_stack_bound = -1;
  std::vector<std::pair<std::string, double>> stage_seconds;
};

// `value`, `cvalue` (the detection image; `value` itself with FILTER N), `thresh` (each
// pixel's threshold; null: `threshold` for all) and `var` (each pixel's variance; null: 0), host
// images of one size. config.detect_minarea and config.memory_pixstack as detect_weighted's.
// Throws celeris::Error without a CUDA device (or in a build without CUDA), or for frames of
// 2^31 pixels or more.
WeightedDetections detect_weighted_gpu(ImageView<const float> value, ImageView<const float> cvalue,
                                       ImageView<const float> thresh, ImageView<const float> var,
                                       float threshold, const Config& config, int host_threads);

// The same on images already on the device (device pointers; `cvalue` null: `value`), whose
// work is done: the caller's stream is synchronized (the GPU's weighted front end).
WeightedDetections detect_weighted_on_device(const float* value, const float* cvalue,
                                             const float* thresh, const float* var, int64_t width,
                                             int64_t height, float threshold, const Config& config,
                                             int host_threads);

}  // namespace celeris::extract::gpu
