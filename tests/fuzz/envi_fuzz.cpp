// ENVI cubes: the input is the header text, then (after the first NUL byte) the data file.
#include <cstring>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  const size_t hsize = nul ? static_cast<size_t>(nul - data) : size;
  celeris::fuzz::write_scratch("cube.hdr", data, hsize);
  const std::string path = celeris::fuzz::write_scratch("cube.img", nul ? nul + 1 : data + size,
                                                        nul ? size - hsize - 1 : 0);
  try {
    celeris::hyperspectral::read_envi(path);
  } catch (const celeris::Error&) {
  }
  return 0;
}
