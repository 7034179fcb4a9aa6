// SExtractor's world frame (sextractor/world_frame.hpp): the linear frame of a header without a
// celestial WCS, and the axis order of a latitude-first one, against values worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "celeris/fits.hpp"
#include "celeris/wcs.hpp"
#include "extract/header_cards.hpp"
#include "extract/sextractor/world_frame.hpp"
#include "extract/stages/measure_world_shape.hpp"

namespace celeris::extract {
namespace {

using test::card;

WorldFrame frame_of(const std::vector<std::string>& cards) {
  const FitsHeader h = test::image_header(100, 80, cards);
  return WorldFrame::from_header(h, Wcs::from_header(h));
}

TEST(WorldFrame, NoWcsIsTheIdentityFromPixelOne) {
  const WorldFrame f = frame_of({});
  ASSERT_EQ(f.celestial(), nullptr);
  EXPECT_EQ(f.world(10.25, 3.5), std::make_pair(9.25, 2.5));  // X_WORLD = X_IMAGE - 1
  EXPECT_EQ(f.focal(10.25, 3.5), std::make_pair(9.25, 2.5));
  EXPECT_EQ(f.sky(10.25, 3.5), std::make_pair(0.0, 0.0));  // no longitude, no latitude
  EXPECT_EQ(f.j2000(10.25, 3.5), std::make_pair(0.0, 0.0));
  // The Jacobian is the identity, with no sky angle.
  const Jacobian j = local_jacobian(f, 10.25, 3.5);
  ASSERT_TRUE(j.ok);
  EXPECT_EQ(j.lm0, 1.0);
  EXPECT_EQ(j.lm1, 0.0);
  EXPECT_EQ(j.lm2, 0.0);
  EXPECT_EQ(j.lm3, 1.0);
  EXPECT_EQ(world_shape(j, 4.0, 1.0, 0.0).theta_sky, 0.0f);
}

TEST(WorldFrame, LinearKeywordsAsSExtractorReadsThem) {
  // CRVAL/CRPIX/CDELT with PC: world_i = CRVAL_i + CDELT_i sum_j PC_ij (p_j - CRPIX_j).
  WorldFrame f = frame_of({card("CTYPE1", "''"), card("CRVAL1", "1.0"), card("CRPIX1", "-767"),
                           card("CDELT1", "2.0"), card("CRVAL2", "5.0"), card("CRPIX2", "3"),
                           card("CDELT2", "0.5"), card("PC1_2", "0.25")});
  auto [x, y] = f.world(10.0, 7.0);
  EXPECT_DOUBLE_EQ(x, 1.0 + 2.0 * (777.0 + 0.25 * 4.0));
  EXPECT_DOUBLE_EQ(y, 5.0 + 0.5 * 4.0);
  // CD, when present, is taken as it is (CDELT ignored).
  f = frame_of({card("CD1_1", "3.0"), card("CD2_1", "1.0"), card("CDELT1", "7.0")});
  std::tie(x, y) = f.world(2.0, 1.0);
  EXPECT_DOUBLE_EQ(x, 3.0);
  EXPECT_DOUBLE_EQ(y, 1.0 + 0.0);  // CD2_2 defaults to 1 (row 2: 1 x 1 + 1 x 0)
  // Else CROTA2: a rotation by 90 deg scaled by CDELT.
  f = frame_of({card("CROTA2", "90.0"), card("CDELT1", "2.0"), card("CDELT2", "3.0")});
  std::tie(x, y) = f.world(2.0, 1.0);  // one pixel along x from CRPIX 1
  EXPECT_NEAR(x, 0.0, 1e-12);
  EXPECT_NEAR(y, 2.0, 1e-12);
}

TEST(WorldFrame, LatitudeFirstKeepsTheAxisOrder) {
  const std::vector<std::string> tan = {card("CRVAL1", "150.0"),  card("CRVAL2", "2.0"),
                                        card("CRPIX1", "50"),     card("CRPIX2", "40"),
                                        card("CD1_1", "-1.0E-4"), card("CD2_2", "1.0E-4")};
  std::vector<std::string> ra_first = tan, dec_first = tan;
  ra_first.push_back(card("CTYPE1", "'RA---TAN'"));
  ra_first.push_back(card("CTYPE2", "'DEC--TAN'"));
  // The same sky with the world axes exchanged: axis 1 is the declination, along y.
  dec_first = {card("CTYPE1", "'DEC--TAN'"), card("CTYPE2", "'RA---TAN'"), card("CRVAL1", "2.0"),
               card("CRVAL2", "150.0"),      card("CRPIX1", "50"),         card("CRPIX2", "40"),
               card("CD1_2", "1.0E-4"),      card("CD2_1", "-1.0E-4"),     card("CD1_1", "0.0"),
               card("CD2_2", "0.0")};
  const WorldFrame a = frame_of(ra_first), d = frame_of(dec_first);
  ASSERT_NE(a.celestial(), nullptr);
  ASSERT_NE(d.celestial(), nullptr);
  EXPECT_EQ(a.lng(), 0);
  EXPECT_EQ(d.lng(), 1);
  const auto [ra, dec] = a.world(60.0, 45.0);
  const auto [w0, w1] = d.world(60.0, 45.0);
  EXPECT_NEAR(w0, dec, 1e-9);  // X_WORLD is the first axis: the declination
  EXPECT_NEAR(w1, ra, 1e-9);
  const auto [sra, sdec] = d.sky(60.0, 45.0);  // ALPHA_SKY, DELTA_SKY: longitude, latitude
  EXPECT_NEAR(sra, ra, 1e-9);
  EXPECT_NEAR(sdec, dec, 1e-9);
  // SExtractor picks the Jacobian's terms at (lng, lat) of the pixel axes too: on this frame
  // the longitude changes along x, so its "dlng/dx" (along pixel axis lng = y) is ~0 and
  // "dlng/dy" (along x, times cos(dec)) is -1e-4; THETA_SKY is the world angle itself.
  const Jacobian j = local_jacobian(d, 60.0, 45.0);
  ASSERT_TRUE(j.ok);
  EXPECT_NEAR(j.lm0, 0.0, 1e-9);
  EXPECT_NEAR(j.lm1, -1e-4, 1e-9);
  EXPECT_NEAR(j.lm2, 1e-4, 1e-9);
  EXPECT_NEAR(j.lm3, 0.0, 1e-9);
  const WorldShape w = world_shape(j, 1.0, 4.0, 0.0);
  EXPECT_FLOAT_EQ(w.theta_sky, w.theta);
}

}  // namespace
}  // namespace celeris::extract

