// Float64 pixels of a FITS image, for the consumers that compute in double (maxsub): an image read
// by read_fits_image (which validates the file and HDU and gives the float32 pixels extraction
// uses, rounded as SExtractor rounds them) is read again from the same HDU as doubles.
// Kept apart from fits_image.cpp so that the float32 reader stays exactly SExtractor's.
#include <fitsio.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "fits_util.hpp"

namespace celeris {

bool fits_bitpix_wider_than_float(int bitpix) {
  // float32 has a 24-bit significand: 8- and 16-bit integers fit, 32- and 64-bit ones and
  // float64 values do not.
  return bitpix == DOUBLE_IMG || bitpix == LONGLONG_IMG || bitpix == LONG_IMG;
}

Image<double> read_fits_pixels_f64(const FitsImage& image) {
  if (image.path.empty() || image.hdu < 1)
    throw Error("read_fits_pixels_f64: the image was not read from a file");
  const int64_t width = image.pixels.width(), height = image.pixels.height();
  FitsFile f = FitsFile::open_read(image.path);
  int status = 0, hdutype = 0;
  fits_movabs_hdu(f.get(), image.hdu, &hdutype, &status);
  check_fits(status, image.path);
  int bitpix = 0, naxis = 0;
  long naxes[9] = {0};
  fits_get_img_param(f.get(), 9, &bitpix, &naxis, naxes, &status);
  check_fits(status, image.path);
  if (hdutype != IMAGE_HDU || naxis < 2 || naxes[0] != width || naxes[1] != height)
    throw Error(image.path + ": HDU " + std::to_string(image.hdu) +
                " changed since it was read (not the same image)");
  // CFITSIO applies BSCALE and BZERO in double (the FITS standard's physical value); a stored
  // float64 comes back as it is.
  Image<double> out = Image<double>::uninitialized(width, height);
  const long rows_per_chunk = std::max(1L, (1L << 20) / long(width));
  std::vector<char> nulls(size_t(std::min<int64_t>(height, rows_per_chunk) * width));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t y0 = 0; y0 < height; y0 += rows_per_chunk) {
    const int64_t rows = std::min<int64_t>(rows_per_chunk, height - y0);
    const LONGLONG count = static_cast<LONGLONG>(rows * width);
    double* dst = out.data() + static_cast<size_t>(y0 * width);
    int anynul = 0;
    fits_read_imgnull(f.get(), TDOUBLE, static_cast<LONGLONG>(y0 * width) + 1, count, dst,
                      nulls.data(), &anynul, &status);
    check_fits(status, image.path + ": reading pixels");
    for (LONGLONG i = 0; i < count; ++i)
      if ((anynul && nulls[i]) || std::isinf(dst[i])) dst[i] = nan;  // masked, as in FitsImage
  }
  return out;
}

}  // namespace celeris
