// The position errors' guard for a singular profile, shared by the isophotal (iso_finish.hpp,
// on the host and the GPU) and the windowed errors. Plain C++17 (CELERIS_HD).
#pragma once

#include "celeris/host_device.hpp"

namespace celeris::extract {

// SExtractor's guard on position-error moments of a singular (fully correlated) profile: when
// their determinant is below esum^2, esum (a twelfth of a pixel, scaled as the moments) is added
// to both variances.
CELERIS_HD inline void guard_singular_errors(bool singular, double esum, double& emx2, double& emy2,
                                             double emxy) {
  if (singular && (emx2 * emy2 - emxy * emxy) < esum * esum) {
    emx2 += esum;
    emy2 += esum;
  }
}

}  // namespace celeris::extract
