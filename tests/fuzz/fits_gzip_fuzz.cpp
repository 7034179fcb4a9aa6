// gzip FITS image: the input is compressed here, so that mutations reach the FITS headers
// behind zlib (what CFITSIO decompresses in memory) rather than break the gzip stream.
#include <zlib.h>

#include "celeris/error.hpp"
#include "celeris/fits.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = celeris::fuzz::scratch("image.fits.gz");
  gzFile g = gzopen(path.c_str(), "wb1");
  if (!g) std::abort();
  if (size) gzwrite(g, data, static_cast<unsigned>(size));
  gzclose(g);
  try {
    celeris::read_fits_image(path);
  } catch (const celeris::Error&) {
  }
  return 0;
}
