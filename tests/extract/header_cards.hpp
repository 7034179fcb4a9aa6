// FITS header cards written by hand for the WCS tests (world frame, WCS batches, SExtractor's
// WCS draws, the catalog's world columns across threads, the pixel scale): one 80-character
// card, and a 2-D image header around the cards a test cares about.
#pragma once

#include <string>
#include <vector>

#include "celeris/fits.hpp"
#include "core/fits_card.hpp"

namespace celeris::test {

// SIMPLE, BITPIX -32, NAXIS 2, NAXIS1 `width`, NAXIS2 `height`, then `cards`.
inline std::vector<std::string> image_cards(int width, int height,
                                            const std::vector<std::string>& cards) {
  std::vector<std::string> all = {card("SIMPLE", "T"), card("BITPIX", "-32"), card("NAXIS", "2"),
                                  card("NAXIS1", std::to_string(width)),
                                  card("NAXIS2", std::to_string(height))};
  all.insert(all.end(), cards.begin(), cards.end());
  return all;
}

inline FitsHeader image_header(int width, int height, const std::vector<std::string>& cards) {
  return FitsHeader(image_cards(width, height, cards));
}

}  // namespace celeris::test
