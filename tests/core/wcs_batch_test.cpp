// Wcs::pixels_to_world (one wcslib call for many points) and Wcs::independent_copy (one copy per
// conversion thread, as make_catalog uses them): the values of pixel_to_world point by point,
// bit for bit, with distortions (SIP) and with points that do not map.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "celeris/fits.hpp"
#include "celeris/wcs.hpp"
#include "extract/header_cards.hpp"

namespace {

using celeris::FitsHeader;
using celeris::Wcs;

using celeris::test::card;

std::vector<std::string> header(const std::string& lon, const std::string& lat) {
  return celeris::test::image_cards(
      4096, 4096,
      {card("CTYPE1", "'" + lon + "'"), card("CTYPE2", "'" + lat + "'"), card("CRPIX1", "2048.5"),
       card("CRPIX2", "2048.5"), card("CRVAL1", "150.1"), card("CRVAL2", "2.2"),
       card("CD1_1", "-7.5E-05"), card("CD1_2", "1.0E-06"), card("CD2_1", "2.0E-06"),
       card("CD2_2", "7.5E-05")});
}

std::vector<std::string> sip_header() {
  auto h = header("RA---TAN-SIP", "DEC--TAN-SIP");
  for (const auto& c :
       {card("A_ORDER", "2"), card("B_ORDER", "2"), card("A_2_0", "2.0E-07"),
        card("A_1_1", "-1.0E-07"), card("B_0_2", "3.0E-07"), card("B_1_1", "1.5E-07")})
    h.push_back(c);
  return h;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Pixels over the frame, fractional, and (for the SIN projection below) beyond its horizon.
void points(std::vector<double>& x, std::vector<double>& y) {
  for (int i = 0; i < 3001; ++i) {
    x.push_back(-500.25 + 1.7 * i + 0.013 * (i % 7));
    y.push_back(4500.5 - 1.3 * i);
  }
}

void expect_batch_equals_single(const Wcs& wcs) {
  std::vector<double> x, y;
  points(x, y);
  std::vector<double> lon(x.size()), lat(x.size());
  wcs.pixels_to_world(x.size(), x.data(), y.data(), lon.data(), lat.data());
  int bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const auto [l, b] = wcs.pixel_to_world(x[i], y[i]);
    bad += std::isnan(l);
    ASSERT_TRUE(same_bits(lon[i], l) && same_bits(lat[i], b))
        << i << ": " << lon[i] << " " << lat[i] << " vs " << l << " " << b;
  }
  ::testing::Test::RecordProperty("points_not_mapping", bad);
}

}  // namespace

TEST(WcsBatch, SameValuesAsOnePointAtATime) {
  const auto tan = Wcs::from_header(FitsHeader(header("RA---TAN", "DEC--TAN")));
  ASSERT_TRUE(tan);
  expect_batch_equals_single(*tan);
  const auto sip = Wcs::from_header(FitsHeader(sip_header()));
  ASSERT_TRUE(sip);
  expect_batch_equals_single(*sip);
  const auto gal = Wcs::from_header(FitsHeader(header("GLON-AIT", "GLAT-AIT")));
  ASSERT_TRUE(gal);
  expect_batch_equals_single(*gal);
}

TEST(WcsBatch, PointsThatDoNotMapAreNan) {
  // A SIN projection 3 degrees across a 4096 frame at 0.1 deg/pixel: most of it beyond the
  // horizon, where pixel_to_world gives NaN; the batch must give NaN there and only there.
  auto h = header("RA---SIN", "DEC--SIN");
  h.push_back(card("CDELT1", "-0.05"));
  h.push_back(card("CDELT2", "0.05"));
  for (auto& c : h)
    if (c.rfind("CD1_", 0) == 0 || c.rfind("CD2_", 0) == 0) c = card("COMMENT", "''");
  const auto sin = Wcs::from_header(FitsHeader(h));
  ASSERT_TRUE(sin);
  std::vector<double> x, y;
  points(x, y);
  std::vector<double> lon(x.size()), lat(x.size());
  sin->pixels_to_world(x.size(), x.data(), y.data(), lon.data(), lat.data());
  int nan = 0, mapped = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const auto [l, b] = sin->pixel_to_world(x[i], y[i]);
    ASSERT_TRUE(same_bits(lon[i], l) && same_bits(lat[i], b)) << i;
    (std::isnan(l) ? nan : mapped)++;
  }
  EXPECT_GT(nan, 100);  // the test covers both kinds of point
  EXPECT_GT(mapped, 100);
}

TEST(WcsBatch, IndependentCopiesConvertOnThreadsAtOnce) {
  const auto sip = Wcs::from_header(FitsHeader(sip_header()));
  ASSERT_TRUE(sip);
  std::vector<double> x, y;
  points(x, y);
  std::vector<double> lon(x.size()), lat(x.size());
  sip->pixels_to_world(x.size(), x.data(), y.data(), lon.data(), lat.data());
  constexpr int kThreads = 4;
  std::vector<Wcs> copies;
  for (int t = 0; t < kThreads; ++t) copies.push_back(sip->independent_copy());
  std::vector<std::vector<double>> tl(kThreads, std::vector<double>(x.size())), tb = tl;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep)
        copies[t].pixels_to_world(x.size(), x.data(), y.data(), tl[t].data(), tb[t].data());
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_TRUE(same_bits(tl[t][i], lon[i]) && same_bits(tb[t][i], lat[i])) << t << " " << i;
  // The copy keeps the system of the original (J2000 conversions of galactic frames).
  const auto gal = Wcs::from_header(FitsHeader(header("GLON-AIT", "GLAT-AIT")));
  ASSERT_TRUE(gal);
  const Wcs copy = gal->independent_copy();
  EXPECT_EQ(copy.system(), Wcs::System::Galactic);
  const auto a = gal->pixel_to_j2000(100.5, 200.25), b = copy.pixel_to_j2000(100.5, 200.25);
  EXPECT_TRUE(same_bits(a.first, b.first) && same_bits(a.second, b.second));
  const auto w = gal->pixel_to_world(100.5, 200.25);
  const auto j = gal->world_to_j2000(w.first, w.second);
  EXPECT_TRUE(same_bits(a.first, j.first) && same_bits(a.second, j.second));
}
