// FITS image: the header check, CFITSIO's open and pixel read, the WCS through wcslib.
#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "celeris/wcs.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = celeris::fuzz::write_scratch("image.fits", data, size);
  try {
    const celeris::FitsImage img = celeris::read_fits_image(path);
    if (auto wcs = celeris::Wcs::from_header(img.header)) {
      auto [ra, dec] = wcs->pixel_to_j2000(1.0, 1.0);
      (void)wcs->world_to_pixel(ra, dec);
    }
  } catch (const celeris::Error&) {
  }
  return 0;
}
