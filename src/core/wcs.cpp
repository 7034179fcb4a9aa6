// celeris::Wcs over wcslib (wcspih / wcsp2s / wcss2p).
#include "celeris/wcs.hpp"

#include <wcslib/wcs.h>
#include <wcslib/wcsfix.h>
#include <wcslib/wcshdr.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numbers>
#include <vector>

#include "celeris/error.hpp"

namespace celeris {

namespace {

std::mutex wcslib_mutex;  // wcspih's parser is not re-entrant

constexpr double kDeg = std::numbers::pi / 180.0;

// Rotation from galactic to equatorial J2000 (transpose of the IAU equatorial->galactic matrix).
constexpr double kGalToEq[3][3] = {{-0.0548755604162154, 0.4941094278755837, -0.8676661490190047},
                                   {-0.8734370902348850, -0.4448296299600112, -0.1980763734312015},
                                   {-0.4838350155487132, 0.7469822444972189, 0.4559837761750669}};

std::pair<double, double> rotate(const double m[3][3], double lon, double lat) {
  const double v[3] = {std::cos(lat * kDeg) * std::cos(lon * kDeg),
                       std::cos(lat * kDeg) * std::sin(lon * kDeg), std::sin(lat * kDeg)};
  double r[3];
  for (int i = 0; i < 3; ++i) r[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
  double a = std::atan2(r[1], r[0]) / kDeg;
  if (a < 0) a += 360.0;
  return {a, std::asin(std::clamp(r[2], -1.0, 1.0)) / kDeg};
}

// wcslib's header lexer (flex) loops forever or crashes on bytes outside printable ASCII (a
// 0x80 in place of a closing quote): headers read by read_fits_image were checked already, but a
// FitsHeader may come from anywhere, so the text handed to wcspih is checked here too.
void check_wcs_text(const FitsHeader& header) {
  const auto& cards = header.cards();
  for (size_t i = 0; i < cards.size(); ++i)
    for (size_t c = 0; c < cards[i].size() && c < 80; ++c) {
      const auto u = static_cast<unsigned char>(cards[i][c]);
      if (u < 0x20 || u > 0x7e)
        throw Error("header card " + std::to_string(i + 1) + " (" +
                    printable_excerpt(cards[i].substr(0, 8), 8) + "): byte " +
                    printable_excerpt(cards[i].substr(c, 1)) + " at column " +
                    std::to_string(c + 1) + " is not printable ASCII; WCS not read");
    }
}

}  // namespace

std::optional<Wcs> Wcs::from_header(const FitsHeader& header) {
  check_wcs_text(header);
  std::string text = header.concatenated();
  const int ncards = static_cast<int>(text.size() / 80);
  int nreject = 0, nwcs = 0;
  wcsprm* all = nullptr;
  {
    std::lock_guard lock(wcslib_mutex);
    if (wcspih(text.data(), ncards, WCSHDR_all, 0, &nreject, &nwcs, &all) != 0 || nwcs == 0) {
      if (all) wcsvfree(&nwcs, &all);
      return std::nullopt;
    }
  }
  // Keep the primary description (alternate ' ').
  auto* w = static_cast<wcsprm*>(std::calloc(1, sizeof(wcsprm)));
  w->flag = -1;
  wcssub(1, all, nullptr, nullptr, w);
  wcsvfree(&nwcs, &all);
  auto deleter = [](wcsprm* p) {
    wcsfree(p);
    std::free(p);
  };
  std::shared_ptr<wcsprm> owned(w, deleter);
  int stat[NWCSFIX];
  wcsfix(7, nullptr, w, stat);  // repair common non-standard headers (e.g. -TAN with SIP)
  if (wcsset(w) != 0) throw Error("invalid WCS in header: " + std::string(wcs_errmsg[1]));
  if (w->lng < 0 || w->lat < 0) return std::nullopt;  // not celestial

  Wcs out;
  out.wcs_ = owned;
  out.lng_ = w->lng;
  out.lat_ = w->lat;
  const std::string ctype(w->ctype[w->lng], 4);
  if (ctype == "RA--" || ctype == "RA-")
    out.system_ = System::Equatorial;
  else if (ctype == "GLON")
    out.system_ = System::Galactic;
  else if (ctype == "ELON")
    out.system_ = System::Ecliptic;
  else
    out.system_ = std::strncmp(w->ctype[w->lng], "RA", 2) == 0 ? System::Equatorial : System::Other;
  return out;
}

std::pair<double, double> Wcs::pixel_to_world(double x, double y) const {
  const int naxis = wcs_->naxis;
  std::vector<double> pix(naxis, 1.0), img(naxis), world(naxis);
  pix[0] = x;
  pix[1] = y;
  double phi = 0, theta = 0;
  int stat = 0;
  if (wcsp2s(wcs_.get(), 1, naxis, pix.data(), img.data(), &phi, &theta, world.data(), &stat))
    return {std::nan(""), std::nan("")};
  return {world[lng_], world[lat_]};
}

void Wcs::pixels_to_world(size_t n, const double* x, const double* y, double* lon,
                          double* lat) const {
  if (n == 0) return;
  const int naxis = wcs_->naxis;
  std::vector<double> pix(n * naxis, 1.0), img(n * naxis), world(n * naxis), phi(n), theta(n);
  std::vector<int> stat(n, 0);
  for (size_t i = 0; i < n; ++i) pix[i * naxis] = x[i], pix[i * naxis + 1] = y[i];
  const int status = wcsp2s(wcs_.get(), static_cast<int>(n), naxis, pix.data(), img.data(),
                            phi.data(), theta.data(), world.data(), stat.data());
  // Status 8 (WCSERR_BAD_PIX) marks the points that do not map in stat; any other failure is
  // one of the whole call, as it would be of every single-point call.
  for (size_t i = 0; i < n; ++i) {
    const bool bad = status != 0 && (status != WCSERR_BAD_PIX || stat[i] != 0);
    lon[i] = bad ? std::nan("") : world[i * naxis + lng_];
    lat[i] = bad ? std::nan("") : world[i * naxis + lat_];
  }
}

Wcs Wcs::independent_copy() const {
  auto* w = static_cast<wcsprm*>(std::calloc(1, sizeof(wcsprm)));
  if (!w) throw Error("WCS: out of memory copying the WCS");
  w->flag = -1;
  std::shared_ptr<wcsprm> owned(w, [](wcsprm* p) {
    wcsfree(p);
    std::free(p);
  });
  if (wcssub(1, wcs_.get(), nullptr, nullptr, w) != 0 || wcsset(w) != 0)
    throw Error("WCS: cannot copy the WCS for a conversion thread");
  Wcs out = *this;
  out.wcs_ = owned;
  return out;
}

std::pair<double, double> Wcs::pixel_to_j2000(double x, double y) const {
  const auto [lon, lat] = pixel_to_world(x, y);
  return world_to_j2000(lon, lat);
}

std::pair<double, double> Wcs::world_to_j2000(double lon, double lat) const {
  if (system_ == System::Galactic) return rotate(kGalToEq, lon, lat);
  if (system_ == System::Ecliptic) {
    // Mean obliquity of the ecliptic at J2000.
    const double e = 23.4392911 * kDeg;
    const double m[3][3] = {
        {1, 0, 0}, {0, std::cos(e), -std::sin(e)}, {0, std::sin(e), std::cos(e)}};
    return rotate(m, lon, lat);
  }
  return {lon, lat};
}

std::pair<double, double> Wcs::pixel_to_focal(double x, double y) const {
  const wcsprm* w = wcs_.get();
  const int n = w->naxis;
  const double pix[2] = {x, y};
  double out[2] = {0.0, 0.0};
  for (int j = 0; j < 2; ++j) {
    const double t = pix[j] - w->crpix[j];
    for (int i = 0; i < 2; ++i) out[i] += w->cdelt[i] * w->pc[i * n + j] * t;
  }
  return {out[0], out[1]};
}

std::pair<double, double> Wcs::world_to_pixel(double lon, double lat) const {
  const int naxis = wcs_->naxis;
  std::vector<double> world(naxis, 0.0), img(naxis), pix(naxis);
  for (int i = 0; i < naxis; ++i) world[i] = wcs_->crval[i];
  world[lng_] = lon;
  world[lat_] = lat;
  double phi = 0, theta = 0;
  int stat = 0;
  if (wcss2p(wcs_.get(), 1, naxis, world.data(), &phi, &theta, img.data(), pix.data(), &stat))
    return {std::nan(""), std::nan("")};
  return {pix[0], pix[1]};
}

}  // namespace celeris
