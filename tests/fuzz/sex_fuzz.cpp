// .sex configuration text (SExtractor's format).
#include "celeris/error.hpp"
#include "celeris/extract_settings.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    celeris::extract::parse_settings(text, {}, "fuzz.sex");
  } catch (const celeris::Error&) {
  }
  return 0;
}
