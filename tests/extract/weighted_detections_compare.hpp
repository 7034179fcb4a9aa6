// Bit-for-bit comparisons of the weighted detection tests (gpu_weighted_detection_test.cpp,
// gpu_weighted_front_end_test.cpp): vectors and images by their bytes, and two weighted
// detection lists column by column, each pixel's variance and threshold included.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "celeris/image.hpp"
#include "extract/objects.hpp"

namespace celeris::extract::testing {

template <class T, class A>
bool same_bits(const std::vector<T, A>& a, const std::vector<T, A>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

inline bool same_bits(ImageView<const float> a, ImageView<const float> b) {
  return a.width == b.width && a.height == b.height && a.data && b.data &&
         std::memcmp(a.data, b.data, static_cast<size_t>(a.size()) * sizeof(float)) == 0;
}

// Every column of `got` is `want`'s (at least `least` objects, so that the case is not empty).
inline void expect_same_detections(const ObjectList& want, const ObjectList& got, size_t least,
                                   const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  EXPECT_GT(want.size(), least) << what;
  EXPECT_EQ(want.offset, got.offset) << what;
  EXPECT_TRUE(same_bits(want.x, got.x)) << what;
  EXPECT_TRUE(same_bits(want.y, got.y)) << what;
  EXPECT_TRUE(same_bits(want.value, got.value)) << what;
  EXPECT_TRUE(same_bits(want.cvalue, got.cvalue)) << what;
  EXPECT_TRUE(got.pixel_weights) << what;
  EXPECT_TRUE(same_bits(want.var, got.var)) << what;
  EXPECT_TRUE(same_bits(want.dthresh, got.dthresh)) << what;
  EXPECT_EQ(want.flags, got.flags) << what;
}

}  // namespace celeris::extract::testing
