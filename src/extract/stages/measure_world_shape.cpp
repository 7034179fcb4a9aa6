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

Jacobian local_jacobian(const Wcs& wcs, double x, double y) {
  Jacobian j;
  double w0[2], wx[2], wy[2];
  try {
    std::tie(w0[0], w0[1]) = wcs.pixel_to_world(x, y);
    std::tie(wx[0], wx[1]) = wcs.pixel_to_world(x + 1.0, y);
    std::tie(wy[0], wy[1]) = wcs.pixel_to_world(x, y + 1.0);
  } catch (...) {
    return j;  // SExtractor: no Jacobian where the WCS does not map
  }
  if (!std::isfinite(w0[0]) || !std::isfinite(wx[0]) || !std::isfinite(wy[0])) return j;
  auto dlng = [&](double d) {
    if (d > 180.0)
      d -= 360.0;
    else if (d < -180.0)
      d += 360.0;
    return d * std::cos(w0[1] * kDeg);
  };
  j.lm0 = dlng(wx[0] - w0[0]);
  j.lm1 = dlng(wy[0] - w0[0]);
  j.lm2 = wx[1] - w0[1];
  j.lm3 = wy[1] - w0[1];
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
  // East of north (longitude first): from the stored float THETA_WORLD, as SExtractor.
  w.theta_sky = static_cast<float>(fmod_m90_p90((w.theta > 0.0 ? 90 : -90.0) - w.theta));
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

bool needs_longitude_first(const std::string& n) {
  return uses_world_jacobian(n) || (n.size() > 4 && n.compare(n.size() - 4, 4, "_SKY") == 0) ||
         n == "X_MAMA" || n == "Y_MAMA";
}

bool uses_j2000_rotation(const std::string& n) {
  return contains(n, "THETA") && contains(n, "_J2000");
}

}  // namespace celeris::extract
