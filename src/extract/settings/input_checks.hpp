// Inputs SExtractor would act on and celeris cannot yet, refused before any work is done so
// that no catalog silently differs from SExtractor's (issue 19, item 7).
#pragma once

#include <string>

#include "celeris/extract_settings.hpp"

namespace celeris::extract {

// Throws celeris::Error when `image_path`, named without an HDU, holds more than one image HDU
// (SExtractor extracts every extension of a multi-extension file into one catalog; celeris only
// one), or when the external header SExtractor would read beside it (HEADER_SUFFIX) exists.
void refuse_unsupported_inputs(const std::string& image_path, const Settings& settings);

// The external header file SExtractor reads for `image_path`: the file name (CFITSIO brackets
// removed) with its extension replaced by `suffix` (img.fits -> img.head).
std::string external_header_path(const std::string& image_path, const std::string& suffix);

}  // namespace celeris::extract
