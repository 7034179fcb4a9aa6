// One weight-map value as a variance (SExtractor weight.c weight_to_var), for the host's loops
// (weights.cpp to_variance, weight_scale) and the GPU's (gpu/weight_kernels.cu) alike: plain
// C++17, so that both round the same operations.
#pragma once

#include "celeris/host_device.hpp"

namespace celeris::extract {

// What the map holds: an RMS (MAP_RMS, and BACKGROUND's RMS map), a variance, or a weight.
enum class MapKind : int { Rms = 0, Var = 1, Weight = 2 };

// SExtractor's BIG: the variance of a bad pixel (weights.hpp kBig).
constexpr float kBadVariance = 1e+30f;

// `v` as a variance, times sigfac2 (the map's scale squared) for a variance or a weight.
CELERIS_HD inline float map_variance(MapKind kind, float sigfac2, float v) {
  switch (kind) {
    case MapKind::Rms:
      return v < kBadVariance ? v * v : v;
    case MapKind::Var:
      return v * sigfac2;
    case MapKind::Weight:
      return v > 0.0f ? sigfac2 / v : kBadVariance;
  }
  return v;
}

}  // namespace celeris::extract
