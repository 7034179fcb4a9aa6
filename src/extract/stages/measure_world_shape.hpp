// Shapes and position errors in world coordinates (SExtractor astrom.c astrom_shapeparam and
// astrom_errparam): the pixel moments mapped through the local Jacobian of the WCS, which
// SExtractor takes by finite differences of one pixel (fitswcs.c wcs_jacobian).
#pragma once

#include "celeris/wcs.hpp"

namespace celeris::extract {

// d(world)/d(pixel) at a 1-based pixel position, longitude differences folded into +-180 deg
// and multiplied by cos(latitude). ok = false where the WCS does not map.
struct Jacobian {
  double lm0 = 0, lm1 = 0, lm2 = 0, lm3 = 0;  // dlng/dx, dlng/dy, dlat/dx, dlat/dy
  bool ok = false;
};
Jacobian local_jacobian(const Wcs& wcs, double x, double y);

struct WorldShape {
  double x2 = 0, y2 = 0, xy = 0;    // X2_WORLD ... (deg^2)
  float a = 0, b = 0, theta = 0;    // A_WORLD, B_WORLD, THETA_WORLD (deg)
  float cxx = 0, cyy = 0, cxy = 0;  // CXX_WORLD ...
  float theta_sky = 0;              // east of north, native (SExtractor's thetas)
};
// Second moments (pixel^2) mapped to world coordinates, in SExtractor's arithmetic (its cross
// term lm0 lm1 dxy, not 2 lm0 lm1 dxy, included).
WorldShape world_shape(const Jacobian& j, double mx2, double my2, double mxy);

// SExtractor's fold of an angle into [-90, 90].
double fmod_m90_p90(double angle);

}  // namespace celeris::extract
