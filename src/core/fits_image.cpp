// Reading and writing FITS images through CFITSIO.
#include <fitsio.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "celeris/table.hpp"
#include "core/fits_pixels.hpp"
#include "fits_util.hpp"

namespace celeris {

std::string FitsHeader::concatenated() const {
  std::string all;
  all.reserve(cards_.size() * 80);
  for (const auto& c : cards_) {
    std::string card = c.substr(0, 80);
    card.resize(80, ' ');
    all += card;
  }
  return all;
}

std::string fits_card_value(const std::string& card) {
  std::string v = card.size() > 10 ? card.substr(10) : std::string{};
  // Quoted string: up to the closing quote ('' is an escaped quote).
  size_t p = v.find_first_not_of(' ');
  if (p == std::string::npos) return std::string{};
  if (v[p] == '\'') {
    std::string out;
    for (size_t i = p + 1; i < v.size(); ++i) {
      if (v[i] == '\'') {
        if (i + 1 < v.size() && v[i + 1] == '\'') {
          out += '\'';
          ++i;
        } else {
          break;
        }
      } else {
        out += v[i];
      }
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out;
  }
  size_t slash = v.find('/');
  v = v.substr(p, slash == std::string::npos ? std::string::npos : slash - p);
  v.erase(v.find_last_not_of(' ') + 1);
  return v;
}

std::optional<double> fits_card_number(const std::string& card) {
  std::string t = fits_card_value(card);
  if (t.empty()) return std::nullopt;
  for (auto& ch : t)
    if (ch == 'D' || ch == 'd') ch = 'E';  // Fortran exponent
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str()) return std::nullopt;
  return v;
}

// The first card "KEY     = ..." of `key` (an exact key), or nullptr.
static const std::string* find_value_card(const std::vector<std::string>& cards,
                                          const std::string& key) {
  for (const auto& card : cards) {
    if (card.size() < 10 || card.compare(8, 2, "= ") != 0) continue;
    std::string k = card.substr(0, 8);
    k.erase(k.find_last_not_of(' ') + 1);
    if (k == key) return &card;
  }
  return nullptr;
}

std::optional<std::string> FitsHeader::value_string(const std::string& key) const {
  const std::string* card = find_value_card(cards_, key);
  if (!card) return std::nullopt;
  return fits_card_value(*card);
}

std::optional<double> FitsHeader::value_double(const std::string& key) const {
  const std::string* card = find_value_card(cards_, key);
  if (!card) return std::nullopt;
  return fits_card_number(*card);
}

namespace {

std::vector<std::string> read_header_cards(fitsfile* f) {
  int status = 0, nkeys = 0;
  fits_get_hdrspace(f, &nkeys, nullptr, &status);
  std::vector<std::string> cards;
  cards.reserve(nkeys);
  char card[FLEN_CARD];
  for (int i = 1; i <= nkeys; ++i) {
    if (fits_read_record(f, i, card, &status)) break;
    cards.emplace_back(card);
  }
  return cards;
}

// Moves to the first HDU holding a non-empty image when the user named no HDU and the primary
// is empty (the usual layout of MEF and tile-compressed files).
void move_to_first_image(fitsfile* f, const std::string& path) {
  int status = 0, naxis = 0, hdutype = 0;
  fits_get_img_dim(f, &naxis, &status);
  fits_get_hdu_type(f, &hdutype, &status);
  if (hdutype == IMAGE_HDU && naxis > 0) return;
  int nhdu = 0;
  fits_get_num_hdus(f, &nhdu, &status);
  for (int h = 2; h <= nhdu; ++h) {
    status = 0;
    fits_movabs_hdu(f, h, &hdutype, &status);
    if (status) break;
    fits_get_img_dim(f, &naxis, &status);
    if (hdutype == IMAGE_HDU && naxis > 0 && !status) return;
  }
  status = 0;
  fits_movabs_hdu(f, 1, &hdutype, &status);
  (void)path;
}

bool names_hdu(const std::string& path) {
  // CFITSIO extended syntax: a '[' after the file name selects an HDU or filter.
  return path.find('[') != std::string::npos;
}

// Raw values of one FITS integer or float type through CFITSIO, scaled by scaled_pixel, masked
// by masked_pixel.
template <typename Raw>
void read_scaled(fitsfile* f, int datatype, double bscale, double bzero, ImageView<float> out,
                 const std::string& path) {
  const long width = static_cast<long>(out.width);
  const long height = static_cast<long>(out.height);
  const long rows_per_chunk = std::max(1L, (1L << 20) / width);
  std::vector<Raw> raw(static_cast<size_t>(std::min(height, rows_per_chunk) * width));
  std::vector<char> nulls(raw.size());
  const float bs = static_cast<float>(bscale), bz = static_cast<float>(bzero);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int status = 0;
  for (long y0 = 0; y0 < height; y0 += rows_per_chunk) {
    const long rows = std::min(rows_per_chunk, height - y0);
    const LONGLONG count = static_cast<LONGLONG>(rows) * width;
    int anynul = 0;
    fits_read_imgnull(f, datatype, static_cast<LONGLONG>(y0) * width + 1, count, raw.data(),
                      nulls.data(), &anynul, &status);
    check_fits(status, path + ": reading pixels");
    float* dst = out.data + static_cast<size_t>(y0) * width;
    for (LONGLONG i = 0; i < count; ++i) {
      dst[i] = masked_pixel(anynul && nulls[i] ? nan : scaled_pixel<Raw>(raw[i], bs, bz));
    }
  }
}

// Fills `out` with the HDU's pixels, BSCALE/BZERO applied, BLANK and NaN pixels as NaN, and
// masked_pixel: infinities are not measurable either, so they are masked like NaN. So are values
// beyond 1e30 (SExtractor's BIG, its own marker of unusable pixels): measuring them overflows
// single precision (a 3.4e38 pixel times a coordinate is infinite), and the non-finite centroids
// that follow index outside the background mesh.
// `stored`: read_pixels_direct's (BITPIX -32, 32 and 16 may be left as stored); Converted
// otherwise.
void read_pixels(fitsfile* f, int bitpix, ImageView<float> out, const std::string& path,
                 StoredPixels* stored = nullptr) {
  int status = 0, compressed = fits_is_compressed_image(f, &status);
  double bscale = 1.0, bzero = 0.0;
  if (fits_read_key(f, TDOUBLE, "BSCALE", &bscale, nullptr, &status) == KEY_NO_EXIST) status = 0;
  if (fits_read_key(f, TDOUBLE, "BZERO", &bzero, nullptr, &status) == KEY_NO_EXIST) status = 0;
  check_fits(status, path);
  if (!compressed) {
    if (read_pixels_direct(f, bitpix, bscale, bzero, out, path, stored)) return;
    // Scale ourselves (scaled_pixel): CFITSIO must hand over the stored values.
    fits_set_bscale(f, 1.0, 0.0, &status);
    check_fits(status, path);
    switch (bitpix) {
      case BYTE_IMG:
        return read_scaled<unsigned char>(f, TBYTE, bscale, bzero, out, path);
      case SHORT_IMG:
        return read_scaled<short>(f, TSHORT, bscale, bzero, out, path);
      case LONG_IMG:
        return read_scaled<int>(f, TINT, bscale, bzero, out, path);
      case LONGLONG_IMG:
        return read_scaled<LONGLONG>(f, TLONGLONG, bscale, bzero, out, path);
      case FLOAT_IMG:
        return read_scaled<float>(f, TFLOAT, bscale, bzero, out, path);
      case DOUBLE_IMG:
        return read_scaled<double>(f, TDOUBLE, bscale, bzero, out, path);
      default:
        break;
    }
  }
  // Tile-compressed images: CFITSIO's own decompression and scaling.
  read_scaled<float>(f, TFLOAT, 1.0, 0.0, out, path);
}

}  // namespace

FitsImageRead read_fits_image_into(const std::string& path, const PixelMemory& memory,
                                   bool leave_stored) {
  FitsFile f = FitsFile::open_read(path);
  if (!names_hdu(path)) move_to_first_image(f.get(), path);
  int status = 0, hdutype = 0, hdunum = 0;
  fits_get_hdu_type(f.get(), &hdutype, &status);
  fits_get_hdu_num(f.get(), &hdunum);
  check_fits(status, path);
  if (hdutype != IMAGE_HDU)
    throw Error(path + ": HDU " + std::to_string(hdunum) + " is a table, not an image");

  int bitpix = 0, naxis = 0;
  long naxes[9] = {0};
  fits_get_img_param(f.get(), 9, &bitpix, &naxis, naxes, &status);
  check_fits(status, path);
  if (naxis == 0) throw Error(path + ": HDU " + std::to_string(hdunum) + " holds no image data");
  if (naxis < 2)
    throw Error(path + ": HDU " + std::to_string(hdunum) + " is a " + std::to_string(naxis) +
                "-D array; a 2-D image is required");
  for (int i = 2; i < naxis; ++i)
    if (naxes[i] != 1)
      throw Error(path + ": HDU " + std::to_string(hdunum) + " is a " + std::to_string(naxis) +
                  "-D cube (NAXIS" + std::to_string(i + 1) + " = " + std::to_string(naxes[i]) +
                  "); a 2-D image is required");
  if (naxes[0] <= 0 || naxes[1] <= 0)
    throw Error(path + ": HDU " + std::to_string(hdunum) + " is an empty image (" +
                std::to_string(naxes[0]) + " x " + std::to_string(naxes[1]) + ")");

  FitsImageRead out;
  FitsImage& image = out.image;
  image.path = path;
  image.hdu = hdunum;
  image.bitpix = bitpix;
  image.header = FitsHeader(read_header_cards(f.get()));
  float* given = memory ? memory(naxes[0], naxes[1]) : nullptr;
  if (!given) {
    image.pixels = Image<float>::uninitialized(naxes[0], naxes[1]);  // read_pixels writes all
    given = image.pixels.data();
  }
  out.pixels = {given, naxes[0], naxes[1]};
  read_pixels(f.get(), bitpix, out.pixels, path, leave_stored ? &out.stored : nullptr);
  return out;
}

FitsImage read_fits_image(const std::string& path) {
  return std::move(read_fits_image_into(path, {}).image);
}

void write_fits_image(const std::string& path, ImageView<const float> image,
                      const std::vector<std::string>& extra_cards, int bitpix) {
  write_atomically(path, [&](const std::string& tmp) {
    FitsFile f = FitsFile::create(tmp);
    int status = 0;
    long naxes[2] = {static_cast<long>(image.width), static_cast<long>(image.height)};
    fits_create_img(f.get(), bitpix, 2, naxes, &status);
    for (const auto& card : extra_cards) fits_write_record(f.get(), card.c_str(), &status);
    fits_write_img(f.get(), TFLOAT, 1, image.size(), const_cast<float*>(image.data), &status);
    check_fits(status, path);
    f.close();
  });
}

}  // namespace celeris
