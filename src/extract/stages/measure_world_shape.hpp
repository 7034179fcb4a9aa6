// Shapes and position errors in world coordinates (SExtractor astrom.c astrom_shapeparam and
// astrom_errparam): the pixel moments mapped through the local Jacobian of the WCS, which
// SExtractor takes by finite differences of one pixel (fitswcs.c wcs_jacobian).
#pragma once

#include <string>

#include "celeris/wcs.hpp"
#include "extract/sextractor/world_frame.hpp"

namespace celeris::extract {

// How SExtractor turns THETA*_WORLD into THETA*_SKY (astrom.c): 90 deg minus it on a
// longitude-first frame, itself on a latitude-first one, not at all on a linear frame (0).
enum class SkyAngle { EastOfNorth, AsWorld, None };

// d(world)/d(pixel) at a 1-based pixel position (fitswcs.c wcs_jacobian), longitude
// differences folded into +-180 deg and multiplied by cos(latitude), the four terms picked as
// astrom.c does. ok = false where the WCS does not map.
struct Jacobian {
  // With the longitude first: dlng/dx, dlng/dy, dlat/dx, dlat/dy. With the latitude first
  // (SExtractor indexes pixel axes by lng/lat too): dlng/dy, dlng/dx, dlat/dy, dlat/dx. On a
  // linear frame: the first world axis along x and y, then the second.
  double lm0 = 0, lm1 = 0, lm2 = 0, lm3 = 0;
  SkyAngle sky = SkyAngle::EastOfNorth;
  bool ok = false;
};
Jacobian local_jacobian(const WorldFrame& frame, double x, double y);
// The same from the frame's world coordinates (axis order, WorldFrame::world) at (x, y),
// (x + 1, y) and (x, y + 1), converted beforehand (make_catalog converts them in batches).
Jacobian local_jacobian(const WorldFrame& frame, const double (&w)[3][2]);

struct WorldShape {
  double x2 = 0, y2 = 0, xy = 0;    // X2_WORLD ... (deg^2)
  float a = 0, b = 0, theta = 0;    // A_WORLD, B_WORLD, THETA_WORLD (deg)
  float cxx = 0, cyy = 0, cxy = 0;  // CXX_WORLD ...
  float theta_sky = 0;              // east of north, native (SExtractor's thetas)
  float polar = 0;                  // POLAR_WORLD, (A^2 - B^2) / (A^2 + B^2)
};
// How THETA*_WORLD is folded: SExtractor 2.25 folds every world angle into [-90, 90] except
// ERRTHETAWIN_WORLD, whose astrom_winerrparam applies the fold to the comparison `temp == 0`
// instead of the angle (so an angle of exactly +90 stays +90 there).
enum class ThetaFold { Folded, WinErrUnfolded };
// Second moments (pixel^2) mapped to world coordinates, in SExtractor's arithmetic (its cross
// term lm0 lm1 dxy, not 2 lm0 lm1 dxy, included). The isophotal, windowed and error moments
// all go through here (astrom_shapeparam, astrom_winshapeparam, astrom_errparam,
// astrom_winerrparam are the same transformation).
WorldShape world_shape(const Jacobian& j, double mx2, double my2, double mxy,
                       ThetaFold fold = ThetaFold::Folded);

// SExtractor's rotation from the native frame's north to J2000's north at (alpha, delta) J2000
// (astrom.c astrom_pos, dtheta2000) for an equatorial J2000 frame: 0 up to rounding, which
// SExtractor adds to the stored float angle (the rounding can change its last bit).
double dtheta_j2000(double alpha2000, double delta2000);

// Catalog parameters that map pixel moments through the Jacobian, and those that need the
// rotation to J2000 (an equatorial J2000 frame: run.cpp refuses other celestial frames for
// them), computed by parameters.cpp.
bool uses_world_jacobian(const std::string& name);
bool uses_j2000_rotation(const std::string& name);

// SExtractor's fold of an angle into [-90, 90].
double fmod_m90_p90(double angle);

}  // namespace celeris::extract
