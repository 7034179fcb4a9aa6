// `celeris simulate catalog`: random sky positions in a declination band with repeat detections
// (clusters of near-duplicates), so that a self-match has several pairs per row, as in the
// paper's SDSS test sets (Table III: 4.65 to 30 pairs per object).
#include <algorithm>
#include <cmath>
#include <random>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch {

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

}  // namespace celeris::xmatch
