// MATLAB .mat cubes (v5, and v7.3 HDF5 when the input looks like one), read through matio.
#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = celeris::fuzz::write_scratch("cube.mat", data, size);
  try {
    celeris::hyperspectral::read_mat_cube(path);
  } catch (const celeris::Error&) {
  }
  return 0;
}
