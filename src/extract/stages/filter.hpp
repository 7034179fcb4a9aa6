// Detection filter (SExtractor filter.c): correlation of the background-subtracted image with
// the FILTER_NAME kernel, pixels outside the image counted as zero.
#pragma once

#include "celeris/extract.hpp"
#include "celeris/image.hpp"

namespace celeris::extract {

// out(x, y) = sum_{j,i} k(i, j) * in(x + i - kw/2, y + j - kh/2), summed in float in kernel
// row-major order (as SExtractor does, so results agree to the last bit). NaN (masked) input
// pixels count as zero. Rows are processed in parallel.
void convolve(ImageView<const float> in, const Config& config, ImageView<float> out);

}  // namespace celeris::extract
