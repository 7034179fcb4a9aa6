// CSV catalogs (xmatch input).
#include "celeris/error.hpp"
#include "celeris/xmatch.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = celeris::fuzz::write_scratch("cat.csv", data, size);
  try {
    const celeris::Table t = celeris::xmatch::read_csv(path);
    (void)celeris::xmatch::find_radec_columns(t, "", "", path);
  } catch (const celeris::Error&) {
  }
  return 0;
}
