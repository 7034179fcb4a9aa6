// `celeris simulate catalog`: random sky positions in a declination band with repeat detections
// (clusters of near-duplicates), so that a self-match has several pairs per row, as in the
// paper's SDSS test sets (Table III: 4.65 to 30 pairs per object).
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/simulate.hpp"

namespace celeris::sim {

Table simulate_catalog(const CatalogParams& p) {
  namespace hp = celeris::healpix;
  if (!(p.dec_min >= -90 && p.dec_max <= 90 && p.dec_min < p.dec_max))
    throw Error("need -90 <= dec-min < dec-max <= 90");
  if (!(p.repeats >= 1)) throw Error("--repeats (mean detections per source) must be >= 1");
  if (!(p.scatter_arcsec >= 0)) throw Error("--scatter must be >= 0");
  constexpr double deg = hp::pi / 180.0;
  std::mt19937_64 rng(p.seed);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::poisson_distribution<int> extra(std::max(p.repeats - 1.0, 1e-12));
  const double zmin = std::sin(p.dec_min * deg), zmax = std::sin(p.dec_max * deg);
  const double sigma = p.scatter_arcsec * deg / 3600.0;

  Table t;
  t.rows = p.rows;
  Column id{"ID", "", "detection number", ColumnType::Int64, 1, "%10.0f", {}};
  Column src{"SOURCE_ID", "", "true source of the detection", ColumnType::Int64, 1, "%10.0f", {}};
  Column ra{"RA", "deg", "right ascension", ColumnType::Float64, 1, "%13.8f", {}};
  Column dec{"DEC", "deg", "declination", ColumnType::Float64, 1, "%13.8f", {}};
  Column mag{"MAG", "mag", "magnitude", ColumnType::Float32, 1, "%8.4f", {}};
  for (Column* c : {&id, &src, &ra, &dec, &mag}) c->values.reserve(p.rows);
  size_t n = 0;
  for (int64_t s = 0; n < p.rows; ++s) {
    // Uniform on the sphere inside the band: z = sin(dec) uniform.
    const double z = zmin + (zmax - zmin) * uni(rng);
    const double phi = 2 * hp::pi * uni(rng);
    const double m = 16.0 + 8.0 * std::pow(uni(rng), 0.3);
    const double cz = std::sqrt(std::max(0.0, 1 - z * z));
    const hp::Vec3 v{cz * std::cos(phi), cz * std::sin(phi), z};
    const hp::Vec3 east{-std::sin(phi), std::cos(phi), 0.0};
    const hp::Vec3 north{-z * std::cos(phi), -z * std::sin(phi), cz};
    const int k = 1 + (p.repeats > 1 ? extra(rng) : 0);
    for (int d = 0; d < k && n < p.rows; ++d, ++n) {
      // Offset in the tangent plane, then back onto the sphere.
      const double a = sigma * gauss(rng), b = sigma * gauss(rng);
      hp::Vec3 w{v.x + a * east.x + b * north.x, v.y + a * east.y + b * north.y,
                 v.z + a * east.z + b * north.z};
      const double l = std::sqrt(w.x * w.x + w.y * w.y + w.z * w.z);
      w = {w.x / l, w.y / l, w.z / l};
      double r = std::atan2(w.y, w.x) / deg;
      if (r < 0) r += 360.0;
      if (r >= 360.0) r -= 360.0;
      const double de = std::asin(std::clamp(w.z, -1.0, 1.0)) / deg;
      id.values.push_back(double(n + 1));
      src.values.push_back(double(s + 1));
      ra.values.push_back(r);
      dec.values.push_back(std::clamp(de, -90.0, 90.0));
      mag.values.push_back(m + 0.05 * gauss(rng));
    }
  }
  t.columns = {std::move(id), std::move(src), std::move(ra), std::move(dec), std::move(mag)};
  return t;
}

namespace {

// Rows of other sources expected within the radius of a row: uniform density over the band
// (rows / solid angle of the band) times the solid angle of the disc.
double background_matches(size_t rows, double dec_min, double dec_max, double radius_arcsec) {
  namespace hp = celeris::healpix;
  constexpr double deg = hp::pi / 180.0;
  const double band = 2 * hp::pi * (std::sin(dec_max * deg) - std::sin(dec_min * deg));
  const double disc = 2 * hp::pi * (1 - std::cos(radius_arcsec * deg / 3600.0));
  return double(rows) * disc / band;
}

// Size-biased mean of k = 1 + Poisson(l): the expected size of the group a random row is in,
// E[k^2] / E[k] = (l + (1 + l)^2) / (1 + l).
double group_matches(double l) {
  return 1 + l + l / (1 + l);
}

}  // namespace

double expected_matches(size_t rows, double dec_min, double dec_max, double radius_arcsec,
                        double repeats) {
  return group_matches(repeats - 1) + background_matches(rows, dec_min, dec_max, radius_arcsec);
}

double repeats_for_matches(size_t rows, double dec_min, double dec_max, double radius_arcsec,
                           double matches) {
  const double target = matches - background_matches(rows, dec_min, dec_max, radius_arcsec);
  if (!(target >= 1))
    throw Error("the catalog's density alone gives " + std::to_string(matches - target) +
                " matches per row, more than " + std::to_string(matches));
  double lo = 0, hi = target;  // group_matches is increasing and group_matches(l) >= 1 + l
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (group_matches(mid) < target ? lo : hi) = mid;
  }
  return 1 + 0.5 * (lo + hi);
}

CatalogParams table3_params(const std::string& name) {
  // Table III of the paper: name, rows, declination band, matches per row at 0.0056 deg.
  struct Set {
    const char* name;
    size_t rows;
    double dec_min, dec_max, matches;
  };
  static constexpr Set sets[] = {{"d1", 1000000, -0.8343, 0.0209, 4.65},
                                 {"d5", 5000000, -0.8343, 1.2817, 5.45},
                                 {"d25", 25000000, -0.8343, 1.3154, 15.80}};
  for (const Set& s : sets)
    if (name == s.name) {
      CatalogParams p;
      p.rows = s.rows;
      p.dec_min = s.dec_min;
      p.dec_max = s.dec_max;
      p.repeats =
          repeats_for_matches(s.rows, s.dec_min, s.dec_max, table3_radius_arcsec, s.matches);
      return p;
    }
  throw Error("unknown Table III data set '" + name + "' (d1, d5 or d25)");
}

}  // namespace celeris::sim
