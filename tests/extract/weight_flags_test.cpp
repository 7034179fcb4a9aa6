// FLAGS_WEIGHT (measure_weight_flags.hpp) on hand-made maps: the measurement variance at the
// object's own pixels (bit 1), the detection variance at a pixel or its 8 neighbours inside the
// image (bit 2), the pixel counts, and scan.c's cap on the detection threshold.
#include <gtest/gtest.h>

#include "extract/stages/measure_weight_flags.hpp"

namespace celeris::extract {
namespace {

TEST(WeightFlags, OwnPixelsAndDetectionNeighbours) {
  Image<float> var(5, 4, 1.0f), dvar(5, 4, 1.0f);
  var(0, 0) = 10.0f;   // at object 0's pixel
  dvar(3, 3) = 10.0f;  // diagonal neighbour of object 1's pixel (4, 2)... not of (2, 0)
  ObjectList objects;
  objects.append(ObjectList::of({{0, 0, 1.0f, 1.0f}, {1, 0, 1.0f, 1.0f}}));
  objects.append(ObjectList::of({{4, 2, 1.0f, 1.0f}, {2, 0, 1.0f, 1.0f}, {4, 3, 1.0f, 1.0f}}));
  Objects out;
  weight_flags(objects, {1, 0}, var.view(), 10.0f, dvar.view(), 10.0f, out);
  ASSERT_EQ(out.flags_weight.size(), 2u);
  EXPECT_EQ(out.flags_weight[0], kLowDWeight);  // output 0 is object 1
  EXPECT_EQ(out.nlowdweight[0], 2);             // (4, 2) and (4, 3) touch (3, 3)
  EXPECT_EQ(out.nlowweight[0], 0);
  EXPECT_EQ(out.flags_weight[1], kLowWeight);
  EXPECT_EQ(out.nlowweight[1], 1);
  weight_flags(objects, {0}, var.view(), 10.5f, dvar.view(), 9.0f, out);  // thresholds: >=
  EXPECT_EQ(out.flags_weight[0], 0);
}

TEST(WeightFlags, DetectionThresholdCappedAsScanDoes) {
  EXPECT_EQ(capped_detection_wthresh(1e30f), 1e26f);
  EXPECT_EQ(capped_detection_wthresh(5.0f), 5.0f);
}

}  // namespace
}  // namespace celeris::extract
