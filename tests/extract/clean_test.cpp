// CLEAN's profile test (stages/clean.hpp) against its direct form, (float)(amp val^-beta) >
// level with the pow always taken: the shortcut for CLEAN_PARAM 1 must give the same answer
// everywhere, including where amp / val lies at the float rounding boundary above the level, and
// for a level of 0 (or -0, or subnormal) near the float's smallest values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "extract/stages/clean.hpp"

using namespace celeris::extract;

namespace {

bool direct(double amp, double val, double beta, float level) {
  return val > 1.0 && static_cast<float>(val < 1e10 ? amp * std::pow(val, -beta) : 0.0) > level;
}

TEST(Clean, ProfileAboveEqualsTheDirectTest) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  long near_boundary = 0, trials = 0;
  for (int trial = 0; trial < 2000000; ++trial) {
    const double beta = trial % 5 == 0 ? 0.5 + 2 * u(rng) : 1.0;
    const double amp = std::pow(10.0, -3 + 9 * u(rng));
    float level = static_cast<float>(std::pow(10.0, -3 + 7 * u(rng)));
    double val = 1 + std::pow(10.0, -8 + 12 * u(rng));
    if (trial % 3 == 0) {
      // amp / val at the rounding boundary just above the level, give or take a few ulps.
      const double up = (static_cast<double>(level) +
                         std::nextafter(level, std::numeric_limits<float>::infinity())) /
                        2;
      val = amp / up;
      for (int k = static_cast<int>(rng() % 7) - 3; k != 0; k += k > 0 ? -1 : 1)
        val = std::nextafter(val, k > 0 ? 2 * val : 0.0);
      if (!(val > 1.0)) continue;
      ++near_boundary;
    }
    if (trial % 997 == 0) level = -level;
    if (trial % 991 == 0) level = 0.0f;
    if (trial % 983 == 0) level = std::numeric_limits<float>::max();
    if (trial % 977 == 0) val = 1.0;
    if (trial % 971 == 0) val = 2e10;
    if (trial % 967 == 0) val = std::numeric_limits<double>::quiet_NaN();
    ++trials;
    ASSERT_EQ(clean_profile_above(amp, val, beta, level), direct(amp, val, beta, level))
        << "amp " << amp << " val " << val << " beta " << beta << " level " << level;
  }
  EXPECT_GT(near_boundary, 300000);
  EXPECT_GT(trials, 1600000);
}

// A CLEAN threshold of 0 (1% of a dense frame's pairs), -0, or a subnormal one: the profile is
// above it wherever amp val^-beta rounds to a float above it; amp / val around the float's
// smallest values.
TEST(Clean, ProfileAboveALevelOfZeroEqualsTheDirectTest) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  long above = 0, below = 0;
  for (int trial = 0; trial < 1000000; ++trial) {
    const double beta = trial % 7 == 0 ? 0.5 + 2 * u(rng) : 1.0;
    const double val = 1 + std::pow(10.0, -6 + 12 * u(rng));
    // amp / val from 1e-48 to 1e-42, and now and then an ordinary or a huge quotient.
    double amp = val * std::pow(10.0, -48 + 6 * u(rng));
    if (trial % 101 == 0) amp = val * std::pow(10.0, -3 + 6 * u(rng));
    if (trial % 103 == 0) amp = std::numeric_limits<double>::max();
    if (trial % 107 == 0) amp = -amp;
    // Mostly 0; now and then -0, or 1 to 1000 times the smallest float.
    float level = 0.0f;
    if (trial % 13 == 0) level = -0.0f;
    if (trial % 5 == 0)
      level = static_cast<float>(1 + rng() % 1000) * std::numeric_limits<float>::denorm_min();
    const bool want = direct(amp, val, beta, level);
    ASSERT_EQ(clean_profile_above(amp, val, beta, level), want)
        << "amp " << amp << " val " << val << " beta " << beta << " level " << level;
    (want ? above : below)++;
  }
  EXPECT_GT(above, 200000);
  EXPECT_GT(below, 200000);
}

}  // namespace
