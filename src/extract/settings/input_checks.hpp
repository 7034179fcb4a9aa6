// Inputs SExtractor would act on and celeris cannot yet, refused before any work is done so
// that no catalog silently differs from SExtractor's (issue 19, item 7).
#pragma once

#include <string>
#include <vector>

#include "celeris/extract_settings.hpp"

namespace celeris::extract {

// Throws celeris::Error when `image_path`, named without an HDU, holds more than one image HDU
// (extract_file and a stream extract those whole when they are the image or the detection
// image, as SExtractor does; a measurement image beside a one-image detection cannot), or when
// the external header SExtractor would read beside it (HEADER_SUFFIX) exists.
void refuse_unsupported_inputs(const std::string& image_path, const Settings& settings);

// The 1-based numbers of the HDUs of `path` holding an image (NAXIS > 0); empty when it cannot
// be opened (the reading reports why).
std::vector<int> image_hdus(const std::string& path);

// The external header file SExtractor reads for `image_path`: the file name (CFITSIO brackets
// removed) with its extension replaced by `suffix` (img.fits -> img.head).
std::string external_header_path(const std::string& image_path, const std::string& suffix);

}  // namespace celeris::extract
