// core/cr_math.hpp's correctly rounded exp and log of float arguments: arguments where glibc's
// expf and log are not correctly rounded (found by bench/extract/libm_rounding.cpp), with the
// results worked out to 60 digits with Python's decimal module; and, where GCC's libquadmath is
// there, 200,000 random arguments against __float128 references (the whole range is
// libm_rounding's, bench/results/libm-rounding-2026-11-29.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "core/cr_math.hpp"

#ifdef CELERIS_TEST_QUADMATH
#include <quadmath.h>
#endif

using celeris::crmath::cr_expf;
using celeris::crmath::cr_log_of_float;

TEST(CrMath, ExpWhereGlibcIsNotCorrectlyRounded) {
  // exp(x) rounded to float; glibc 2.36 gives the other neighbour of each.
  EXPECT_EQ(cr_expf(0x1.0258a6p+0f), 0x1.5f24c6p+1f);   // glibc 0x1.5f24c8p+1
  EXPECT_EQ(cr_expf(0x1.fefe02p-16f), 0x1.0001fep+0f);  // glibc 0x1.0002p+0
  EXPECT_EQ(cr_expf(-0x1.00033cp+0f), 0x1.78b0ap-2f);   // glibc 0x1.78b0a2p-2
  EXPECT_EQ(cr_expf(0x1.0024a4p+0f), 0x1.5c2278p+1f);   // glibc 0x1.5c227ap+1
  EXPECT_EQ(cr_expf(0.0f), 1.0f);
  EXPECT_EQ(cr_expf(1.0f), 0x1.5bf0a8p+1f);
  EXPECT_EQ(cr_expf(-69.9f), 0x1.1d2848p-101f);
}

TEST(CrMath, LogWhereGlibcIsNotCorrectlyRounded) {
  bool certain = false;
  // log(double(x)) rounded to double; glibc 2.36 gives the other neighbour.
  EXPECT_EQ(cr_log_of_float(0x1.06a012p-10f, certain), -0x1.b9fa9c435c5b4p+2);  // glibc ...5b3
  EXPECT_TRUE(certain);
  EXPECT_EQ(cr_log_of_float(1.0f, certain), 0.0);
  EXPECT_EQ(cr_log_of_float(2.0f, certain), 0x1.62e42fefa39efp-1);
  EXPECT_EQ(cr_log_of_float(0x1p-149f, certain), -0x1.9d1d9fccf477p+6);  // the least subnormal
  EXPECT_EQ(cr_log_of_float(0x1.fffffep+127f, certain), 0x1.62e42feba39efp+6);
}

#ifdef CELERIS_TEST_QUADMATH
TEST(CrMath, RandomArgumentsAgainstQuadPrecision) {
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> span(-87.0f, 87.0f);
  std::uniform_int_distribution<uint32_t> positive(1, 0x7f7fffffu);  // every positive float
  for (int k = 0; k < 200000; ++k) {
    const float x = span(rng);
    ASSERT_EQ(cr_expf(x), static_cast<float>(expq(static_cast<__float128>(x)))) << x;
    const uint32_t b = positive(rng);
    float y;
    std::memcpy(&y, &b, sizeof y);
    bool certain = false;
    ASSERT_EQ(cr_log_of_float(y, certain), static_cast<double>(logq(static_cast<__float128>(y))))
        << y;
    ASSERT_TRUE(certain) << y;
  }
}
#endif
