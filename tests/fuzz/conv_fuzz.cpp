// .conv filter files.
#include "celeris/error.hpp"
#include "celeris/extract_settings.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  celeris::extract::Config config;
  try {
    celeris::extract::parse_filter(text, "fuzz.conv", config);
  } catch (const celeris::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) std::abort();  // one line
  }
  return 0;
}
