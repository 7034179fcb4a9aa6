// World-coordinate shapes (measure_world_shape.hpp) for Jacobians worked by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "extract/sextractor/pi.hpp"
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

TEST(WorldShape, WindowedErrorAngleIsNotFolded) {
  // SExtractor's astrom_winerrparam folds `temp == 0` instead of the angle, so ERRTHETAWIN_WORLD
  // escapes the fold's rounding ((x + 90) - 90 != x): visible on a tiny angle.
  Jacobian j;
  j.lm0 = -1.0;
  j.lm3 = 1.0;
  j.ok = true;
  const double dxy = 3e-12;  // XY_WORLD = -dxy, X2_WORLD - Y2_WORLD = 3
  const double raw = 0.5 * std::atan2(-2.0 * dxy, 3.0) / (kSexPi / 180.0);
  const WorldShape f = world_shape(j, 4.0, 1.0, dxy);
  const WorldShape u = world_shape(j, 4.0, 1.0, dxy, ThetaFold::WinErrUnfolded);
  EXPECT_EQ(u.theta, static_cast<float>(raw));
  EXPECT_EQ(f.theta, static_cast<float>(fmod_m90_p90(raw)));
  EXPECT_NE(f.theta, u.theta);
  EXPECT_NEAR(f.theta, u.theta, 1e-13);
  // The rest is the same transformation.
  EXPECT_EQ(f.a, u.a);
  EXPECT_EQ(f.cxy, u.cxy);
}

TEST(WorldShape, Polarisation) {
  // (A^2 - B^2) / (A^2 + B^2) for A = 2 s, B = s: 3/5, whatever the orientation.
  Jacobian j;
  j.lm0 = -1e-4;
  j.lm3 = 1e-4;
  j.ok = true;
  EXPECT_FLOAT_EQ(world_shape(j, 4.0, 1.0, 0.0).polar, 0.6f);
  EXPECT_FLOAT_EQ(world_shape(j, 2.5, 2.5, 1.5).polar, 0.6f);  // eigenvalues 4 and 1 at 45 deg
  EXPECT_FLOAT_EQ(world_shape(j, 2.0, 2.0, 0.0).polar, 0.0f);
}

TEST(WorldShape, RotationToJ2000IsZeroUpToRounding) {
  EXPECT_EQ(dtheta_j2000(10.0, 0.0), 0.0);  // (1 - 0) / 1 is exactly 1
  // Rounding only, growing as 1/cos(delta) towards the pole (1e-5 deg at 88.9 deg).
  for (double dec : {-89.0, -45.3, -1e-3, 12.5, 60.0, 88.9})
    for (double ra : {0.0, 10.0, 179.0, 181.0, 359.9})
      EXPECT_LT(std::fabs(dtheta_j2000(ra, dec)), 1e-4) << ra << " " << dec;
}

TEST(WorldShape, WhichParametersUseTheJacobianOrTheJ2000Rotation) {
  for (const char* n :
       {"X2_WORLD", "A_WORLD", "THETA_J2000", "THETA_SKY", "ERRTHETA_SKY", "AWIN_WORLD",
        "ERRCXXWIN_WORLD", "THETAWIN_J2000", "ERRTHETAWIN_SKY", "POLAR_WORLD", "POLARWIN_WORLD"})
    EXPECT_TRUE(uses_world_jacobian(n)) << n;
  for (const char* n : {"X_WORLD", "YWIN_WORLD", "XPEAK_WORLD", "FWHM_WORLD", "ISOAREA_WORLD",
                        "ALPHA_J2000", "ALPHA_SKY", "POLAR_IMAGE", "ERRCXXWIN_IMAGE"})
    EXPECT_FALSE(uses_world_jacobian(n)) << n;
  for (const char* n : {"THETA_J2000", "ERRTHETA_J2000", "THETAWIN_J2000", "ERRTHETAWIN_J2000"})
    EXPECT_TRUE(uses_j2000_rotation(n)) << n;
  for (const char* n : {"ALPHA_J2000", "THETA_SKY", "THETA_WORLD"})
    EXPECT_FALSE(uses_j2000_rotation(n)) << n;
}

}  // namespace
}  // namespace celeris::extract
