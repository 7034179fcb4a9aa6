// World-coordinate shapes (measure_world_shape.hpp) for Jacobians worked by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "extract/stages/measure_world_shape.hpp"

namespace celeris::extract {
namespace {

TEST(WorldShape, ScaledAxesAndAngles) {
  // North up, east left, s deg per pixel: an ellipse 2 x 1 px along x.
  const double s = 1e-4;
  Jacobian j;
  j.lm0 = -s;
  j.lm3 = s;
  j.ok = true;
  WorldShape w = world_shape(j, 4.0, 1.0, 0.0);
  EXPECT_NEAR(w.x2, 4 * s * s, 1e-20);
  EXPECT_NEAR(w.y2, s * s, 1e-20);
  EXPECT_FLOAT_EQ(w.a, static_cast<float>(2 * s));
  EXPECT_FLOAT_EQ(w.b, static_cast<float>(s));
  EXPECT_FLOAT_EQ(w.theta, 0.0f);
  EXPECT_FLOAT_EQ(w.theta_sky, 90.0f);  // the major axis east-west: 90 deg east of north
  // SExtractor clamps the determinant to 1e-6 (meant for a singularity; in deg^4 it always
  // applies at these scales): CXX_WORLD = Y2_WORLD / 1e-6.
  EXPECT_FLOAT_EQ(w.cxx, static_cast<float>(s * s / 1e-6));
  // At degree-sized pixels the determinant (4) is not clamped: CXX = Y2 / det.
  Jacobian big = j;
  big.lm0 = -1.0;
  big.lm3 = 1.0;
  EXPECT_FLOAT_EQ(world_shape(big, 4.0, 1.0, 0.0).cxx, 0.25f);
  // Elongated along y (north-south): THETA_WORLD 90, east of north 0.
  w = world_shape(j, 1.0, 4.0, 0.0);
  EXPECT_NEAR(std::fabs(w.theta), 90.0f, 1e-4);
  EXPECT_NEAR(w.theta_sky, 0.0f, 1e-4);
}

TEST(WorldShape, AngleFold) {
  EXPECT_DOUBLE_EQ(fmod_m90_p90(100.0), -80.0);
  EXPECT_DOUBLE_EQ(fmod_m90_p90(-100.0), 80.0);
  EXPECT_DOUBLE_EQ(fmod_m90_p90(45.0), 45.0);
}

}  // namespace
}  // namespace celeris::extract
