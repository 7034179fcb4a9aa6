// FITS cubes: a 3-D image HDU, NAXIS1 = samples, NAXIS2 = lines, NAXIS3 = bands. FITS's C order
// (NAXIS1 fastest) is exactly BSQ, so pixels are read and written in one call.
#include <fitsio.h>

#include <cmath>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "celeris/table.hpp"
#include "core/fits_util.hpp"

namespace celeris::hyperspectral {

namespace {

// Cards that describe the array itself, rewritten by CFITSIO on output.
bool structural(const std::string& card) {
  std::string key = card.substr(0, 8);
  key.erase(key.find_last_not_of(' ') + 1);
  return key.empty() || key == "SIMPLE" || key == "BITPIX" || key.rfind("NAXIS", 0) == 0 ||
         key == "EXTEND" || key == "BZERO" || key == "BSCALE" || key == "BLANK" || key == "END" ||
         key == "XTENSION" || key == "PCOUNT" || key == "GCOUNT" || key == "CHECKSUM" ||
         key == "DATASUM" ||
         // The two COMMENT cards CFITSIO adds to every primary header.
         card.find("FITS (Flexible Image Transport System) format") != std::string::npos ||
         card.find("Astrophysics', volume 376, page 359") != std::string::npos;
}

// Moves to the first HDU holding a 3-D image unless the path selects one explicitly.
void find_cube_hdu(fitsfile* f, const std::string& path) {
  int status = 0, naxis = 0, hdutype = 0, nhdu = 0;
  fits_get_img_dim(f, &naxis, &status);
  fits_get_hdu_type(f, &hdutype, &status);
  check_fits(status, "reading '" + path + "'");
  if (hdutype == IMAGE_HDU && naxis == 3) return;
  if (path.find('[') != std::string::npos)
    throw Error("FITS HDU '" + path + "' is not a 3-D image (NAXIS = " + std::to_string(naxis) +
                ")");
  fits_get_num_hdus(f, &nhdu, &status);
  for (int h = 2; h <= nhdu; ++h) {
    fits_movabs_hdu(f, h, &hdutype, &status);
    fits_get_img_dim(f, &naxis, &status);
    check_fits(status, "reading '" + path + "'");
    if (hdutype == IMAGE_HDU && naxis == 3) return;
  }
  throw Error("FITS file '" + path + "' has no 3-D image HDU (a cube needs NAXIS = 3)");
}

}  // namespace

Cube read_fits_cube(const std::string& path) {
  FitsFile f = FitsFile::open_read(path);
  find_cube_hdu(f.get(), path);
  int status = 0, bitpix = 0, naxis = 0;
  long naxes[3] = {0, 0, 0};
  fits_get_img_param(f.get(), 3, &bitpix, &naxis, naxes, &status);
  check_fits(status, "reading '" + path + "'");
  if (naxes[0] <= 0 || naxes[1] <= 0 || naxes[2] <= 0)
    throw Error("FITS cube '" + path + "' is empty");
  Cube cube(static_cast<int>(naxes[2]), static_cast<int>(naxes[1]), static_cast<int>(naxes[0]));
  float nullval = NAN;
  int anynul = 0;
  fits_read_img(f.get(), TFLOAT, 1, static_cast<LONGLONG>(cube.size()), &nullval, cube.data.data(),
                &anynul, &status);
  check_fits(status, "reading pixels of '" + path + "'");
  int nkeys = 0;
  fits_get_hdrspace(f.get(), &nkeys, nullptr, &status);
  for (int i = 1; i <= nkeys; ++i) {
    char card[FLEN_CARD];
    if (fits_read_record(f.get(), i, card, &status)) break;
    if (!structural(card)) cube.source.fits_cards.emplace_back(card);
  }
  check_fits(status, "reading header of '" + path + "'");
  cube.source.format = CubeFormat::Fits;
  return cube;
}

void write_fits_cube(const std::string& path, const Cube& cube) {
  if (cube.data.size() != cube.size())
    throw Error("writing '" + path + "': cube data size mismatch");
  write_atomically(path, [&](const std::string& tmp) {
    FitsFile f = FitsFile::create(tmp);
    int status = 0;
    long naxes[3] = {cube.samples, cube.lines, cube.bands};
    fits_create_img(f.get(), FLOAT_IMG, 3, naxes, &status);
    for (const auto& card : cube.source.fits_cards)
      fits_write_record(f.get(), card.c_str(), &status);
    fits_write_img(f.get(), TFLOAT, 1, static_cast<LONGLONG>(cube.size()),
                   const_cast<float*>(cube.data.data()), &status);
    check_fits(status, "writing '" + path + "'");
    f.close();
  });
}

}  // namespace celeris::hyperspectral
