#include "extract/stages/clean_pairs.hpp"
#include "extract/sextractor/pi.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace celeris::extract {

bool clean_profile_above(double amp, double val, double beta, float level) {
  if (!(val > 1.0)) return false;
  if (!(val < 1e10)) return 0.0f > level;
  // CLEAN_PARAM 1 (the default): pow(val, -1) is within an ulp of amp / val's quotient; the
  // float comparison is the same unless amp / val lies near the rounding boundary above level.
  if (beta == 1.0 && level > 0 && std::isnormal(level) &&
      level < std::numeric_limits<float>::max() && amp > 0 && std::isfinite(amp)) {
    const double x = amp / val;
    // The float after level: its bits plus one (level is positive, normal, below FLT_MAX).
    const float next = std::bit_cast<float>(std::bit_cast<uint32_t>(level) + 1);
    const double up = (static_cast<double>(level) + next) / 2;
    if (x > up * (1 + 1e-12)) return true;
    if (x < up * (1 - 1e-12)) return false;
  }
  return static_cast<float>(amp * std::pow(val, -beta)) > level;
}

CleanProfile::CleanProfile(const Shape& s, float dthresh, double beta) {
  const double unitarea = kSexPi * static_cast<float>(s.a) * static_cast<float>(s.b);
  amp = static_cast<float>(s.flux) / (2 * unitarea * s.abcor);
  // CLEAN_PARAM 1 (the default): pow(x, 1) is x, exactly (glibc's pow is within 0.52 ulp, and x
  // is the only double that close to itself), and the pow is the profile's slowest step.
  const double ratio = amp / dthresh;
  alpha = ((beta == 1.0 ? ratio : std::pow(ratio, 1.0 / beta)) - 1) * unitarea / s.npix;
}

CleanPair clean_pair(const Shape& sin, const Iso& iin, const CleanProfile& profile_in,
                     const Shape& so, const Iso& io, const CleanProfile& profile_o, double beta) {
  if (!in_clean_zone(sin, so)) return CleanPair::kNone;
  const float dx = static_cast<float>(sin.mx - so.mx), dy = static_cast<float>(sin.my - so.my);
  if (static_cast<float>(so.flux) < static_cast<float>(sin.flux))
    return profile_in.above(sin, dx, dy, beta, io.mthresh) ? CleanPair::kVictim : CleanPair::kNone;
  return profile_o.above(so, dx, dy, beta, iin.mthresh) ? CleanPair::kMaster : CleanPair::kNone;
}

CleanRows clean_rows(const Shape& s, int clean_margin) {
  float hh1 = static_cast<float>(s.cyy - s.cxy * s.cxy / (4.0 * s.cxx));
  hh1 = hh1 > 0.0f ? static_cast<float>(1 / std::sqrt(3 * hh1)) : 0.0f;
  const float hh2 = static_cast<float>(s.ymax - s.ymin + 1.0);
  const int margin = static_cast<int>((hh1 > hh2 ? hh1 : hh2) * 2.0 + 4.0 + 0.49999);
  const int yc = static_cast<int>(s.my + 0.49999);
  return {std::min(yc - clean_margin, static_cast<int>(s.ymin) - margin),
          std::max(yc + clean_margin, static_cast<int>(s.ymax) + margin)};
}

void clean_rows(const std::vector<Shape>& shapes, size_t first, size_t last, int clean_margin,
                int threads, std::vector<CleanRows>& rows) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = first; i < last; ++i) rows[i] = clean_rows(shapes[i], clean_margin);
}

CleanPairs clean_pairs(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                       const CleanZones& zones, double beta, int clean_margin, int threads) {
  std::vector<CleanProfile> profile(shapes.size());
  std::vector<CleanRows> rows(shapes.size());
  CleanPairs p = clean_pairs(shapes, isos, zones, beta, clean_margin, threads, profile, rows);
  p.profile = std::move(profile);
  p.rows = std::move(rows);
  return p;
}

CleanPairs clean_pairs(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                       const CleanZones& zones, double beta, int clean_margin, int threads,
                       std::vector<CleanProfile>& profile, std::vector<CleanRows>& rows) {
  const size_t first = zones.first, m = zones.offset.empty() ? 0 : zones.offset.size() - 1;
  CleanPairs p;
  p.pair.resize(zones.neighbours.size());
  p.any.assign(m, 0);
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (size_t i = first; i < first + m; ++i) {
      profile[i] = CleanProfile(shapes[i], isos[i].dthresh, beta);
      rows[i] = clean_rows(shapes[i], clean_margin);
    }
    // Objects have few or many neighbours (crowded patches): chunks, not one block per thread.
#pragma omp for schedule(dynamic, 512)
    for (size_t z = 0; z < m; ++z) {
      const size_t i = first + z;
      uint8_t any = 0;
      for (int64_t k = zones.offset[z]; k < zones.offset[z + 1]; ++k) {
        const uint32_t o = zones.neighbours[k];
        const CleanPair c =
            clean_pair(shapes[i], isos[i], profile[i], shapes[o], isos[o], profile[o], beta);
        p.pair[k] = c;
        any |= c != CleanPair::kNone;
      }
      p.any[z] = any;
    }
  }
  return p;
}

}  // namespace celeris::extract
