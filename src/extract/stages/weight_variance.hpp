// One weight-map value as a variance (SExtractor weight.c weight_to_var), and a pixel's
// detection threshold from its variance, for the host's loops (weights.cpp, weights_front_end.cpp)
// and the GPU's (gpu/weight_kernels.cu) alike: plain C++17, so that both round the same
// operations.
#pragma once

#include <math.h>

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

// A pixel's detection threshold with THRESH_TYPE RELATIVE: DETECT_THRESH (`relthresh`) sigma of
// its (filtered) variance, the product in double (scan.c).
CELERIS_HD inline float relative_threshold(float relthresh, float var) {
  return static_cast<float>(relthresh * sqrt(static_cast<double>(var)));
}

}  // namespace celeris::extract