namespace celeris::extract {
namespace {

// A DSS plate solution (HorseHead: RA---TAN with a CD matrix, and the plate's AMDX/AMDY
// polynomial): wcslib applies the polynomial, SExtractor's read_wcs reads only the TAN frame, and
// the world frame is SExtractor's. Skipped without the shared image.
TEST(WorldFrame, DssPlateSolutionIsNotPartOfSExtractorsFrame) {
  const std::string path = std::string(CELERIS_TEST_DATA) + "/images/HorseHead.fits";
  if (FILE* f = std::fopen(path.c_str(), "rb"))
    std::fclose(f);
  else
    GTEST_SKIP() << path << " absent";
  const FitsHeader with = read_fits_image(path).header;
  std::vector<std::string> cards;
  for (const std::string& c : with.cards())
    if (c.rfind("AMD", 0) != 0 && c.rfind("PLT", 0) != 0 && c.rfind("PPO", 0) != 0 &&
        c.rfind("CNPIX", 0) != 0 && c.rfind("XPIXELSZ", 0) != 0 && c.rfind("YPIXELSZ", 0) != 0)
      cards.push_back(c);
  const FitsHeader without(cards);
  const auto dss = Wcs::from_header(with), tan = Wcs::from_header(without);
  ASSERT_TRUE(dss && tan);
  // wcslib's own reading moves the positions by the plate polynomial (~0.07 arcsec here) ...
  EXPECT_GT(
      std::fabs(dss->pixel_to_world(100.0, 700.0).first - tan->pixel_to_world(100.0, 700.0).first),
      1e-6);
  // ... the world frame does not, and matches the TAN frame bit for bit.
  const WorldFrame frame = WorldFrame::from_header(with, dss);
  for (const auto& [x, y] : {std::pair(100.0, 700.0), std::pair(445.5, 446.0)}) {
    EXPECT_EQ(frame.world(x, y), tan->pixel_to_world(x, y));
    EXPECT_EQ(frame.j2000(x, y), tan->pixel_to_j2000(x, y));
  }
}

}  // namespace
}  // namespace celeris::extract
