// The pixel scale SExtractor takes from the WCS with PIXEL_SCALE 0 (stages/measure_pixel_scale):
// the field's scale at the image centre and the local pixel area, against values worked by hand
// (linear frames) and the tangent-plane Jacobian at a TAN frame's reference point (the CD
// matrix, whose determinant is the pixel area there).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "extract/header_cards.hpp"
#include "extract/settings/parameters.hpp"
#include "extract/stages/measure_pixel_scale.hpp"

namespace celeris::extract {
namespace {

using test::card;
using test::image_header;

WorldFrame frame_of(const std::vector<std::string>& cards, int width = 101, int height = 81) {
  const FitsHeader h = image_header(width, height, cards);
  return WorldFrame::from_header(h, Wcs::from_header(h));
}

// A TAN frame whose reference pixel is the image centre (51, 41) of 101 x 81 pixels.
std::vector<std::string> tan_cards(const std::string& crval1, const std::string& crval2,
                                   bool latitude_first = false) {
  std::vector<std::string> c = {card("CTYPE1", latitude_first ? "'DEC--TAN'" : "'RA---TAN'"),
                                card("CTYPE2", latitude_first ? "'RA---TAN'" : "'DEC--TAN'"),
                                card("CRVAL1", latitude_first ? crval2 : crval1),
                                card("CRVAL2", latitude_first ? crval1 : crval2),
                                card("CRPIX1", "51.0"),
                                card("CRPIX2", "41.0"),
                                card("EQUINOX", "2000.0"),
                                card("RADESYS", "'FK5'")};
  // d(lng)/dx = -5e-5, d(lng)/dy = 1e-5, d(lat)/dx = 2e-5, d(lat)/dy = 6e-5 (deg per pixel),
  // rows of the CD matrix in the header's axis order.
  const char* lng_row[2] = {"-5.0E-5", "1.0E-5"};
  const char* lat_row[2] = {"2.0E-5", "6.0E-5"};
  const char* const* row1 = latitude_first ? lat_row : lng_row;
  const char* const* row2 = latitude_first ? lng_row : lat_row;
  // On a latitude-first image the pixel axes keep their meaning: x still moves the longitude
  // by -5e-5, so the columns stay.
  c.push_back(card("CD1_1", row1[0]));
  c.push_back(card("CD1_2", row1[1]));
  c.push_back(card("CD2_1", row2[0]));
  c.push_back(card("CD2_2", row2[1]));
  return c;
}
constexpr double kTanArea = 5.0e-5 * 6.0e-5 + 1.0e-5 * 2.0e-5;  // |det CD|, deg^2

TEST(PixelScale, NoWcsIsOneDegreeAPixel) {
  // SExtractor's linear frame, CDELT 1: 3600 arcsec a pixel, an area of 1 deg^2.
  const WorldFrame f = frame_of({});
  EXPECT_EQ(field_pixel_scale(f, 101, 81), 1.0);
  EXPECT_EQ(local_pixel_area(local_jacobian(f, 10.5, 3.25)), 1.0);
}

TEST(PixelScale, LinearFrameTakesTheLastAxisAlongItself) {
  // range_wcs keeps the second axis' step along y, |CD2_2|, as the field's scale; the area is
  // |det CD| everywhere.
  const WorldFrame f = frame_of({card("CD1_1", "3.0"), card("CD1_2", "1.0"), card("CD2_1", "0.5"),
                                 card("CD2_2", "-2.0"), card("CRVAL1", "7.0")});
  EXPECT_DOUBLE_EQ(field_pixel_scale(f, 101, 81), 2.0);
  EXPECT_DOUBLE_EQ(local_pixel_area(local_jacobian(f, 12.0, 40.0)), 3.0 * 2.0 + 1.0 * 0.5);
}

TEST(PixelScale, TanFrameAtItsReferencePointIsTheCdMatrix) {
  // At declination 60 deg the longitude steps are twice the sky's: SExtractor's cos(latitude)
  // factor must bring them back. The one-pixel differences stray from the tangent point's
  // derivatives by O(pixel / radian) ~ 1e-6 relative.
  for (const char* dec : {"0.5", "60.0", "-75.0"}) {
    const WorldFrame f = frame_of(tan_cards("150.0", dec));
    ASSERT_NE(f.celestial(), nullptr);
    EXPECT_NEAR(local_pixel_area(local_jacobian(f, 51.0, 41.0)), kTanArea, 1e-5 * kTanArea) << dec;
    EXPECT_NEAR(field_pixel_scale(f, 101, 81), std::sqrt(kTanArea), 1e-5 * std::sqrt(kTanArea))
        << dec;
  }
}

TEST(PixelScale, LatitudeFirstFrameGivesTheSameScale) {
  const WorldFrame lon_first = frame_of(tan_cards("150.0", "60.0"));
  const WorldFrame lat_first = frame_of(tan_cards("150.0", "60.0", true));
  ASSERT_EQ(lat_first.lng(), 1);
  EXPECT_NEAR(field_pixel_scale(lat_first, 101, 81), field_pixel_scale(lon_first, 101, 81), 1e-12);
  EXPECT_NEAR(local_pixel_area(local_jacobian(lat_first, 20.0, 70.0)),
              local_pixel_area(local_jacobian(lon_first, 20.0, 70.0)), 1e-18);
}

TEST(PixelScale, LongitudeDifferencesFoldedAcrossZero) {
  // The centre sits on RA 0: one pixel's step crosses from 0 to 359.99995 deg.
  const WorldFrame f = frame_of(tan_cards("0.0", "30.0"));
  EXPECT_NEAR(field_pixel_scale(f, 101, 81), std::sqrt(kTanArea), 1e-5 * std::sqrt(kTanArea));
  EXPECT_NEAR(local_pixel_area(local_jacobian(f, 51.0, 41.0)), kTanArea, 1e-5 * kTanArea);
}

TEST(PixelScale, NoJacobianIsMinusOne) {
  EXPECT_EQ(local_pixel_area(Jacobian{}), -1.0);  // wcs_jacobian's failure value
}

TEST(PixelScale, WantedOnlyWithPixelScaleZeroAndAColumnThatTakesIt) {
  auto params = [](std::vector<const char*> names) {
    std::vector<RequestedParam> out;
    for (const char* n : names) out.push_back({find_parameter(n), 1, 0, 0});
    return out;
  };
  for (const char* n : {"CLASS_STAR", "MU_MAX", "MU_THRESHOLD", "FWHM_WORLD", "ISOAREA_WORLD",
                        "ISOAREAF_WORLD", "FWHMPSF_WORLD"}) {
    EXPECT_TRUE(wcs_pixel_scale_wanted(params({"NUMBER", n}), 0.0)) << n;
    EXPECT_FALSE(wcs_pixel_scale_wanted(params({"NUMBER", n}), 0.2)) << n;
  }
  EXPECT_FALSE(wcs_pixel_scale_wanted(
      params({"X_WORLD", "FWHM_IMAGE", "ISOAREA_IMAGE", "FWHMPSF_IMAGE"}), 0.0));
  EXPECT_FALSE(uses_local_pixel_area("CLASS_STAR"));  // the field's scale, not the local area
}

TEST(PixelScale, RefusedWhereSExtractorMovesTheCentreAtRandom) {
  // A GLON-CAR header whose pole SExtractor's WCS code finds ill-conditioned: range_wcs moves
  // the centre by a random step (wcs_draws.hpp) before taking the scale there.
  const std::vector<std::string> cards = {
      card("CTYPE1", "'GLON-CAR'"), card("CTYPE2", "'GLAT-CAR'"),
      card("CRVAL1", "359.9998"),   card("CRVAL2", "0.000301939107299"),
      card("CD1_1", "-0.002"),      card("CD2_2", "0.002"),
      card("CRPIX1", "320.0"),      card("CRPIX2", "319.0"),
      card("LONPOLEA", "180.0")};
  const FitsHeader h = image_header(640, 638, cards);
  const WorldFrame f = WorldFrame::from_header(h, Wcs::from_header(h));
  EXPECT_THROW(check_field_pixel_scale(h, f, 640, 638, "gps.fits"), Error);
  const FitsHeader ok = image_header(101, 81, tan_cards("150.0", "60.0"));
  EXPECT_NO_THROW(
      check_field_pixel_scale(ok, WorldFrame::from_header(ok, Wcs::from_header(ok)), 101, 81, "a"));
}

}  // namespace
}  // namespace celeris::extract
