// SExtractor configuration: defaults, file + overrides, warnings and errors, .conv filters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "celeris/error.hpp"
#include "celeris/extract_settings.hpp"
#include "extract/sextractor/summary_cards.hpp"

using namespace celeris::extract;

TEST(Settings, DefaultsAreSExtractors) {
  const Settings s = parse_settings("", {});
  EXPECT_DOUBLE_EQ(s.config.detect_thresh, 1.5);
  EXPECT_EQ(s.config.detect_minarea, 5);
  EXPECT_EQ(s.config.deblend_nthresh, 32);
  EXPECT_DOUBLE_EQ(s.config.deblend_mincont, 0.005);
  EXPECT_EQ(s.config.back_width, 64);
  EXPECT_EQ(s.catalog_type, CatalogType::AsciiHead);
  EXPECT_EQ(s.catalog_name, "test.cat");
}

TEST(Settings, FileThenOverridesWithLists) {
  const std::string text =
      "# comment\nDETECT_THRESH 3.0   # sigma\nBACK_SIZE 32,48\nPHOT_APERTURES 3, 5 ,8\n"
      "PHOT_AUTOPARAMS 2.0,4.0\nCATALOG_TYPE FITS_LDAC\nFILTER N\n";
  const Settings s = parse_settings(text, {{"DETECT_THRESH", "5"}, {"BACK_FILTERSIZE", "5"}});
  EXPECT_DOUBLE_EQ(s.config.detect_thresh, 5.0);
  EXPECT_EQ(s.config.back_width, 32);
  EXPECT_EQ(s.config.back_height, 48);
  EXPECT_EQ(s.config.back_filter_width, 5);
  EXPECT_EQ(s.config.back_filter_height, 5);
  ASSERT_EQ(s.config.phot_apertures.size(), 3u);
  EXPECT_DOUBLE_EQ(s.config.phot_apertures[2], 8.0);
  EXPECT_DOUBLE_EQ(s.config.kron_minradius, 4.0);
  EXPECT_EQ(s.catalog_type, CatalogType::FitsLdac);
  EXPECT_FALSE(s.config.filter);
}

TEST(Settings, UnknownKeyWarnsInvalidValueThrowsNamingKey) {
  const Settings s = parse_settings("NOT_A_KEY 3\nSTARNNW_NAME default.nnw\n", {});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("NOT_A_KEY"), std::string::npos);
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"DETECT_THRESH", "abc"},
                                                        {"DETECT_MINAREA", "2.5"},
                                                        {"DEBLEND_NTHRESH", "0"},
                                                        {"DEBLEND_MINCONT", "2"},
                                                        {"CATALOG_TYPE", "XML"},
                                                        {"FILTER", "maybe"},
                                                        {"BACK_SIZE", "1,2,3"},
                                                        {"PHOT_AUTOPARAMS", "2.5"},
                                                        {"MASK_TYPE", "SOMETIMES"},
                                                        {"PHOT_AUTOAPERS", "5"},
                                                        {"PHOT_AUTOAPERS", "5,-1"}}) {
    try {
      parse_settings("", {{key, value}});
      ADD_FAILURE() << key << " " << value << " accepted";
    } catch (const celeris::Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

TEST(Filter, NormalisedBySumOfAbsoluteValues) {
  Config c;
  parse_filter("CONV NORM\n1 2 1\n2 4 2\n1 2 1\n", "t", c);
  EXPECT_EQ(c.filter_width, 3);
  EXPECT_EQ(c.filter_height, 3);
  EXPECT_FLOAT_EQ(c.filter_kernel[4], 4.0f / 16.0f);
  parse_filter("CONV NONORM\n1 2\n3 4\n", "t", c);
  EXPECT_FLOAT_EQ(c.filter_kernel[3], 4.0f);
  parse_filter("CONV NORM\n-1 2 -1\n", "t", c);  // mixed signs: sum of |k| = 4
  EXPECT_FLOAT_EQ(c.filter_kernel[1], 0.5f);
  EXPECT_THROW(parse_filter("CONV NORM\n1 2\n3\n", "t", c), celeris::Error);
  EXPECT_THROW(parse_filter("CONV NORM\n", "t", c), celeris::Error);
  EXPECT_THROW(load_filter("/nonexistent/x.conv", c), celeris::Error);
}

// The SEX* summary cards: 80 characters each, in SExtractor's order, with the run's settings.
TEST(SummaryCards, SettingsAndRunInOrder) {
  Settings s = parse_settings("PHOT_APERTURES 4,9\nBACK_SIZE 32\nFILTER_NAME gauss.conv\n", {});
  celeris::extract::RunInfo info;
  info.global_back = 100.5;
  info.n_detections = 7;
  celeris::extract::RunSummary run;
  run.image_name = "frame.fits";
  run.width = 20;
  run.height = 50;
  run.n_params = 3;
  run.n_objects = 6;
  const auto cards = celeris::extract::summary_cards(s, s.config, info, run);
  std::vector<std::string> keys;
  for (const auto& c : cards) {
    EXPECT_EQ(c.size(), 80u) << c;
    keys.push_back(c.substr(0, 8));
  }
  auto value = [&](const std::string& key) {
    for (const auto& c : cards)
      if (c.rfind(key, 0) == 0) return c.substr(10, 20);
    return std::string("absent");
  };
  EXPECT_EQ(keys.front(), "FITSFILE");
  EXPECT_EQ(keys.back(), "SEXFBUFS");
  EXPECT_LT(std::find(keys.begin(), keys.end(), "SEXBKGND"),
            std::find(keys.begin(), keys.end(), "SEXAPED1"));
  EXPECT_EQ(std::stod(value("SEXAPED1")), 4.0);
  EXPECT_EQ(std::stod(value("SEXAPED2")), 9.0);
  EXPECT_EQ(std::stod(value("SEXAPED3")), 0.0);
  EXPECT_EQ(std::stod(value("SEXBKGSX")), 20.0);  // the mesh, clipped to the image width
  EXPECT_EQ(std::stod(value("SEXBKGSY")), 32.0);
  EXPECT_EQ(std::stod(value("SEXBKGFX")), 1.0);  // one mesh across: no filtering along x
  EXPECT_EQ(std::stod(value("SEXBKGFY")), 3.0);
  EXPECT_EQ(std::stod(value("SEXBKGND")), 100.5);
  EXPECT_EQ(std::stod(value("SEXNDET")), 7.0);
  EXPECT_EQ(std::stod(value("SEXNFIN")), 6.0);
  EXPECT_EQ(std::stod(value("SEXNPARA")), 3.0);
  EXPECT_NE(value("SEXFILTN").find("'gauss.conv'"), std::string::npos);
  EXPECT_NE(value("SEXFLTR").find('T'), std::string::npos);
}
