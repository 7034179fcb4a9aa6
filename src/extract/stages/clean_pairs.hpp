// CLEAN's pairwise test (SExtractor clean.c), decided beforehand and in parallel for every pair
// of objects within each other's clean zone, from the shapes as detected. The sequential clean
// pass (clean.cpp) then visits only the pairs whose test fires, and compares the others again
// only where an earlier merge has changed one of the two objects (clean.cpp says why that gives
// SExtractor's decisions exactly).
#pragma once

#include <cstdint>
#include <vector>

#include "extract/stages/clean_pair_decision.hpp"
#include "extract/stages/clean_zones.hpp"
#include "extract/stages/isophotal.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {

// SExtractor's test of a profile against another object's CLEAN threshold: whether
// (float)(amp val^-beta) > level, where val = 1 + alpha r^2 (false unless val > 1; the profile
// is 0 from val 1e10 on). The pow is skipped where the answer is certain without it.
// Inline, so that the comparisons (the clean pass's afresh among them) take the pow-free answer
// without a call; the pow alone is out of line (clean_profile_pow_above).
bool clean_profile_pow_above(double amp, double val, double beta, float level);
inline bool clean_profile_above(double amp, double val, double beta, float level) {
  const int sure = clean_profile_sure(amp, val, beta, level);
  if (sure >= 0) return sure == 1;
  return clean_profile_pow_above(amp, val, beta, level);
}

// Moffat-like profile of an object, amp (1 + alpha r^2)^-beta, reaching the detection threshold
// on the isophote of area fdnpix (clean.c, addcleanobj's amp and alpha).
struct CleanProfile {
  double amp = 0, alpha = 0;
  CleanProfile() = default;
  CleanProfile(const Shape& s, float dthresh, double beta);
};

// What CLEAN's comparison of a newcomer i with an earlier object o of its clean list decides.
enum class CleanPair : uint8_t {
  kNone = 0,    // nothing: i moves on to the next entry of its list
  kVictim = 1,  // o is fainter and lies under i's profile: i will absorb o (unless i is eaten)
  kMaster = 2,  // o is at least as bright and i lies under o's profile: o absorbs i
};

// The comparison of newcomer `in` with earlier object `o` from their shapes and thresholds, as
// SExtractor makes it (clean.c clean()); `profile_in` / `profile_o`: their profiles from the
// same shapes.
CleanPair clean_pair(const Shape& sin, const Iso& iin, const CleanProfile& profile_in,
                     const Shape& so, const Iso& io, const CleanProfile& profile_o, double beta);
// What the comparison reads of an object (clean_pair_decision.hpp: the GPU's too).
CleanPairInput clean_pair_input(const Shape& s, const Iso& iso, const CleanProfile& profile);

// SExtractor's ycmin / ycmax (clean.c addcleanobj): the rows above and below an object that its
// apertures may reach, fixed when it joins the clean list; they decide when it is written out,
// hence its NUMBER. `clean_margin`: SExtractor's cleanmargin.
struct CleanRows {
  int32_t ycmin = 0, ycmax = 0;
};
CleanRows clean_rows(const Shape& s, int clean_margin);
// Objects first .. last - 1's rows into rows[first ...] (sized for all objects), with `threads`
// threads: made beforehand for the objects as detected, so that the sequential pass reads eight
// bytes per newcomer instead of its shape's three cache lines (it remakes only the rows of an
// object grown by a merge).
void clean_rows(const std::vector<Shape>& shapes, size_t first, size_t last, int clean_margin,
                int threads, std::vector<CleanRows>& rows);

struct CleanPairs {
  std::vector<CleanProfile> profile;  // each object's, from its shape as given (whole frame)
  std::vector<CleanRows> rows;        // each object's, from its shape as given (whole frame)
  // For each entry of CleanZones::neighbours, its CleanPair as a byte: the GPU's codes
  // (clean_pair_sure's, the same values) become these without a copy (clean_pairs_from_codes).
  std::vector<uint8_t> pair;
  std::vector<uint8_t> any;  // per object of the zones (any[i - zones.first]): a pair of its
                             // own that is not kNone
};

// The profiles and rows of objects first .. last - 1 into profile[first ...] and
// rows[first ...] (sized for all objects), with `threads` threads.
void clean_profiles(const std::vector<Shape>& shapes, const std::vector<Iso>& isos, size_t first,
                    size_t last, double beta, int clean_margin, int threads,
                    std::vector<CleanProfile>& profile, std::vector<CleanRows>& rows);
// The decision for every pair of `zones` (its `pair` and `any`), the profiles of the objects up
// to the zones' last one already in `profile`.
CleanPairs clean_pair_decisions(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                                const CleanZones& zones, double beta, int threads,
                                const std::vector<CleanProfile>& profile);

// The same decisions from codes made elsewhere (codes[k] for entry k of zones.neighbours:
// clean_pair_sure's, the GPU's beside the zones), taken over as the pairs' `pair`, those left
// to the pow (kCleanPairUnsure) decided here by clean_pair. `flags`, when given: per newcomer
// of the zones, the OR of its codes' clean_pair_flag (the GPU's, made with the codes); then only
// the newcomers with kPairFlagUnsure have their codes read, where without it every code is (2.7-4.6
// ms of a dense 4096^2 frame's 2.3 million on an H100's host, stops 78-80).
CleanPairs clean_pairs_from_codes(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                                  const CleanZones& zones, double beta, int threads,
                                  const std::vector<CleanProfile>& profile,
                                  std::vector<uint8_t> codes,
                                  const std::vector<uint8_t>* flags = nullptr);

// Every profile and rows, and the decision for every pair of `zones`, from the shapes and
// thresholds as given (before any merge), with `threads` threads.
CleanPairs clean_pairs(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                       const CleanZones& zones, double beta, int clean_margin, int threads);
// The same for the objects of `zones` (a range, clean_zones): their profiles and rows go to
// `profile[zones.first ...]` and `rows[zones.first ...]` (sized for all objects; the earlier
// objects' already there), the returned CleanPairs holds the decisions only.
CleanPairs clean_pairs(const std::vector<Shape>& shapes, const std::vector<Iso>& isos,
                       const CleanZones& zones, double beta, int clean_margin, int threads,
                       std::vector<CleanProfile>& profile, std::vector<CleanRows>& rows);

}  // namespace celeris::extract
