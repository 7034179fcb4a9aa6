// The filter stage (SExtractor filter.c): the detection image is the background-subtracted
// image correlated with the FILTER_NAME kernel, pixels outside the image counted as zero.
#pragma once

#include <vector>

#include "celeris/extract.hpp"
#include "celeris/image.hpp"

namespace celeris::extract {

struct FilterParams {
  std::vector<float> kernel;  // row-major, width x height
  int width = 0, height = 0;
  int threads = 1;
  // The kernel of `config`; FILTER Y without a kernel is SExtractor's default.conv (3x3
  // pyramid, FWHM 2 pixels).
  static FilterParams of(const Config& config, int threads);
};

// out(x, y) = sum_{j,i} k(i, j) * in(x + i - kw/2, y + j - kh/2), summed in float in kernel
// row-major order (as SExtractor does, so results agree to the last bit). NaN (masked) input
// pixels count as zero. Rows are processed in parallel.
void convolve(ImageView<const float> in, const FilterParams& params, ImageView<float> out);
void convolve(ImageView<const float> in, const Config& config, ImageView<float> out);

// The detection image: `value` convolved, and -inf wherever the kernel's support (its non-zero
// taps) touches a masked pixel: SExtractor's filter does not skip masked pixels, so such a pixel
// is never detected.
Image<float> detection_image(ImageView<const float> value, const FilterParams& params);

}  // namespace celeris::extract
