// The deblending tests' comparison of two stages' results: every column of the objects, their
// offsets, the parents and the draws (gtest expectations, `what` naming the case).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "extract/stages/deblend.hpp"

namespace celeris::extract::test {

inline void expect_same_deblended(const Deblended& got, const Deblended& want,
                                  const std::string& what) {
  EXPECT_EQ(got.draws, want.draws) << what;
  EXPECT_EQ(got.parent, want.parent) << what;
  EXPECT_EQ(got.objects.offset, want.objects.offset) << what;
  EXPECT_EQ(got.objects.x, want.objects.x) << what;
  EXPECT_EQ(got.objects.y, want.objects.y) << what;
  EXPECT_EQ(got.objects.value, want.objects.value) << what;
  EXPECT_EQ(got.objects.cvalue, want.objects.cvalue) << what;
  EXPECT_EQ(got.objects.var, want.objects.var) << what;
  EXPECT_EQ(got.objects.dthresh, want.objects.dthresh) << what;
  EXPECT_EQ(got.objects.flags, want.objects.flags) << what;
  EXPECT_EQ(got.objects.fixed_centre, want.objects.fixed_centre) << what;
  EXPECT_EQ(got.objects.cx, want.objects.cx) << what;
  EXPECT_EQ(got.objects.cy, want.objects.cy) << what;
}

}  // namespace celeris::extract::test
