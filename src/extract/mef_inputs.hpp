// The files that go with a multi-extension image, as SExtractor 2.25 pairs them (makeit.c): for
// the image HDU numbered n (its place in the file, the primary counted), the measurement image
// of dual-image mode, every weight map and every flag map are read at their own HDU n. A
// companion that is one plain image is not reused: SExtractor weighs the first extension with it
// (its list of HDUs wraps around) and stops at the second ("Not enough valid FITS image
// extensions"); celeris refuses it, and any companion lacking an image at one of the HDUs, before
// any work.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "celeris/extract_settings.hpp"

namespace celeris::extract {

// The image HDUs (1-based) of `path` ("a.fits", or "det.fits,meas.fits": the detection image's)
// when SExtractor extracts it extension by extension: named without an HDU and holding more than
// one image. Empty otherwise (one image, an HDU named, or a file that cannot be opened, whose
// reading then says why).
std::vector<int> multi_extension_hdus(const std::string& path);

// "det.fits,meas.fits" split at its first comma outside CFITSIO's brackets ("img.fits[1:9,1:9]"
// is one file); `second` is empty for one image.
std::pair<std::string, std::string> split_dual_image_path(const std::string& path);

// The companions of the image `path` ("a.fits" or "det.fits,meas.fits") whose image HDUs are
// `hdus` (1-based), each checked: named without an HDU (SExtractor would drop the selector and
// read HDU n anyway) and holding an image at every one of `hdus`. `n_flag_maps` flag maps are
// read (RunPlan::n_flag_maps). Throws celeris::Error naming the file and the first HDU missing,
// or the output (catalog, check image) named as a companion.
void check_extension_companions(const std::string& path, const std::vector<int>& hdus,
                                const Settings& settings, size_t n_flag_maps);

// The image of HDU `hdu` (1-based): "a.fits[hdu-1]", or "det.fits[hdu-1],meas.fits[hdu-1]".
std::string extension_image_path(const std::string& path, int hdu);

// `settings` with every weight map and flag map named at HDU `hdu` (CFITSIO's "w.fits[hdu-1]"),
// and DGEO_IMAGE at the HDU SExtractor reads for it (at `hdu` unless the map has one HDU).
Settings extension_settings(const Settings& settings, int hdu);

}  // namespace celeris::extract
