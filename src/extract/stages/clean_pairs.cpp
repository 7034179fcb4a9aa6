#include "extract/stages/clean_pairs.hpp"
#include "extract/sextractor/pi.hpp"

#include "celeris/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace celeris::extract {

bool clean_profile_pow_above(double amp, double val, double beta, float level) {
  return static_cast<float>(amp * std::pow(val, -beta)) > level;
}

CleanProfile::CleanProfile(const Shape& s, float dthresh, double beta) {
  // CLEAN_PARAM 1 (the default): pow(x, 1) is x, exactly (glibc's pow is within 0.52 ulp, and x
  // is the only double that close to itself), and the pow is the profile's slowest step.
  clean_profile_terms(
      static_cast<float>(s.a), static_cast<float>(s.b), s.flux, s.abcor, s.npix, dthresh,
      [beta](double ratio) { return beta == 1.0 ? ratio : std::pow(ratio, 1.0 / beta); }, amp,
      alpha);
}

CleanPairInput clean_pair_input(const Shape& s, const Iso& iso, const CleanProfile& profile) {
  return clean_pair_input_of(s, iso.mthresh, profile.amp, profile.alpha);
}

CleanPair clean_pair(const Shape& sin, const Iso& iin, const CleanProfile& profile_in,
                     const Shape& so, const Iso& io, const CleanProfile& profile_o, double beta) {
  if (!in_clean_zone(sin, so)) return CleanPair::kNone;
  // clean_pair_test's choice and arithmetic, reading only the tested object's profile and
  // ellipse (the host's pairs and the clean pass's comparisons afresh run here).
  const float dx = static_cast<float>(sin.mx - so.mx), dy = static_cast<float>(sin.my - so.my);
  const bool victim = static_cast<float>(so.flux) < static_cast<float>(sin.flux);
  const Shape& s = victim ? sin : so;
  const CleanProfile& p = victim ? profile_in : profile_o;
  const double val =
      clean_profile_val(p.alpha, static_cast<float>(s.cxx), static_cast<float>(s.cyy),
                        static_cast<float>(s.cxy), dx, dy);
  if (!clean_profile_above(p.amp, val, beta, victim ? io.mthresh : iin.mthresh))
    return CleanPair::kNone;
  return victim ? CleanPair::kVictim : CleanPair::kMaster;
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

void clean_profiles(const std::vector<Shape>& shapes, const std::vector<Iso>& isos, size_t first,
                    size_t last, double beta, int clean_margin, int threads,
                    std::vector<CleanProfile>& profile, std::vector<CleanRows>& rows) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = first; i < last; ++i) {
    profile[i] = CleanProfile(shapes[i], isos[i].dthresh, beta);
    rows[i] = clean_rows(shapes[i], clean_margin);
  }
}

namespace {

// Every pair's decision, decide(i, o, k) for entry k (object o) of newcomer i's zone, on
// `threads` threads, with each newcomer's `any`.
template <class Decide>
CleanPairs decide_each_pair(const CleanZones& zones, int threads, Decide&& decide) {
  const size_t first = zones.first, m = zones.offset.empty() ? 0 : zones.offset.size() - 1;
  CleanPairs p;
  p.pair.resize(zones.neighbours.size());
  p.any.assign(m, 0);
  // Objects have few or many neighbours (crowded patches): chunks, not one block per thread.
#pragma omp parallel for schedule(dynamic, 512) num_threads(threads)
  for (size_t z = 0; z < m; ++z) {
    const size_t i = first + z;
    uint8_t any = 0;
    for (int64_t k = zones.offset[z]; k < zones.offset[z + 1]; ++k) {
      const CleanPair c = decide(i, zones.neighbours[k], static_cast<size_t>(k));
      p.pair[k] = static_cast<uint8_t>(c);
      any |= c != CleanPair::kNone;
    }
    p.any[z] = any;
  }
  return p;
}

}  // namespace

CleanPairs clean_pair_decisions(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                                const CleanZones& zones, double beta, int threads,
                                const std::vector<CleanProfile>& profile) {
  return decide_each_pair(zones, threads, [&](size_t i, uint32_t o, size_t) {
    return clean_pair(shapes[i], isos[i], profile[i], shapes[o], isos[o], profile[o], beta);
  });
}

CleanPairs clean_pairs_from_codes(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                                  const CleanZones& zones, double beta, int threads,
                                  const std::vector<CleanProfile>& profile,
                                  std::vector<uint8_t> codes, const std::vector<uint8_t>* flags) {
  const size_t first = zones.first, m = zones.offset.empty() ? 0 : zones.offset.size() - 1;
  if (codes.size() != zones.neighbours.size() || (flags && flags->size() != m))
    throw Error("internal: " + std::to_string(codes.size()) + " pair codes and " +
                std::to_string(flags ? flags->size() : m) + " newcomers' flags for " +
                std::to_string(zones.neighbours.size()) + " pairs of " + std::to_string(m) +
                " newcomers");
  CleanPairs p;
  p.pair = std::move(codes);
  p.any.resize(m);
#pragma omp parallel for schedule(dynamic, 4096) num_threads(threads)
  for (size_t z = 0; z < m; ++z) {
    if (flags && !((*flags)[z] & kPairFlagUnsure)) {
      p.any[z] = (*flags)[z] & kPairFlagFires;
      continue;
    }
    const size_t i = first + z;
    uint8_t any = 0;
    for (int64_t k = zones.offset[z]; k < zones.offset[z + 1]; ++k) {
      if (p.pair[k] == kCleanPairUnsure) {
        const uint32_t o = zones.neighbours[k];
        p.pair[k] = static_cast<uint8_t>(
            clean_pair(shapes[i], isos[i], profile[i], shapes[o], isos[o], profile[o], beta));
      }
      any |= p.pair[k] != static_cast<uint8_t>(CleanPair::kNone);
    }
    p.any[z] = any;
  }
  return p;
}

CleanPairs clean_pairs(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                       const CleanZones& zones, double beta, int clean_margin, int threads,
                       std::vector<CleanProfile>& profile, std::vector<CleanRows>& rows) {
  const size_t first = zones.first, m = zones.offset.empty() ? 0 : zones.offset.size() - 1;
  clean_profiles(shapes, isos, first, first + m, beta, clean_margin, threads, profile, rows);
  return clean_pair_decisions(shapes, isos, zones, beta, threads, profile);
}

}  // namespace celeris::extract
