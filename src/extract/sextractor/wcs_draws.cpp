#include "extract/sextractor/wcs_draws.hpp"

#include "extract/sextractor/header_read.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace celeris::extract {
namespace {

constexpr double kR2D = 180.0 / 3.141592653589793238462643;
constexpr double kD2R = 3.141592653589793238462643 / 180.0;

using sex_header::axis_key;
using sex_header::find_card;
using sex_header::read_double;
using sex_header::read_string;

// SExtractor's wcstrig.c degree functions, exact cases included.
double cosd(double a) {
  const double r = std::fabs(std::fmod(a, 360.0));
  if (r == 0.0) return 1.0;
  if (r == 90.0 || r == 270.0) return 0.0;
  if (r == 180.0) return -1.0;
  return std::cos(a * kD2R);
}
double sind(double a) {
  const double r = std::fmod(a - 90.0, 360.0);
  if (r == 0.0) return 1.0;
  if (r == 90.0 || r == 270.0) return 0.0;
  if (r == 180.0) return -1.0;
  return std::sin(a * kD2R);
}
double atan2d(double y, double x) {
  if (y == 0.0) return x >= 0.0 ? 0.0 : 180.0;
  if (x == 0.0) return y > 0.0 ? 90.0 : -90.0;
  return std::atan2(y, x) * kR2D;
}
double acosd(double v) {
  if (v >= 1.0) {
    if (v - 1.0 < 1e-10) return 0.0;
  } else if (v == 0.0) {
    return 90.0;
  } else if (v <= -1.0) {
    if (v + 1.0 > -1e-10) return 180.0;
  }
  return std::acos(v) * kR2D;
}

struct CelestialAxes {
  std::string pcode;
  int lng = -1, lat = -1;
};

// SExtractor's wcsset() (wcs/wcs.c): the celestial axis pair and its projection code, or
// nothing when there is none or the CTYPEs are inconsistent.
std::optional<CelestialAxes> celestial_axes(const std::vector<std::string>& ctype) {
  static const char* const kCodes[] = {"AZP", "TAN", "SIN", "STG", "ARC", "ZPN", "ZEA",
                                       "AIR", "CYP", "CAR", "MER", "CEA", "COP", "COD",
                                       "COE", "COO", "BON", "PCO", "GLS", "PAR", "AIT",
                                       "MOL", "CSC", "QSC", "TSC", "TNX", "TPV"};
  CelestialAxes axes;
  std::string required;
  int* pending = nullptr;
  for (int j = 0; j < static_cast<int>(ctype.size()); ++j) {
    std::string t = ctype[j];
    t.resize(8, '\0');
    if (t[4] != '-') continue;
    const std::string code = t.substr(5, 3);
    bool known = code == "NCP";
    for (const char* c : kCodes) known |= code == c;
    if (!known) continue;
    if (axes.pcode.empty()) {
      axes.pcode = code;
      if (t.compare(0, 4, "RA--") == 0) {
        axes.lng = j, pending = &axes.lat, required = "DEC--" + code;
      } else if (t.compare(0, 4, "DEC-") == 0) {
        axes.lat = j, pending = &axes.lng, required = "RA---" + code;
      } else if (t.compare(1, 3, "LON") == 0) {
        axes.lng = j, pending = &axes.lat, required = t.substr(0, 1) + "LAT-" + code;
      } else if (t.compare(1, 3, "LAT") == 0) {
        axes.lat = j, pending = &axes.lng, required = t.substr(0, 1) + "LON-" + code;
      } else {
        return std::nullopt;
      }
    } else {
      if (t.substr(0, 8) != required) return std::nullopt;
      *pending = j;
      required.clear();
    }
  }
  if (!required.empty() || axes.pcode.empty()) return std::nullopt;
  return axes;
}

// The native latitude of the reference point for each projection (celset's theta0).
double reference_theta(const std::string& pcode, double conic_theta) {
  for (const char* c :
       {"TAN", "TPV", "AZP", "SIN", "STG", "ARC", "ZPN", "ZEA", "AIR", "TNX", "NCP"})
    if (pcode == c) return 90.0;
  for (const char* c : {"COP", "COD", "COE", "COO"})
    if (pcode == c) return conic_theta;
  return 0.0;
}

// celset()'s status: 0 set, 1 error before the structure is marked set, 2 marked set but the
// pole's latitude is out of range.
int celset_status(double lat0, double lonpole, double latpole, double theta0) {
  constexpr double tol = 1.0e-10;
  double latp;
  if (theta0 == 90.0) {
    latp = lat0;
  } else {
    if (lonpole == 999.0) lonpole = lat0 < theta0 ? 180.0 : 0.0;
    const double slat0 = sind(lat0);
    const double x = cosd(theta0) * cosd(lonpole), y = sind(theta0);
    const double z = std::sqrt(x * x + y * y);
    if (z == 0.0) {
      if (slat0 != 0.0) return 1;
      latp = latpole;
    } else {
      if (std::fabs(slat0 / z) > 1.0) return 1;
      const double u = atan2d(y, x), v = acosd(slat0 / z);
      double latp1 = u + v, latp2 = u - v;
      if (latp1 > 180.0) latp1 -= 360.0;
      if (latp1 < -180.0) latp1 += 360.0;
      if (latp2 > 180.0) latp2 -= 360.0;
      if (latp2 < -180.0) latp2 += 360.0;
      if (std::fabs(latpole - latp1) < std::fabs(latpole - latp2))
        latp = std::fabs(latp1) < 90.0 + tol ? latp1 : latp2;
      else
        latp = std::fabs(latp2) < 90.0 + tol ? latp2 : latp1;
    }
    // The remaining failure, a pole exactly undetermined (x == y == 0 in celset), needs the
    // reference point at the native pole, which theta0 < 90 excludes.
  }
  return std::fabs(latp) > 90.0 + tol ? 2 : 0;
}

}  // namespace

