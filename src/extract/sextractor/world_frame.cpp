#include "extract/sextractor/world_frame.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "celeris/error.hpp"
#include "extract/sextractor/header_read.hpp"

namespace celeris::extract {

using sex_header::axis_key;
using sex_header::find_card;
using sex_header::read_double;

namespace {

// The DSS plate solution's keywords (plate centre, plate scale, pixel size, scan orientation,
// the AMDX/AMDY polynomial): wcspih reads them as a TAN frame with the plate polynomial as a
// distortion; SExtractor's read_wcs reads none of them.
bool is_dss_card(const std::string& card) {
  const std::string key = card.substr(0, std::min<size_t>(8, card.size()));
  for (const char* prefix : {"PLT", "AMDX", "AMDY", "PPO", "CNPIX", "XPIXELSZ", "YPIXELSZ"})
    if (key.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

WorldFrame WorldFrame::from_header(const FitsHeader& header, std::optional<Wcs> wcs) {
  WorldFrame f;
  // A DSS plate solution: the frame SExtractor sees is the header's own WCS without it (a TAN
  // frame from CTYPE/CRVAL/CD on HorseHead; the linear frame on M6707HH, which has no CTYPE).
  std::vector<std::string> plain;
  for (const std::string& c : header.cards())
    if (!is_dss_card(c)) plain.push_back(c);
  if (plain.size() != header.cards().size()) wcs = Wcs::from_header(FitsHeader(std::move(plain)));
  f.wcs_ = std::move(wcs);
  if (f.wcs_) return f;
  // read_wcs() (fitswcs.c), for the two image axes, keys found as SExtractor finds them.
  const auto& cards = header.cards();
  double cdelt[2];
  for (int l = 0; l < 2; ++l) {
    f.crval_[l] = read_double(cards, axis_key("CRVAL", l + 1)).value_or(0.0);
    f.crpix_[l] = read_double(cards, axis_key("CRPIX", l + 1)).value_or(1.0);
    cdelt[l] = read_double(cards, axis_key("CDELT", l + 1)).value_or(1.0);
    if (std::fabs(cdelt[l]) < 1e-30)  // SExtractor stops there too
      throw Error("CDELT" + std::to_string(l + 1) + " out of range in the image header");
  }
  auto matrix = [&](const char* fmt, bool times_cdelt) {
    for (int l = 0; l < 2; ++l)
      for (int j = 0; j < 2; ++j) {
        char key[16];
        std::snprintf(key, sizeof key, fmt, l + 1, j + 1);
        f.cd_[l * 2 + j] = read_double(cards, key).value_or(l == j ? 1.0 : 0.0);
        if (times_cdelt) f.cd_[l * 2 + j] *= cdelt[l];
      }
  };
  if (find_card(cards, "CD?_????"))
    matrix("CD%d_%d", false);
  else if (find_card(cards, "PC?_????"))
    matrix("PC%d_%d", true);
  else if (find_card(cards, "PC0??0??"))
    matrix("PC%03d%03d", true);
  else {                                         // the obsolete CROTA2
    const double deg = 3.1415926535898 / 180.0;  // SExtractor's DEG (its own PI)
    const double rota = read_double(cards, "CROTA2  ").value_or(0.0);
    f.cd_[3] = f.cd_[0] = std::cos(rota * deg);
    f.cd_[1] = -(f.cd_[2] = std::sin(rota * deg));
    f.cd_[0] *= cdelt[0];
    f.cd_[2] *= cdelt[0];
    f.cd_[1] *= cdelt[1];
    f.cd_[3] *= cdelt[1];
  }
  return f;
}

std::pair<double, double> WorldFrame::focal(double x, double y) const {
  if (wcs_) return wcs_->pixel_to_focal(x, y);
  const double p[2] = {x, y};
  double out[2] = {0.0, 0.0};
  for (int j = 0; j < 2; ++j) {  // linrev's loop order
    const double t = p[j] - crpix_[j];
    for (int i = 0; i < 2; ++i) out[i] += cd_[i * 2 + j] * t;
  }
  return {out[0], out[1]};
}

std::pair<double, double> WorldFrame::world(double x, double y) const {
  if (wcs_) {
    const auto [lon, lat] = wcs_->pixel_to_world(x, y);
    return wcs_->latitude_first() ? std::pair(lat, lon) : std::pair(lon, lat);
  }
  const auto [fx, fy] = focal(x, y);
  return {fx + crval_[0], fy + crval_[1]};  // wcsrev: imgcrd + crval
}

std::pair<double, double> WorldFrame::sky(double x, double y) const {
  return wcs_ ? wcs_->pixel_to_world(x, y) : std::pair(0.0, 0.0);
}

std::pair<double, double> WorldFrame::j2000(double x, double y) const {
  return wcs_ ? wcs_->pixel_to_j2000(x, y) : std::pair(0.0, 0.0);
}

void WorldFrame::convert(size_t n, const double* x, const double* y, const Outputs& out) const {
  if (!wcs_) {  // the linear frame: no wcslib call to save
    for (size_t i = 0; i < n; ++i) {
      if (out.world0) std::tie(out.world0[i], out.world1[i]) = world(x[i], y[i]);
      if (out.sky_lon) out.sky_lon[i] = out.sky_lat[i] = 0.0;
      if (out.ra) out.ra[i] = out.dec[i] = 0.0;
    }
    return;
  }
  std::vector<double> lon(n), lat(n);
  wcs_->pixels_to_world(n, x, y, lon.data(), lat.data());
  const bool swap = wcs_->latitude_first();
  for (size_t i = 0; i < n; ++i) {  // as world(), sky() and j2000() from pixel_to_world
    if (out.world0) out.world0[i] = swap ? lat[i] : lon[i], out.world1[i] = swap ? lon[i] : lat[i];
    if (out.sky_lon) out.sky_lon[i] = lon[i], out.sky_lat[i] = lat[i];
    if (out.ra) std::tie(out.ra[i], out.dec[i]) = wcs_->world_to_j2000(lon[i], lat[i]);
  }
}

WorldFrame WorldFrame::independent_copy() const {
  WorldFrame f = *this;
  if (wcs_) f.wcs_ = wcs_->independent_copy();
  return f;
}

}  // namespace celeris::extract
