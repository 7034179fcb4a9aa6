#include "extract/stages/measure_pixel_scale.hpp"

#include <cmath>

#include "celeris/error.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/sextractor/wcs_draws.hpp"

namespace celeris::extract {

namespace {
constexpr double kDeg = kSexPi / 180.0;  // SExtractor's DEG, from its own PI
}

bool uses_local_pixel_area(const std::string& name) {
  return name == "MU_MAX" || name == "MU_THRESHOLD" || name == "FWHM_WORLD" ||
         name == "ISOAREA_WORLD" || name == "ISOAREAF_WORLD" || name == "FWHMPSF_WORLD";
}

bool uses_pixel_scale(const std::string& name) {
  return name == "CLASS_STAR" || uses_local_pixel_area(name);
}

bool wcs_pixel_scale_wanted(const std::vector<RequestedParam>& params, double pixel_scale) {
  if (pixel_scale != 0.0) return false;
  for (const auto& p : params)
    if (uses_pixel_scale(p.spec->name)) return true;
  return false;
}

double field_pixel_scale(const WorldFrame& frame, int width, int height) {
  const double x = (width + 1.0) / 2.0, y = (height + 1.0) / 2.0;
  const auto [w0, w1] = frame.world(x, y);
  const double w[2] = {w0, w1};
  if (!frame.celestial()) {
    // range_wcs on a linear frame: each axis' scale from a step along itself, the last axis'
    // kept as the pixel scale.
    return std::fabs(frame.world(x, y + 1.0).second - w[1]);
  }
  if (!std::isfinite(w[0]) || !std::isfinite(w[1])) return 0.0;
  // wcs_scale: one step along the longitude's pixel axis, one along the latitude's (the pixel
  // axes indexed by lng/lat too), the longitude differences folded into +-180 deg and the
  // determinant times cos(latitude) at the end.
  const int lng = frame.lng(), lat = frame.lat();
  double p1[2] = {x, y}, p2[2] = {x, y};
  p1[lng] += 1.0;
  p2[lat] += 1.0;
  const auto [a0, a1] = frame.world(p1[0], p1[1]);
  const auto [b0, b1] = frame.world(p2[0], p2[1]);
  const double u[2] = {a0, a1}, v[2] = {b0, b1};
  if (!std::isfinite(u[0]) || !std::isfinite(u[1]) || !std::isfinite(v[0]) || !std::isfinite(v[1]))
    return 0.0;
  auto fold = [](double d) { return d > 180.0 ? d - 360.0 : d < -180.0 ? d + 360.0 : d; };
  const double dpos1 = fold(u[lng] - w[lng]), dpos2 = fold(v[lng] - w[lng]);
  return std::sqrt(
      std::fabs((dpos1 * (v[lat] - w[lat]) - (u[lat] - w[lat]) * dpos2) * std::cos(w[lat] * kDeg)));
}

double local_pixel_area(const Jacobian& j) {
  return j.ok ? std::fabs(j.lm0 * j.lm3 - j.lm1 * j.lm2) : -1.0;
}

void check_field_pixel_scale(const FitsHeader& header, const WorldFrame& frame, int width,
                             int height, const std::string& image) {
  const bool moved = sextractor_wcs_rand_draws(header) != 0;
  if (moved || !(field_pixel_scale(frame, width, height) > 0.0))
    throw Error(image +
                ": PIXEL_SCALE 0 takes the pixel scale from the WCS at the image centre, where "
                "SExtractor's WCS code does not map this frame; give PIXEL_SCALE in arcsec");
}

}  // namespace celeris::extract
