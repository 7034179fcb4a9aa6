// make_catalog runs its WCS conversions and fills its columns on several threads (one copy of the
// WCS per thread): the catalog must be the one a single thread makes, bit for bit, and its world
// coordinates those of Wcs::pixel_to_world / pixel_to_j2000 called object by object.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/fits.hpp"
#include "celeris/simulate.hpp"
#include "celeris/wcs.hpp"
#include "extract/settings/parameters.hpp"

using namespace celeris;

namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST(CatalogThreads, SameCatalogOnOneAndOnFourThreads) {
  sim::ImageParams p;
  p.width = p.height = 1024;
  p.n_stars = 6000;  // a crowded field: more blocks of 512 WCS conversions than threads
  p.seed = 3;
  const sim::SimulatedImage s = sim::simulate_image(p);
  const auto wcs = Wcs::from_header(FitsHeader(s.header_cards));
  ASSERT_TRUE(wcs);
  extract::Config config;
  extract::MeasureRequest req;
  req.windowed = true;
  const extract::Result r = extract::extract(s.pixels.view(), config, req);
  ASSERT_GT(r.objects.size(), 4u * 512u);
  std::vector<std::string> warnings;
  const auto params = extract::parse_parameter_list(
      "NUMBER\nX_IMAGE\nY_IMAGE\nFLUX_AUTO\nMAG_AUTO\nFLAGS\nX_WORLD\nY_WORLD\nALPHA_J2000\n"
      "DELTA_J2000\nXPEAK_WORLD\nALPHAPEAK_J2000\nDELTAPEAK_J2000\nXWIN_WORLD\nALPHAWIN_J2000\n"
      "DELTAWIN_J2000\nA_WORLD\nTHETA_J2000\nERRTHETA_WORLD\nAWIN_WORLD\nX_MAMA\nY_MAMA\n"
      "X_FOCAL\nPOLAR_WORLD\nALPHA_B1950\nTHETA_B1950\n",
      "test", warnings);
  config.threads = 1;
  const Table one = extract::make_catalog(r.objects, params, config, wcs);
  config.threads = 4;
  const Table four = extract::make_catalog(r.objects, params, config, wcs);
  ASSERT_EQ(one.rows, r.objects.size());
  ASSERT_EQ(one.columns.size(), params.size());
  ASSERT_EQ(four.columns.size(), params.size());
  for (size_t c = 0; c < params.size(); ++c) {
    EXPECT_EQ(one.columns[c].name, four.columns[c].name);
    EXPECT_TRUE(same_bits(one.columns[c].values, four.columns[c].values)) << one.columns[c].name;
  }
  // The world coordinates as converted one object at a time (the code before the batches).
  const Column* xw = four.find("X_WORLD");
  const Column* ra = four.find("ALPHA_J2000");
  const Column* dec = four.find("DELTA_J2000");
  const Column* mama = four.find("Y_MAMA");
  ASSERT_TRUE(xw && ra && dec && mama);
  std::vector<double> x_ref, ra_ref, dec_ref, mama_ref;
  for (size_t i = 0; i < r.objects.size(); ++i) {
    const double x = r.objects.x[i] + 1, y = r.objects.y[i] + 1;
    x_ref.push_back(wcs->pixel_to_world(x, y).first);
    const auto [a, d] = wcs->pixel_to_j2000(x, y);
    ra_ref.push_back(a), dec_ref.push_back(d);
    mama_ref.push_back(wcs->pixel_to_world(x - 0.5, y - 0.5).first * (3.3e-5 + 1.0));
  }
  EXPECT_TRUE(same_bits(xw->values, x_ref));
  EXPECT_TRUE(same_bits(ra->values, ra_ref));
  EXPECT_TRUE(same_bits(dec->values, dec_ref));
  EXPECT_TRUE(same_bits(mama->values, mama_ref));
}
