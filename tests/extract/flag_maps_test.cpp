// Flag-map combination (measure_flag_maps.hpp) against hand-worked pixel lists, for every
// FLAG_TYPE, the cleaning merge rules, and the conversion of a read map.
#include <gtest/gtest.h>

#include <cmath>

#include "celeris/error.hpp"
#include "extract/stages/measure_flag_maps.hpp"

namespace celeris::extract {
namespace {

// A 4 x 1 map holding `values`, and the object covering its pixels in the order `xs`.
struct Case {
  Image<uint32_t> map;
  std::vector<Pixel> pixels;
  Case(std::vector<uint32_t> values, std::vector<int> xs)
      : map(static_cast<int64_t>(values.size()), 1, 0u) {
    for (size_t i = 0; i < values.size(); ++i) map(static_cast<int64_t>(i), 0) = values[i];
    for (int x : xs) pixels.push_back({x, 0, 1.0f, 1.0f});
  }
  ImageFlags get(FlagType t) const {
    const ObjectList object = ObjectList::of(pixels);
    return combine_flags(object[0], map.view(), t);
  }
};

TEST(FlagMaps, EachTypeOverAnObject) {
  const Case c({0, 4, 1, 4, 0, 2}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(c.get(FlagType::Or).flags, 7u);
  EXPECT_EQ(c.get(FlagType::Or).count, 4);  // non-zero pixels
  EXPECT_EQ(c.get(FlagType::Min).flags, 1u);
  EXPECT_EQ(c.get(FlagType::Min).count, 1);
  EXPECT_EQ(c.get(FlagType::Max).flags, 4u);
  EXPECT_EQ(c.get(FlagType::Max).count, 2);
  EXPECT_EQ(c.get(FlagType::Most).flags, 4u);
  EXPECT_EQ(c.get(FlagType::Most).count, 2);
  // SExtractor's AND starts from 0: always 0, but the flagged pixels are counted.
  EXPECT_EQ(c.get(FlagType::And).flags, 0u);
  EXPECT_EQ(c.get(FlagType::And).count, 4);
  // No flagged pixel: 0 and 0 for every type (MIN's UINT_MAX start is reset).
  const Case none({0, 0}, {0, 1});
  for (FlagType t : {FlagType::Or, FlagType::And, FlagType::Min, FlagType::Max, FlagType::Most}) {
    EXPECT_EQ(none.get(t).flags, 0u);
    EXPECT_EQ(none.get(t).count, 0);
  }
}

TEST(FlagMaps, MostPrefersTheFirstValueMetAmongEquals) {
  EXPECT_EQ(Case({8, 2, 8, 2}, {0, 1, 2, 3}).get(FlagType::Most).flags, 8u);
  EXPECT_EQ(Case({8, 2, 8, 2}, {1, 0, 3, 2}).get(FlagType::Most).flags, 2u);
}

TEST(FlagMaps, MergeRules) {
  ImageFlags m{4, 2};
  merge_flags(m, {1, 3}, FlagType::Or);
  EXPECT_EQ(m.flags, 5u);
  EXPECT_EQ(m.count, 5);
  m = {4, 2};
  merge_flags(m, {1, 3}, FlagType::Min);  // smaller value: taken with its count
  EXPECT_EQ(m.flags, 1u);
  EXPECT_EQ(m.count, 3);
  merge_flags(m, {1, 2}, FlagType::Min);  // same value: counts add
  EXPECT_EQ(m.count, 5);
  m = {4, 2};
  merge_flags(m, {1, 3}, FlagType::Max);
  EXPECT_EQ(m.flags, 4u);
  EXPECT_EQ(m.count, 2);
  merge_flags(m, {1, 3}, FlagType::Most);  // more frequent: taken
  EXPECT_EQ(m.flags, 1u);
  EXPECT_EQ(m.count, 3);
  merge_flags(m, {9, 3}, FlagType::Most);  // as frequent: kept
  EXPECT_EQ(m.flags, 1u);
}

TEST(FlagMaps, ReadMapMustHoldSmallNonNegativeIntegers) {
  Image<float> ok(3, 2, 0.0f);
  ok(2, 1) = 16777216.0f;
  EXPECT_EQ(flag_map_from_pixels(ok.view(), 3, 2, "f.fits")(2, 1), 16777216u);
  EXPECT_THROW(flag_map_from_pixels(ok.view(), 2, 3, "f.fits"), Error);  // size
  for (float bad : {-1.0f, 1.5f, NAN, 33554432.0f}) {
    Image<float> b(3, 2, 0.0f);
    b(1, 1) = bad;
    EXPECT_THROW(flag_map_from_pixels(b.view(), 3, 2, "f.fits"), Error) << bad;
  }
}

}  // namespace
}  // namespace celeris::extract
