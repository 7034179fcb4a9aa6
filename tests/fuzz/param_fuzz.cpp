// .param catalog parameter lists.
#include "celeris/error.hpp"
#include "extract/settings/parameters.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  try {
    celeris::extract::parse_parameter_list(text, "fuzz.param", warnings);
  } catch (const celeris::Error&) {
  }
  for (const auto& w : warnings)
    if (w.size() > 400 || w.find('\n') != std::string::npos) std::abort();  // one short line
  return 0;
}