int sextractor_wcs_rand_draws(const FitsHeader& header) {
  // SExtractor's WCS holds at most NAXIS = 2 axes (fitswcs.h) and reads images of 2 or more.
  constexpr int naxis = 2;
  const std::vector<std::string>& cards = header.cards();
  std::vector<std::string> ctype(naxis);
  std::vector<double> crval(naxis);
  for (int l = 0; l < naxis; ++l) {
    ctype[l] = read_string(cards, axis_key("CTYPE", l + 1)).substr(0, 8);
    crval[l] = read_double(cards, axis_key("CRVAL", l + 1)).value_or(0.0);
  }
  const auto axes = celestial_axes(ctype);
  if (!axes) return 0;  // no celestial pair: SExtractor maps the axes linearly, never fails

  // read_wcs(): "LONPOLE" (a prefix match), then "LONGPOLE"; "LATPOLE " (eight characters).
  double lonpole =
      read_double(cards, "LONPOLE").value_or(read_double(cards, "LONGPOLE").value_or(999.0));
  const double latpole = read_double(cards, "LATPOLE ").value_or(999.0);
  // Conic projections take theta0 from the latitude axis' PV parameter 1 (or old PROJP1).
  double conic = 0.0;
  if (find_card(cards, "PV?_????")) {
    char key[32];
    std::snprintf(key, sizeof key, "PV%d_1 ", axes->lat + 1);
    conic = read_double(cards, key).value_or(0.0);
  } else if (find_card(cards, "PROJP???") && axes->lat == 0) {
    conic = read_double(cards, "PROJP1  ").value_or(0.0);
  }
  // wcsrev() turns NCP into SIN, but first fails while LONPOLE is 0, before it changes the code.
  if (axes->pcode == "NCP" && lonpole == 0.0) return 100 * naxis;
  const int status =
      celset_status(crval[axes->lat], lonpole, latpole, reference_theta(axes->pcode, conic));
  if (status == 2) return naxis;
  if (status == 1) return 100 * naxis;
  return 0;
}

}  // namespace celeris::extract
