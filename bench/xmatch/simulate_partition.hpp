// The simulated sky of the 1.23 B-row benchmarks, one HEALPix pixel at a time: the rows of a
// pixel depend only on (seed, pixel), so a catalog is the same whichever process or thread makes
// which pixel (bench_simulate_hats writes them as HATS partitions, bench_count_billion into host
// memory).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "celeris/healpix.hpp"

namespace celeris::bench {

namespace hp = celeris::healpix;

struct Params {
  uint64_t rows = 0;
  int order = 5;
  uint64_t seed = 1;
  double repeats = 1.0, scatter_arcsec = 0.5;
};

// Pixel pix (NESTED, at p.order) holds catalog rows [first_row(pix), first_row(pix + 1)): rows /
// npix each, the first rows % npix pixels one more (pixels have equal areas: a uniform density).
inline uint64_t first_row(const Params& p, int64_t pix) {
  const uint64_t npix = 12 * (uint64_t(1) << (2 * p.order));
  const uint64_t base = p.rows / npix, rest = p.rows % npix;
  return uint64_t(pix) * base + std::min<uint64_t>(uint64_t(pix), rest);
}

inline uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct Rows {
  std::vector<int64_t> id;
  std::vector<double> ra, dec;
};

// The rows of partition `pix` (first catalog row `first`, `count` rows).
inline Rows simulate_partition(const Params& p, int64_t pix, uint64_t first, uint64_t count) {
  std::mt19937_64 rng(splitmix(p.seed ^ splitmix(uint64_t(pix))));
  const int sub = 2 * (29 - p.order);
  std::uniform_int_distribution<int64_t> subpix(0, (int64_t(1) << sub) - 1);
  std::poisson_distribution<int> extra(std::max(p.repeats - 1.0, 1e-12));
  std::normal_distribution<double> gauss(0.0, p.scatter_arcsec / 3600.0);
  Rows r;
  r.id.reserve(count);
  r.ra.reserve(count);
  r.dec.reserve(count);
  while (r.id.size() < count) {
    double theta, phi;
    hp::pix2ang_nest(29, (pix << sub) + subpix(rng), theta, phi);
    const double ra0 = phi * 180.0 / M_PI, dec0 = 90.0 - theta * 180.0 / M_PI;
    const int n = 1 + (p.repeats > 1.0 ? extra(rng) : 0);
    for (int k = 0; k < n && r.id.size() < count; ++k) {
      double ra = ra0, dec = dec0;
      if (k > 0 || p.repeats > 1.0) {
        for (int tries = 0; tries < 16; ++tries) {
          const double d = dec0 + gauss(rng);
          const double c = std::max(std::cos(d * M_PI / 180.0), 1e-9);
          double a = std::fmod(ra0 + gauss(rng) / c + 360.0, 360.0);
          if (std::fabs(d) > 90.0) continue;  // over the pole: draw again
          if (hp::radec2pix_nest(p.order, a, d) != pix) continue;
          ra = a;
          dec = d;
          break;
        }
      }
      r.id.push_back(int64_t(first + r.id.size()));
      r.ra.push_back(ra);
      r.dec.push_back(dec);
    }
  }
  return r;
}

}  // namespace celeris::bench
