// SExtractor's way of reading header keywords (fitskey.c fitsfind / fitsread): the first card
// whose leading characters match the key, '?' in either matching any character, so a key is a
// prefix ("LONPOLE" matches a LONPOLEA card). Shared by the readers that must see a header as
// SExtractor does (wcs_draws.cpp, world_frame.cpp).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "celeris/fits.hpp"

namespace celeris::extract::sex_header {

// The first card (before END) whose first key.size() characters equal `key`.
inline std::optional<std::string> find_card(const std::vector<std::string>& cards,
                                            const std::string& key) {
  for (std::string card : cards) {
    card.resize(80, ' ');
    if (card.compare(0, 8, "END     ") == 0) break;
    bool match = true;
    for (size_t i = 0; i < key.size() && match; ++i)
      match = card[i] == key[i] || card[i] == '?' || key[i] == '?';
    if (match) return card;
  }
  return std::nullopt;
}

// fitsread() of a number or a string: the value of the first card find_card() matches.
inline std::optional<double> read_double(const std::vector<std::string>& cards,
                                         const std::string& key) {
  const auto card = find_card(cards, key);
  return card ? fits_card_number(*card) : std::nullopt;
}

inline std::string read_string(const std::vector<std::string>& cards, const std::string& key) {
  const auto card = find_card(cards, key);
  return card ? fits_card_value(*card) : std::string{};
}

// "CTYPE1  ": the stem and the 1-based axis padded to 8 characters, as SExtractor builds keys.
inline std::string axis_key(const char* stem, int axis) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%s%-3d", stem, axis);
  return buf;
}

}  // namespace celeris::extract::sex_header
