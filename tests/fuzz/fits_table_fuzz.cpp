// FITS table: read_fits_table (catalog reader of xmatch and the tests) and the block-by-block
// RA/Dec reader of the larger-than-memory cross-match.
#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = celeris::fuzz::write_scratch("table.fits", data, size);
  try {
    celeris::read_fits_table(path);
  } catch (const celeris::Error&) {
  }
  try {
    auto src = celeris::xmatch::fits_positions(path, "RA", "DEC", 64);
    src->scan([](size_t, const double*, const double*, size_t) {});
  } catch (const celeris::Error&) {
  }
  return 0;
}
