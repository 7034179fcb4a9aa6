// A .param file listing a parameter more than once: SExtractor 2.25 (catout.c readcatparams)
// writes one column, where the name was first listed, with the vector sizes of its last listing
// (checked on source-extractor: FLUX_APER(2) ... FLUX_APER(4) prints a 4-element FLUX_APER in
// the second column; the parity ctest extract.parity.sim_border_params_listed_twice).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "extract/settings/parameters.hpp"

namespace {

using celeris::extract::parse_parameter_list;
using celeris::extract::RequestedParam;

std::vector<RequestedParam> parse(const std::string& text) {
  std::vector<std::string> warnings;
  auto out = parse_parameter_list(text, "test.param", warnings);
  EXPECT_TRUE(warnings.empty());
  return out;
}

}  // namespace

TEST(ParamList, VectorListedTwiceKeepsFirstPlaceAndLastSize) {
  for (const auto& [text, size] :
       {std::pair<std::string, int>{"FLUX_APER(2)\nX_IMAGE\nFLUX_APER(4)\n", 4},
        {"FLUX_APER(4)\nX_IMAGE\nFLUX_APER(2)\n", 2},
        {"FLUX_APER(4)\nX_IMAGE\nFLUX_APER(3)\nFLUX_APER(2)\n", 2}}) {
    const auto p = parse(text);
    ASSERT_EQ(p.size(), 2u) << text;
    EXPECT_STREQ(p[0].spec->name, "FLUX_APER") << text;
    EXPECT_EQ(p[0].size, size) << text;
    EXPECT_STREQ(p[1].spec->name, "X_IMAGE") << text;
  }
}

TEST(ParamList, VectorListedAgainWithoutSizeIsBackToOne) {
  const auto p = parse("FLUXERR_APER(3)\nNUMBER\nFLUXERR_APER\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].size, 1);
}

TEST(ParamList, VignetListedTwiceTakesBothSizesOfTheLast) {
  const auto p = parse("VIGNET(5,5)\nNUMBER\nVIGNET(7,3)\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].width, 7);
  EXPECT_EQ(p[0].height, 3);
  EXPECT_EQ(p[0].size, 21);
}

TEST(ParamList, VignetShiftTakesItsOwnTwoSizes) {
  const auto p = parse("VIGNET(5,5)\nVIGNET_SHIFT(9,7)\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_STREQ(p[1].spec->name, "VIGNET_SHIFT");
  EXPECT_EQ(p[1].width, 9);
  EXPECT_EQ(p[1].height, 7);
  EXPECT_EQ(p[1].size, 63);
  EXPECT_EQ(p[0].size, 25);
  EXPECT_THROW(parse("VIGNET_SHIFT(9)\n"), celeris::Error);
}

TEST(ParamList, ScalarListedTwiceIsOneColumn) {
  const auto p = parse("NUMBER\nFLUX_ISO\nNUMBER\nFLUX_ISO(3)\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].size, 1);
  EXPECT_EQ(p[1].size, 1);
}

TEST(ParamList, RequestedAperturesFollowTheLastSize) {
  const auto p = parse("FLUX_APER(4)\nFLUX_APER(1)\n");
  EXPECT_EQ(celeris::extract::requested_apertures(p, 5), 1);
}
