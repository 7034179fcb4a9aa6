// SExtractor's conversion of equatorial J2000 (FK5) coordinates to B1950 (FK4), for the *_B1950
// catalog columns (fitswcs.c j2b, called from astrom.c), reproduced in its arithmetic:
//  - the method is Aoki et al. (1983, A&A 128, 263) run backwards: the position as a unit
//    vector, the inverse of their 6x6 FK4 -> FK5 matrix (SExtractor's own inversion, its
//    constants below), the fictitious FK4 proper motion that a source fixed in FK5 has, applied
//    over t tropical centuries, then the E-terms of aberration added back (at their rate of
//    change over t). The result is the B1950 position of such a source at epoch B1950 + t.
//  - SExtractor passes the image's EQUINOX (2000 on the J2000 frames celeris accepts) as the
//    epoch, so t = (MJD(J2000) - MJD(B1950)) / 365.25 Julian years, in tropical centuries:
//    about 0.5. It does not use the observation date; this is not the "standard" B1950 of an
//    FK4 catalogue star with its own proper motion, but that of a distant (extragalactic)
//    source observed at J2000.0: astropy's FK4(equinox=B1950, obstime=J2000) agrees to about a
//    milliarcsecond (tests/extract/fk5_to_fk4_test.cpp).
//  - fitswcs.c takes PI from fits/fitscat_defs.h: 3.14159265359, not define.h's 3.1415926535898,
//    so its degrees-to-radians factor is that PI / 180.
// Header-only: the catalog writer (settings/parameters.cpp) calls it, and the fuzz targets link
// the writer without the stages.
#pragma once

#include <cmath>
#include <string>

#include "extract/sextractor/pi.hpp"

namespace celeris::extract {

inline constexpr double kFitsWcsPi = 3.14159265359;  // fitswcs.c's PI (fitscat_defs.h)

struct Radec {
  double alpha = 0.0, delta = 0.0;  // degrees
};

// fitswcs.c j2b: (alpha, delta) J2000 in degrees to B1950, `epoch` in Julian years (SExtractor
// passes the WCS's EQUINOX).
inline Radec sextractor_j2000_to_b1950(double epoch, double alpha, double delta) {
  constexpr double deg = kFitsWcsPi / 180.0;
  constexpr double arcsec = deg / 3600.0;
  constexpr double mjd2000 = 51544.50000, mjd1950 = 33281.92346;
  constexpr double julian_to_tropical = 1.0000214;  // one Julian century in tropical centuries
  // E-terms of aberration (radians) and their change per tropical century (arcsec).
  constexpr double eterm[3] = {-1.62557e-6, -0.31919e-6, -0.13843e-6};
  constexpr double eterm_rate[3] = {1.245e-3, -1.580e-3, -0.659e-3};
  // FK5 -> FK4 (position, velocity) as SExtractor inverted Aoki et al.'s matrix.
  constexpr double m[6][6] = {
      {0.9999256794678425, 0.01118148281196562, 0.004859003848996022, -2.423898417033081e-06,
       -2.710547600126671e-08, -1.177738063266745e-08},
      {-0.01118148272969232, 0.9999374849247641, -2.717708936468247e-05, 2.710547578707874e-08,
       -2.423927042585208e-06, 6.588254898401055e-11},
      {-0.00485900399622881, -2.715579322970546e-05, 0.999988194643078, 1.177738102358923e-08,
       6.582788892816657e-11, -2.424049920613325e-06},
      {-0.0005508458576414713, 0.2384844384742432, -0.4356144527773499, 0.9999043171308133,
       0.01118145410120206, 0.004858518651645554},
      {-0.2385354433560954, -0.002664266996872802, 0.01225282765749546, -0.01118145417187502,
       0.9999161290795875, -2.717034576263522e-05},
      {0.4357269351676567, -0.008536768476441086, 0.002113420799663768, -0.004858518477064975,
       -2.715994547222661e-05, 0.9999668385070383}};
  const double t = ((epoch - 2000.0) + (mjd2000 - mjd1950) / 365.25) * julian_to_tropical / 100.0;
  const double a = alpha * deg, d = delta * deg;
  const double cd = std::cos(d);
  // The FK5 state: position unit vector, zero velocity (terms kept, in SExtractor's order).
  const double state[6] = {cd * std::cos(a), cd * std::sin(a), std::sin(d), 0.0, 0.0, 0.0};
  double pos[3] = {0.0, 0.0, 0.0}, vel[3] = {0.0, 0.0, 0.0};
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 6; ++i) (j < 3 ? pos[j] : vel[j - 3]) += m[j][i] * state[i];
  double moved[3], e[3], dot = 0.0;
  for (int i = 0; i < 3; ++i) moved[i] = pos[i] + vel[i] * arcsec * t;
  for (int i = 0; i < 3; ++i) {
    e[i] = eterm[i] + eterm_rate[i] * arcsec * t;
    dot += e[i] * (moved[i] + e[i]);
  }
  // Adding the E-terms back: the scale that keeps the vector's length (Aoki's iteration solved).
  const double scale = 2.0 / (std::sqrt(1 + 4.0 * dot) + 1.0);
  double out[3], norm = 0.0;
  for (int i = 0; i < 3; ++i) {
    out[i] = scale * (moved[i] + e[i]);
    norm += out[i] * out[i];
  }
  norm = std::sqrt(norm);
  const double delta1950 = std::asin(out[2] / norm);
  double alpha1950 = std::acos(out[0] / std::cos(delta1950) / norm);
  if (out[1] < 0) alpha1950 = 2.0 * kFitsWcsPi - alpha1950;
  return {alpha1950 / deg, delta1950 / deg};
}

// SExtractor's rotation from the native frame's north to B1950's north at an object (astrom.c
// astrom_pos, dtheta1950), added to THETA*_SKY to give THETA*_B1950: `pole` is the J2000 pole
// in B1950 (initastrom), `at` the object in B1950, `delta_native` its native latitude.
// initastrom converts the pole only when THETA_B1950 or ERRTHETA_B1950 is in the catalog; with
// only the windowed angles the pole stays at the (0, 0) its structure was allocated with, and
// SExtractor's THETAWIN_B1950 / ERRTHETAWIN_B1950 are rotated from there (reproduced).
inline double sextractor_dtheta_b1950(Radec pole, Radec at, double delta_native) {
  constexpr double deg = kSexPi / 180.0;  // astrom.c's (define.h)
  const double da = pole.alpha - at.alpha;
  double dd =
      (std::sin(pole.delta * deg) - std::sin(at.delta * deg) * std::sin(delta_native * deg)) /
      (std::cos(at.delta * deg) * std::cos(delta_native * deg));
  dd = dd < 1.0 ? (dd > -1.0 ? std::acos(dd) / deg : 180.0) : 0.0;
  return ((da > 0.0 && da < 180.0) || da < -180.0) ? -dd : dd;
}

// The catalog's *_B1950 columns (ALPHA_B1950 ... ERRTHETAWIN_B1950).
inline bool is_b1950_column(const std::string& name) {
  return name.size() > 6 && name.compare(name.size() - 6, 6, "_B1950") == 0;
}
// Those for which SExtractor's initastrom converts the J2000 pole to B1950.
inline bool converts_b1950_pole(const std::string& name) {
  return name == "THETA_B1950" || name == "ERRTHETA_B1950";
}

}  // namespace celeris::extract
