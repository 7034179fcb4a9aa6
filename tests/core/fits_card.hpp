// One hand-written FITS header card, shared by the byte-level FITS tests (fits_bytes.hpp) and
// the WCS tests (tests/extract/header_cards.hpp).
#pragma once

#include <string>

namespace celeris::test {

// `KEY     = value`, padded to 80 characters; a string value carries its own quotes.
inline std::string card(const std::string& key, const std::string& value) {
  std::string c = key;
  c.resize(8, ' ');
  c += "= " + value;
  c.resize(80, ' ');
  return c;
}

}  // namespace celeris::test
