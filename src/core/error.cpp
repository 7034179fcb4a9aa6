// printable_excerpt: input quoted in error messages, kept short and printable.
#include <cstdio>

#include "celeris/error.hpp"

namespace celeris {

std::string printable_excerpt(std::string_view text, size_t max) {
  std::string out;
  for (const char c : text) {
    if (out.size() >= max) {
      out.append(3, '.');
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out.push_back(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", u);
      out.append(hex);
    }
  }
  return out;
}

}  // namespace celeris
