// An image HDU's pixels as float: the scaling rule both readers share, and the direct reader of
// uncompressed files on disk.
#pragma once

#include <fitsio.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>

#include "celeris/fits.hpp"
#include "celeris/image.hpp"
#include "core/stored_pixels.hpp"
#include "core/stored_value.hpp"

namespace celeris {

// scaled_pixel (one stored value scaled as SExtractor does): core/stored_value.hpp.

// A pixel as read_fits_image returns it: magnitudes beyond kMaxPixelValue (and NaN, infinity)
// masked as NaN.
inline float masked_pixel(float v) {
  return std::fabs(v) <= kMaxPixelValue ? v : std::numeric_limits<float>::quiet_NaN();
}

// Reads the current HDU's pixels straight from the file, in parallel slices converted from
// big-endian on every thread, when CFITSIO holds it as an uncompressed file on disk (not gzip,
// not tile-compressed, not an in-memory copy made by a filter or section). Returns false,
// having read nothing, where it does not apply; the pixels are then CFITSIO's to read. The
// values are those of the CFITSIO path to the bit: the same scaled_pixel, BLANK (integer
// BITPIX) and NaN / infinity (float BITPIX, as CFITSIO's null test) as NaN, then masked_pixel.
// Types of 4 bytes (BITPIX 32, -32) are read into `out` itself and converted where they lie.
// With `stored` given, types of 4 bytes and BITPIX 16 are left in `out` as the file stores them
// (16-bit values packed in its first half; the slices' conversion skipped) and *stored says how
// to finish them (stored_pixels.hpp); other types are converted and *stored says Converted.
bool read_pixels_direct(fitsfile* f, int bitpix, double bscale, double bzero, ImageView<float> out,
                        const std::string& path, StoredPixels* stored = nullptr);
inline bool read_pixels_direct(fitsfile* f, int bitpix, double bscale, double bzero,
                               Image<float>& out, const std::string& path) {
  return read_pixels_direct(f, bitpix, bscale, bzero, out.view(), path);
}

// Finishes pixels left stored on the host, on all threads: afterwards `pixels` holds what the
// read would have given, and `stored` says Converted.
void convert_stored_in_place(ImageView<float> pixels, StoredPixels& stored);

// read_fits_image with the pixels written where the caller says (a stream of frames reads into
// its page-locked buffers, uploaded to the GPU without a copy). `memory(width, height)` is
// called once, after the header is read and checked and before any pixel is read: it returns
// width * height floats, or nullptr to have them in image.pixels as read_fits_image does.
// `pixels` views them either way; the values and the errors are read_fits_image's.
// `leave_stored`: BITPIX -32, 32 and 16 pixels read directly are left as stored (`stored` says
// how to finish them: convert_stored_in_place on the host, or on the GPU); the other reads
// convert as before and `stored` says Converted.
struct FitsImageRead {
  FitsImage image;  // image.pixels empty when `memory` gave the pixels' memory
  ImageView<float> pixels;
  StoredPixels stored;
};
using PixelMemory = std::function<float*(int64_t width, int64_t height)>;
FitsImageRead read_fits_image_into(const std::string& path, const PixelMemory& memory,
                                   bool leave_stored = false);

}  // namespace celeris
