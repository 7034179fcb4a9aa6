#include "extract/stages/measure_world_shape.hpp"

#include <cmath>

#include "extract/sextractor/pi.hpp"

namespace celeris::extract {

namespace {
constexpr double kDeg = kSexPi / 180.0;
}

double fmod_m90_p90(double angle) {
  return angle > 0.0 ? std::fmod(angle + 90.0, 180.0) - 90.0
                     : std::fmod(angle - 90.0, 180.0) + 90.0;
}

Jacobian local_jacobian(const WorldFrame& frame, double x, double y) {
  Jacobian j;
  // World coordinates in axis order at the position and one pixel along each axis
  // (wcs_jacobian): w[0] at (x, y), w[1] at (x + 1, y), w[2] at (x, y + 1).
  double w[3][2];
  try {
    std::tie(w[0][0], w[0][1]) = frame.world(x, y);
    std::tie(w[1][0], w[1][1]) = frame.world(x + 1.0, y);
    std::tie(w[2][0], w[2][1]) = frame.world(x, y + 1.0);
  } catch (...) {
    return j;  // SExtractor: no Jacobian where the WCS does not map
  }
  return local_jacobian(frame, w);
}

Jacobian local_jacobian(const WorldFrame& frame, const double (&w)[3][2]) {
  Jacobian j;
  for (const auto& p : w)
    if (!std::isfinite(p[0]) || !std::isfinite(p[1])) return j;
  const int lng = frame.lng(), lat = frame.lat();
  const bool sky = frame.celestial() != nullptr;
  // d(world axis a) / d(pixel axis i); the longitude's differences folded into +-180 deg and
  // times cos(latitude), on celestial frames only.
  auto d = [&](int a, int i) {
    double v = w[i + 1][a] - w[0][a];
    if (sky && a == lng) {
      if (v > 180.0)
        v -= 360.0;
      else if (v < -180.0)
        v += 360.0;
      v *= std::cos(w[0][lat] * kDeg);
    }
    return v;
  };
  // astrom_shapeparam takes the terms at (lng, lat) of both the world and the pixel axes, so
  // on a latitude-first image its "dlng/dx" is the longitude along the second pixel axis.
  j.lm0 = d(lng, lng);
  j.lm1 = d(lng, lat);
  j.lm2 = d(lat, lng);
  j.lm3 = d(lat, lat);
  j.sky = !sky ? SkyAngle::None : lng < lat ? SkyAngle::EastOfNorth : SkyAngle::AsWorld;
  j.ok = true;
  return j;
}

WorldShape world_shape(const Jacobian& j, double dx2, double dy2, double dxy, ThetaFold fold) {
  WorldShape w;
  const double xm2 = j.lm0 * j.lm0 * dx2 + j.lm1 * j.lm1 * dy2 + j.lm0 * j.lm1 * dxy;
  const double ym2 = j.lm2 * j.lm2 * dx2 + j.lm3 * j.lm3 * dy2 + j.lm2 * j.lm3 * dxy;
  double xym = j.lm0 * j.lm2 * dx2 + j.lm1 * j.lm3 * dy2 + (j.lm0 * j.lm3 + j.lm1 * j.lm2) * dxy;
  w.x2 = xm2;
  w.y2 = ym2;
  w.xy = xym;
  double temp = xm2 - ym2;
  const double theta = temp == 0.0 ? 45.0 : 0.5 * std::atan2(2.0 * xym, temp) / kDeg;
  w.theta = static_cast<float>(fold == ThetaFold::Folded ? fmod_m90_p90(theta) : theta);
  // From the stored float THETA_WORLD, as SExtractor: east of north with the longitude first,
  // the world angle itself with the latitude first, none (0) without a celestial frame.
  if (j.sky == SkyAngle::EastOfNorth)
    w.theta_sky = static_cast<float>(fmod_m90_p90((w.theta > 0.0 ? 90 : -90.0) - w.theta));
  else if (j.sky == SkyAngle::AsWorld)
    w.theta_sky = static_cast<float>(fmod_m90_p90(w.theta));
  temp = std::sqrt(0.25 * temp * temp + xym * xym);
  const double pm2 = 0.5 * (xm2 + ym2);
  w.a = static_cast<float>(std::sqrt(pm2 + temp));
  w.b = static_cast<float>(std::sqrt(pm2 - temp));
  w.polar = static_cast<float>(temp / pm2);
  // Large, fully correlated profiles (a singularity), as SExtractor.
  if ((temp = xm2 * ym2 - xym * xym) < 1e-6) {
    temp = 1e-6;
    xym *= 0.99999;
  }
  w.cxx = static_cast<float>(ym2 / temp);
  w.cyy = static_cast<float>(xm2 / temp);
  w.cxy = static_cast<float>(-2 * xym / temp);
  return w;
}

double dtheta_j2000(double alpha2000, double delta2000) {
  // The J2000 pole seen from the native (here also J2000) frame: at (0, 90) deg.
  const double da = 0.0 - alpha2000;
  double dd = (std::sin(90.0 * kDeg) - std::sin(delta2000 * kDeg) * std::sin(delta2000 * kDeg)) /
              (std::cos(delta2000 * kDeg) * std::cos(delta2000 * kDeg));
  dd = dd < 1.0 ? (dd > -1.0 ? std::acos(dd) / kDeg : 180.0) : 0.0;
  return ((da > 0.0 && da < 180.0) || da < -180.0) ? -dd : dd;
}

namespace {
bool contains(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}
}  // namespace

bool uses_world_jacobian(const std::string& n) {
  // Positions map through the WCS itself, not through its Jacobian.
  static const char* const positions[] = {"X_WORLD",    "Y_WORLD",     "XWIN_WORLD",
                                          "YWIN_WORLD", "XPEAK_WORLD", "YPEAK_WORLD"};
  for (const char* p : positions)
    if (n == p) return false;
  if (n == "FWHM_WORLD" || n == "ISOAREA_WORLD" || n == "ISOAREAF_WORLD") return false;
  return contains(n, "_WORLD") ||
         (contains(n, "THETA") &&
          (contains(n, "_J2000") || contains(n, "_SKY") || contains(n, "_B1950")));
}

bool uses_j2000_rotation(const std::string& n) {
  return contains(n, "THETA") && contains(n, "_J2000");
}

}  // namespace celeris::extract
