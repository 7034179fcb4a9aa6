// Detection (SExtractor scan.c): 8-connected components of pixels whose filtered value is
// strictly above the detection threshold, kept when they hold at least DETECT_MINAREA pixels.
#pragma once

#include <vector>

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/objects.hpp"
#include "extract/sextractor/pixel_stack.hpp"

namespace celeris::extract {

// `value` is the background-subtracted image (NaN = masked), `cvalue` the filtered one (or the
// same view when not filtering). Objects come out in SExtractor's completion order (by last row,
// then by the column where their last run ends). Objects touching the image border carry
// kFlagTruncated. The pixels are held as in SExtractor's pixel stack of params.pixstack entries
// (MEMORY_PIXSTACK; sextractor/pixel_stack.hpp): where it overflows, the largest open object
// keeps only its first pixel and carries kFlagExtractOverflow; `overflows`, when given,
// receives where that happened.
// The detection and analysis thresholds in ADU above the background (THRESH_TYPE RELATIVE:
// times the global RMS). Throws celeris::Error when one is not positive.
struct Thresholds {
  float detect = 0, analysis = 0;
};
Thresholds detection_thresholds(const Config& config, double global_rms);

struct DetectParams {
  float threshold = 0;                  // ADU above the background, on the filtered image
  int minarea = 5;                      // DETECT_MINAREA
  int64_t pixstack = kDefaultPixStack;  // MEMORY_PIXSTACK (0: unbounded)
};
ObjectList detect(ImageView<const float> value, ImageView<const float> cvalue,
                  const DetectParams& params, std::vector<PixelStackOverflow>* overflows = nullptr);

// With weights (weights.hpp): each pixel against its own threshold `thresh` (SExtractor's
// variable threshold; params.threshold everywhere when empty), and each object pixel carrying
// its threshold and its variance `var` (0 when empty).
ObjectList detect_weighted(ImageView<const float> value, ImageView<const float> cvalue,
                           ImageView<const float> thresh, ImageView<const float> var,
                           const DetectParams& params,
                           std::vector<PixelStackOverflow>* overflows = nullptr);

// Detections from 8-connected components found by another labeller (the GPU's): component c's
// pixels are pixels[offset[c] .. offset[c + 1]) as raster indices (y * width + x), components in
// SExtractor's completion order, each at least DETECT_MINAREA pixels. Each component's chain
// order (lutz.hpp) is recovered by a scan of its bounding box holding only its own pixels, which
// links the runs exactly as the scan of the whole image did. Components in parallel.
ObjectList detections_from_components(ImageView<const float> value, ImageView<const float> cvalue,
                                      const int32_t* pixels, const std::vector<int64_t>& offset,
                                      int threads);

// An upper bound of the entries SExtractor's pixel stack holds at any time of the scan
// (sextractor/pixel_stack.hpp), from the components another labeller kept (`detections`, at
// least DETECT_MINAREA pixels each): all pixels of `cvalue` above `threshold` (masked ones
// too) up to the end of each row, less those of kept components freed before the row begins
// (on the row after their last). Smaller components are never taken off, hence a bound: below
// MEMORY_PIXSTACK - 1 the stack cannot overflow. One pass over the detection image.
int64_t pixel_stack_bound(ImageView<const float> value, ImageView<const float> cvalue,
                          float threshold, const ObjectList& detections, int threads);

// Labels 8-connected components of `mask` (non-zero = foreground) in one image; returns labels
// (0 = background, 1..n) in raster order of first pixel. Shared by detection and the tests.
std::vector<int32_t> label_components(const std::vector<uint8_t>& mask, int width, int height,
                                      int32_t& count);

}  // namespace celeris::extract
