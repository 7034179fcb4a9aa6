// A quick-look PNG of an image with regions drawn over it (celeris maxsub --png): the image in
// grey, scaled linearly between its 0.5th and 99.5th percentiles, north (FITS row 1) at the
// bottom as DS9 shows it, and each region's outline in its own colour.
#pragma once

#include <string>
#include <vector>

#include "celeris/image.hpp"

namespace celeris::cli {

// A region as an interval of rows per column: columns left.. with rows top[i]..bottom[i]
// (0-based, inclusive).
struct OverlayRegion {
  int left = 0;
  std::vector<int> top, bottom;
};

// Whether this build can write PNG files (stb_image_write, Debian's libstb-dev, was found).
bool png_supported();

// Writes `path` atomically; NaN pixels are drawn black. Throws celeris::Error when PNG is not
// supported or the file cannot be written.
void write_png_overlay(const std::string& path, ImageView<const float> image,
                       const std::vector<OverlayRegion>& regions);

}  // namespace celeris::cli
