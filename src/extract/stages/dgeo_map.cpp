#include "extract/stages/dgeo_map.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "core/fits_pixels.hpp"
#include "core/fits_util.hpp"

namespace celeris::extract {

namespace {

constexpr float kMaxShift = 1e6f;  // pixels; beyond it SExtractor's int offsets are undefined

// Plane `plane` (1-based) of the cube into `out`, scaled by BSCALE/BZERO in SExtractor's float
// arithmetic (scaled_pixel, as the image itself: CFITSIO's scaling in double differs by an ulp
// on some pixels), with no BLANK substitution (SExtractor reads the map's values as they are).
void read_plane(fitsfile* f, int bitpix, float bs, float bz, int plane, Image<float>& out,
                const std::string& path) {
  const int64_t width = out.width(), height = out.height();
  // The stored values (exact in double) a slice of rows at a time, to bound the scratch memory.
  const int64_t rows_per_chunk = std::max<int64_t>(1, (int64_t{1} << 20) / width);
  std::vector<double> raw(static_cast<size_t>(std::min(height, rows_per_chunk) * width));
  for (int64_t y0 = 0; y0 < height; y0 += rows_per_chunk) {
    const int64_t n = std::min(rows_per_chunk, height - y0) * width;
    long first[3] = {1, static_cast<long>(y0 + 1), plane};
    int status = 0;
    fits_read_pix(f, TDOUBLE, first, static_cast<LONGLONG>(n), nullptr, raw.data(), nullptr,
                  &status);
    check_fits(status, "DGEO_IMAGE " + path);
    float* dst = out.data() + y0 * width;
    for (int64_t i = 0; i < n; ++i)
      dst[i] = bitpix == DOUBLE_IMG ? scaled_pixel<double>(raw[i], bs, bz)
                                    : scaled_pixel<float>(static_cast<float>(raw[i]), bs, bz);
  }
  for (int64_t i = 0; i < out.size(); ++i) {
    const float v = out.data()[i];
    if (!std::isfinite(v) || std::fabs(v) > kMaxShift)
      throw Error("DGEO_IMAGE " + path + ": plane " + std::to_string(plane) + " pixel (" +
                  std::to_string(i % out.width() + 1) + "," + std::to_string(i / out.width() + 1) +
                  ") is " + std::to_string(v) + ": shifts must be finite and within 1e6 pixels");
  }
}

}  // namespace

DgeoImages read_dgeo_map(const std::string& given, int64_t width, int64_t height, int image_hdu) {
  // The HDU SExtractor reads (makeit.c: nima0 < 0 ? ntab : (ndgeo < 0 ? 1 : ndgeo)).
  const bool names_hdu = given.find('[') != std::string::npos;
  const std::string path = image_hdu >= 0 ? given.substr(0, given.find('[')) : given;
  std::optional<FitsFile> file;
  try {
    file.emplace(FitsFile::open_read(path));
  } catch (const Error& e) {
    throw Error("DGEO_IMAGE " + std::string(e.what()));  // "<path>: no such file", ...
  }
  fitsfile* f = file->get();
  int status = 0, hdutype = 0, bitpix = 0, naxis = 0, nhdu = 0;
  fits_get_num_hdus(f, &nhdu, &status);
  check_fits(status, "DGEO_IMAGE " + path);
  // A map of one HDU serves any image HDU; otherwise the image's own HDU number, or the second
  // HDU for an image named with its HDU and a map named without.
  const int hdu = nhdu == 1 ? 0 : image_hdu >= 0 ? image_hdu : names_hdu ? -1 : 1;
  if (hdu >= nhdu)
    throw Error("DGEO_IMAGE " + path + ": no HDU " + std::to_string(hdu + 1) + " (" +
                std::to_string(nhdu) + " in the file), the map source-extractor would read");
  if (hdu >= 0) fits_movabs_hdu(f, hdu + 1, &hdutype, &status);
  long naxes[9] = {0};
  fits_get_hdu_type(f, &hdutype, &status);
  fits_get_img_param(f, 9, &bitpix, &naxis, naxes, &status);
  check_fits(status, "DGEO_IMAGE " + path);
  if (hdutype != IMAGE_HDU || naxis != 3 || naxes[2] < 2)
    throw Error("DGEO_IMAGE " + path +
                ": not a differential geometry map (a cube of at least 2 planes, x then y "
                "shifts; got " +
                (hdutype != IMAGE_HDU ? std::string("a table") : std::to_string(naxis) + "-D") +
                (hdutype == IMAGE_HDU && naxis == 3 ? " with NAXIS3 = " + std::to_string(naxes[2])
                                                    : std::string()) +
                ")");
  if (naxes[0] != width || naxes[1] != height)
    throw Error("DGEO_IMAGE " + path + " is " + std::to_string(naxes[0]) + "x" +
                std::to_string(naxes[1]) + ", the image " + std::to_string(width) + "x" +
                std::to_string(height) + ": they must have the same size");
  DgeoImages m{Image<float>::uninitialized(width, height),
               Image<float>::uninitialized(width, height)};
  double bscale = 1.0, bzero = 0.0;
  if (fits_read_key(f, TDOUBLE, "BSCALE", &bscale, nullptr, &status) == KEY_NO_EXIST) status = 0;
  if (fits_read_key(f, TDOUBLE, "BZERO", &bzero, nullptr, &status) == KEY_NO_EXIST) status = 0;
  fits_set_bscale(f, 1.0, 0.0, &status);  // the stored values: scaled by read_plane
  check_fits(status, "DGEO_IMAGE " + path);
  const float bs = static_cast<float>(bscale), bz = static_cast<float>(bzero);
  read_plane(f, bitpix, bs, bz, 1, m.dx, path);
  read_plane(f, bitpix, bs, bz, 2, m.dy, path);
  return m;
}

}  // namespace celeris::extract
