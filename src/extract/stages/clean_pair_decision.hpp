// CLEAN's comparison of two objects (SExtractor clean.c clean()) from plain per-object values,
// written once for the host's clean_pair (clean_pairs.cpp) and the GPU's decisions beside the
// zones (gpu/clean_zones_gpu.cu, compiled without FMA contraction, as clean_pairs.cpp is): which
// profile is tested at which threshold, and the answer wherever it is certain without the
// profile's pow and the profile itself. Plain C++17 (CELERIS_HD), free of the library's other
// headers but SExtractor's pi.
#pragma once

#include <cstdint>
#include <cstring>

#include "celeris/host_device.hpp"
#include "extract/sextractor/pi.hpp"

namespace celeris::extract {

// What the comparison reads of an object: its barycentre, its profile (CleanProfile's amp and
// alpha), its flux, ellipse and CLEAN threshold as the floats SExtractor compares.
struct CleanPairInput {
  double mx = 0, my = 0;
  double amp = 0, alpha = 0;
  float flux = 0, cxx = 0, cyy = 0, cxy = 0, mthresh = 0;
};

// An object's CLEAN profile, amp (1 + alpha r^2)^-beta (clean.c addcleanobj), reaching the
// detection threshold `dthresh` on the isophote of its `npix` pixels; `root(ratio)` is
// ratio^(1/beta) (CLEAN_PARAM 1: ratio itself, no pow). The host's CleanProfile and the GPU's
// zones (gpu/clean_zones_gpu.cu, from the device's shapes) make it here: a and b as floats.
template <class Root>
CELERIS_HD void clean_profile_terms(float a, float b, double flux, float abcor, int npix,
                                    float dthresh, Root root, double& amp, double& alpha) {
  const double unitarea = kSexPi * a * b;
  amp = static_cast<float>(flux) / (2 * unitarea * abcor);
  alpha = (root(amp / dthresh) - 1) * unitarea / npix;
}

// What the comparison reads of an object from its shape `s` (a Shape: mx, my, flux, cxx, cyy,
// cxy), its CLEAN threshold and its profile (clean_profile_terms).
template <class S>
CELERIS_HD CleanPairInput clean_pair_input_of(const S& s, float mthresh, double amp, double alpha) {
  CleanPairInput p;
  p.mx = s.mx;
  p.my = s.my;
  p.amp = amp;
  p.alpha = alpha;
  p.flux = static_cast<float>(s.flux);
  p.cxx = static_cast<float>(s.cxx);
  p.cyy = static_cast<float>(s.cyy);
  p.cxy = static_cast<float>(s.cxy);
  p.mthresh = mthresh;
  return p;
}

// The test a comparison of newcomer `in` with an earlier object `o` makes: the fainter object
// (o, unless it is at least as bright) lies under the other's profile when the profile,
// amp val^-beta, exceeds the fainter one's CLEAN threshold `level`. victim: o is fainter (the
// newcomer's profile is tested); else the newcomer is (o's profile is tested).
struct CleanPairTest {
  bool victim = false;
  double amp = 0, val = 0;
  float level = 0;
};

// The profile's val = 1 + alpha r^2 at offset (dx, dy) (the newcomer's position less the other
// object's): the ellipse in float as SExtractor's, alpha in double.
CELERIS_HD inline double clean_profile_val(double alpha, float cxx, float cyy, float cxy, float dx,
                                           float dy) {
  return 1 + alpha * (cxx * dx * dx + cyy * dy * dy + cxy * dx * dy);
}

CELERIS_HD inline CleanPairTest clean_pair_test(const CleanPairInput& in, const CleanPairInput& o) {
  const float dx = static_cast<float>(in.mx - o.mx), dy = static_cast<float>(in.my - o.my);
  const CleanPairInput& p = o.flux < in.flux ? in : o;
  CleanPairTest t;
  t.victim = o.flux < in.flux;
  t.amp = p.amp;
  t.val = clean_profile_val(p.alpha, p.cxx, p.cyy, p.cxy, dx, dy);
  t.level = t.victim ? o.mthresh : in.mthresh;
  return t;
}

// Whether (float)(amp val^-beta) > level, where the answer is certain without the pow: 1 or 0,
// else -1 (the caller takes the pow). The profile is 0 where val <= 1 (and for NaN) and from
// val 1e10 on. CLEAN_PARAM 1 (the default): pow(val, -1) is within an ulp of amp / val's
// quotient, so the float comparison is certain unless amp / val lies within a relative 1e-12 of
// the rounding boundary above `level`, halfway to the next float (for a level of 0 or above,
// below FLT_MAX, and a positive finite amp). A level of 0 is the CLEAN threshold of 1% of a
// dense 4096^2 frame's pairs: there the boundary is half the smallest float, 7.0e-46.
CELERIS_HD inline int clean_profile_sure(double amp, double val, double beta, float level) {
  if (!(val > 1.0)) return 0;
  if (!(val < 1e10)) return 0.0f > level ? 1 : 0;
  constexpr float kMaxFloat = 3.40282346638528859812e38f;
  constexpr double kMaxDouble = 1.79769313486231570815e308;
  if (beta == 1.0 && level >= 0.0f && level < kMaxFloat && amp > 0 && amp <= kMaxDouble) {
    const double x = amp / val;
    // The float after level: its bits plus one (level is not negative and below FLT_MAX; -0 is
    // taken as +0, whose next float is the smallest one).
    const float from = level == 0.0f ? 0.0f : level;
    uint32_t bits;
    std::memcpy(&bits, &from, sizeof bits);
    ++bits;
    float next;
    std::memcpy(&next, &bits, sizeof next);
    const double up = (static_cast<double>(from) + next) / 2;
    if (x > up * (1 + 1e-12)) return 1;
    if (x < up * (1 - 1e-12)) return 0;
  }
  return -1;
}

// The comparison's answer as CleanPair's values (0 nothing, 1 victim, 2 master), or
// kCleanPairUnsure where the pow decides (the host's clean_pair then).
inline constexpr uint8_t kCleanPairUnsure = 3;
CELERIS_HD inline uint8_t clean_pair_sure(const CleanPairInput& in, const CleanPairInput& o,
                                          double beta) {
  const CleanPairTest t = clean_pair_test(in, o);
  const int above = clean_profile_sure(t.amp, t.val, beta, t.level);
  if (above < 0) return kCleanPairUnsure;
  return above == 0 ? 0 : t.victim ? 1 : 2;
}

// A newcomer's flags, the OR of its pairs' (the GPU's, made with the codes: clean_pairs_from_codes
// then reads only the codes of the newcomers with kPairFlagUnsure).
inline constexpr uint8_t kPairFlagFires = 1;   // a code of 1 or 2 (victim or master)
inline constexpr uint8_t kPairFlagUnsure = 2;  // a code of kCleanPairUnsure
CELERIS_HD inline uint8_t clean_pair_flag(uint8_t code) {
  return code == kCleanPairUnsure ? kPairFlagUnsure : code != 0 ? kPairFlagFires : 0;
}

}  // namespace celeris::extract
