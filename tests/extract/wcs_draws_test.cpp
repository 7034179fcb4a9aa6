// The rand() draws SExtractor makes while reading a WCS header (sextractor_wcs_draws.hpp). The
// end-to-end check against source-extractor is the parity ctests with CAR headers; these pin
// the header reading and the pole cases one by one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "celeris/fits.hpp"
#include "extract/header_cards.hpp"
#include "extract/sextractor/wcs_draws.hpp"

namespace {

using celeris::FitsHeader;
using celeris::extract::sextractor_wcs_rand_draws;

using celeris::test::card;

// A 2-D image header with the given projection and latitude of the reference point.
std::vector<std::string> header(const std::string& lon, const std::string& lat,
                                const std::string& crval2) {
  return celeris::test::image_cards(
      640, 638,
      {card("CTYPE1", "'" + lon + "'"), card("CTYPE2", "'" + lat + "'"), card("CRVAL1", "359.9998"),
       card("CRVAL2", crval2), card("CD1_1", "-0.002"), card("CD2_2", "0.002")});
}

int draws(std::vector<std::string> cards) {
  return sextractor_wcs_rand_draws(FitsHeader(cards));
}

TEST(SextractorWcsDraws, NoneForOrdinaryHeaders) {
  EXPECT_EQ(draws(header("RA---TAN", "DEC--TAN", "-28.9")), 0);
  EXPECT_EQ(draws(header("GLON-CAR", "GLAT-CAR", "0.0003")), 0);   // LONPOLE defaults to 0
  EXPECT_EQ(draws({card("SIMPLE", "T"), card("NAXIS", "2")}), 0);  // no WCS at all
  EXPECT_EQ(draws(header("LINEAR", "LINEAR", "0")), 0);            // no celestial pair
  // Inconsistent projections: SExtractor's wcsset() rejects the pair, nothing is projected.
  auto mixed = header("RA---TAN", "DEC--SIN", "10");
  mixed.push_back(card("LONPOLE", "90"));
  EXPECT_EQ(draws(mixed), 0);
}

TEST(SextractorWcsDraws, LonpoleaIsReadAsLonpole) {
  // gc_bolocam_gps: LONPOLE = 180 with a reference point just north of the equator puts the
  // celestial pole 0.0003 deg beyond 90: the first transformation fails, the second succeeds.
  auto cards = header("GLON-CAR", "GLAT-CAR", "0.000301939107299");
  cards.push_back(card("LONPOLEA", "180.0"));
  cards.push_back(card("LATPOLEA", "0.0"));  // "LATPOLE " is matched on 8 characters: unread
  EXPECT_EQ(draws(cards), 2);
  cards.back() = card("LATPOLE", "90.0");  // moves which solution is preferred, not the result
  EXPECT_EQ(draws(cards), 2);
  // On the equator itself the pole is exactly at 90: no failure.
  EXPECT_EQ(draws([] {
              auto c = header("GLON-CAR", "GLAT-CAR", "0.0");
              c.push_back(card("LONPOLE", "180"));
              return c;
            }()),
            0);
}

TEST(SextractorWcsDraws, FirstMatchingCardWinsAndLongpoleIsTheFallback) {
  auto cards = header("GLON-CAR", "GLAT-CAR", "0.0003");
  cards.push_back(card("LONPOLEA", "0.0"));
  cards.push_back(card("LONPOLE", "180.0"));  // after LONPOLEA: never read
  EXPECT_EQ(draws(cards), 0);
  auto old = header("GLON-CAR", "GLAT-CAR", "0.0003");
  old.push_back(card("LONGPOLE", "180.0"));
  EXPECT_EQ(draws(old), 2);
}

TEST(SextractorWcsDraws, UndeterminedPoleFailsEveryStep) {
  // CAR with LONPOLE 90: the native pole direction is orthogonal to the reference point, which
  // can only be on the equator; at latitude 45 celset() fails before marking itself set, so all
  // 100 steps fail, 2 draws each.
  auto cards = header("GLON-CAR", "GLAT-CAR", "45");
  cards.push_back(card("LONPOLE", "90"));
  EXPECT_EQ(draws(cards), 200);
  // A zenithal projection puts the pole at CRVAL2: only an out-of-range latitude fails.
  auto tan = header("RA---TAN", "DEC--TAN", "91");
  EXPECT_EQ(draws(tan), 2);
}

TEST(SextractorWcsDraws, ConicThetaFromPv) {
  // COE with theta_a = 45 (PV2_1): the reference point at latitude 0 and LONPOLE 180 is fine,
  // at latitude -60 with LONPOLE 0 the required pole latitude exceeds 90.
  auto ok = header("RA---COE", "DEC--COE", "0");
  ok.push_back(card("PV2_1", "45"));
  EXPECT_EQ(draws(ok), 0);
  auto bad = header("RA---COE", "DEC--COE", "-60");
  bad.push_back(card("PV2_1", "45"));
  bad.push_back(card("LONPOLE", "0"));
  EXPECT_EQ(draws(bad), 2);
}

}  // namespace
