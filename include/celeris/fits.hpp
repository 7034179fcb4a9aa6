// FITS input and output through CFITSIO.
//
// Images: any BITPIX (8, 16, 32, 64, -32, -64), BZERO/BSCALE applied, BLANK, NaN, infinite and
// larger than kMaxPixelValue pixels returned as NaN (the "masked" marker used throughout celeris).
// A path may carry CFITSIO's extended syntax: "img.fits[1]", "img.fits[SCI]", "img.fits.gz",
// "img.fits.fz".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "celeris/image.hpp"

namespace celeris {

// The header of one HDU as 80-character cards, with typed look-ups.
class FitsHeader {
 public:
  FitsHeader() = default;
  explicit FitsHeader(std::vector<std::string> cards) : cards_(std::move(cards)) {}

  const std::vector<std::string>& cards() const { return cards_; }
  // All cards concatenated without separators, as wcslib's wcspih expects.
  std::string concatenated() const;
  std::optional<std::string> value_string(const std::string& key) const;
  std::optional<double> value_double(const std::string& key) const;

 private:
  std::vector<std::string> cards_;
};

// The value of one header card: a quoted string unquoted ('' read as '), otherwise the text up to
// the comment; trailing blanks removed. fits_card_number reads it as a number (Fortran D
// exponents too), nothing when it is not one.
std::string fits_card_value(const std::string& card);
std::optional<double> fits_card_number(const std::string& card);

struct FitsImage {
  Image<float> pixels;  // NaN where the file had BLANK/NaN
  FitsHeader header;
  int bitpix = 0;
  std::string path;  // as given by the user
  int hdu = 0;       // 1-based HDU number actually read
};

// Pixels whose magnitude exceeds this (and infinities) are read as NaN, i.e. masked.
inline constexpr float kMaxPixelValue = 1e30f;

// Reads a 2-D image. Axes beyond the second must have length 1. Throws celeris::Error on a
// missing file, a non-FITS file, a table HDU, an empty or wrong-dimensional image.
FitsImage read_fits_image(const std::string& path);

// True when float32 cannot hold every value of a file of this BITPIX: -64, 64 and 32. The
// consumers that compute in double (maxsub) read such images again with read_fits_pixels_f64.
bool fits_bitpix_wider_than_float(int bitpix);
// The pixels of `image` (returned by read_fits_image: the same file and HDU are opened again)
// as float64: BITPIX -64 values as stored, integer types with BZERO/BSCALE applied in double;
// BLANK, NaN and infinite pixels NaN, as in FitsImage::pixels. (Extraction keeps the float32
// pixels: SExtractor's catalogs depend on its float rounding.)
Image<double> read_fits_pixels_f64(const FitsImage& image);

// Writes a 2-D image (primary HDU) from floats with optional extra header cards, stored with the
// given BITPIX (-32 float; 32 for integer maps such as a segmentation); atomic (temp + rename).
void write_fits_image(const std::string& path, ImageView<const float> image,
                      const std::vector<std::string>& extra_cards = {}, int bitpix = -32);

// 80-character header cards: the key, the value right-aligned to column 30 (strings quoted,
// quotes doubled, at least 8 characters, left-aligned), the comment cut at column 80.
namespace fits_cards {
std::string fixed(const std::string& key, const std::string& value, const std::string& comment);
std::string number(const std::string& key, double value, const std::string& comment);
std::string integer(const std::string& key, long long value, const std::string& comment);
std::string flag(const std::string& key, bool value, const std::string& comment);
std::string text(const std::string& key, const std::string& value, const std::string& comment);
}  // namespace fits_cards

// A header's WCS cards (CTYPE, CRVAL, CRPIX, CD, PC, PV, EQUINOX, ...), for images derived pixel
// for pixel from it, so that they overlay the original.
std::vector<std::string> wcs_cards(const FitsHeader& header);

}  // namespace celeris
