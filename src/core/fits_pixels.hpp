// An image HDU's pixels as float: the scaling rule both readers share, and the direct reader of
// uncompressed files on disk.
#pragma once

#include <fitsio.h>

#include <limits>
#include <string>
#include <type_traits>

#include "celeris/image.hpp"

namespace celeris {

// One stored value scaled in single precision as SExtractor's reader does (value * (float)BSCALE
// + (float)BZERO, the raw value first converted to float, or kept in double for BITPIX -64);
// null (BLANK, or a non-finite float) gives NaN. CFITSIO scales in double and rounds once,
// which differs by one ulp on some pixels, enough to move a deblending threshold.
template <typename Raw>
inline float scaled_pixel(Raw raw, float bs, float bz) {
  if constexpr (std::is_same_v<Raw, double>)
    return static_cast<float>(raw * bs + bz);
  else
    return static_cast<float>(raw) * bs + bz;
}

// Reads the current HDU's pixels straight from the file, in parallel slices converted from
// big-endian on every thread, when CFITSIO holds it as an uncompressed file on disk (not gzip,
// not tile-compressed, not an in-memory copy made by a filter or section). Returns false,
// having read nothing, where it does not apply; the pixels are then CFITSIO's to read. The
// values are those of the CFITSIO path to the bit: the same scaled_pixel, BLANK (integer
// BITPIX) and NaN / infinity (float BITPIX, as CFITSIO's null test) as NaN.
bool read_pixels_direct(fitsfile* f, int bitpix, double bscale, double bzero, Image<float>& out,
                        const std::string& path);

}  // namespace celeris
