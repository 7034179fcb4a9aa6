// The pairs of objects close enough for cleaning to compare them (SExtractor clean.c: an object
// is tested against the objects of its clean list within CLEAN_ZONE x (a_1 + a_2) pixels).
// Positions and semi-major axes do not change when cleaning merges objects, so the pairs are
// found beforehand and in parallel; the sequential cleaning then visits only them.
#pragma once

#include <cstdint>
#include <vector>

#include "celeris/host_device.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {

inline constexpr double kCleanZone = 10.0;  // double, as SExtractor: rlim * 100 is not rounded

// SExtractor's test of whether objects s and t are within each other's clean zone: squared
// distance in float (from the double difference) against (a_s + a_t)^2 in float, times 100 in
// double. Symmetric in s and t. Positions (mx, my) and semi-major axes as float.
// Written once for the CPU and the GPU (gpu/clean_zones_gpu.cu, compiled without FMA contraction).
CELERIS_HD inline bool in_clean_zone(double sx, double sy, float sa, double tx, double ty,
                                     float ta) {
  const float dx = static_cast<float>(sx - tx), dy = static_cast<float>(sy - ty);
  float rlim = sa + ta;
  rlim *= rlim;
  const float d2 = dx * dx + dy * dy;
  return d2 < rlim * kCleanZone * kCleanZone;
}

// The tiers of the zones' grids, here and on the GPU (gpu/clean_zones_gpu.cu): objects of
// semi-major axis up to 2, 4, ..., 128 pixels, each tier's cells ten times its largest axis wide
// (its members' zones are about that wide). zone_tier_of_axis: the tier of an axis, kZoneTiers
// above the last one's or for NaN (in no grid, as are objects of a position that is not finite).
inline constexpr int kZoneTiers = 7;
CELERIS_HD inline float zone_tier_max(int t) {
  return static_cast<float>(2 << t);
}
CELERIS_HD inline int zone_tier_of_axis(float a) {
  int t = 0;
  while (t < kZoneTiers && !(a <= zone_tier_max(t))) ++t;
  return t;
}

inline bool in_clean_zone(const Shape& s, const Shape& t) {
  return in_clean_zone(s.mx, s.my, static_cast<float>(s.a), t.mx, t.my, static_cast<float>(t.a));
}

// For each object i of first .. first + offset.size() - 2, the objects j < i with
// in_clean_zone(i, j), ascending, in CSR form: neighbours[offset[i - first] .. offset[i - first
// + 1]).
struct CleanZones {
  size_t first = 0;
  std::vector<int64_t> offset;
  std::vector<uint32_t> neighbours;
};

// The zones of every object.
CleanZones clean_zones(const std::vector<Shape>& shapes, int threads);
// The zones of objects begin .. end - 1, from shapes[0 .. end) (the later ones are not read).
CleanZones clean_zones(const std::vector<Shape>& shapes, size_t begin, size_t end, int threads);

}  // namespace celeris::extract
