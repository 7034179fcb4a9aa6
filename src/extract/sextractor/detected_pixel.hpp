// SExtractor's test of a detected pixel (scan.c): its value is not masked (NaN: BLANK, NaN or a
// value beyond 1e30 as read) and its detection-image value is above the threshold (a NaN there
// is not above it). One definition for the CPU's detection and blanking and the GPU's
// labelling, blanking codes and peak counts, which must agree pixel for pixel.
#pragma once

#include "celeris/host_device.hpp"

namespace celeris::extract {

CELERIS_HD inline bool detected_pixel(float value, float cvalue, float threshold) {
  return value == value && cvalue > threshold;  // value == value: not NaN, on either compiler
}

}  // namespace celeris::extract
