// Math of the spatial preprocessing (SPP) shared by the CPU reference, the CPU implementation and
// the CUDA kernels, so the backends cannot drift apart. Equations refer to Delgado et al.
// (papers/hyperspectral-spp.txt); the choices the paper leaves open are documented in
// include/celeris/hyperspectral.hpp.
#pragma once

#include <cmath>

#include "celeris/host_device.hpp"

namespace celeris::hyperspectral::sppmath {

// Eq. (3) before normalisation: 1 / (a^2 + b^2) for a neighbour at offset (a, b); the centre
// (0, 0) is not a neighbour and weighs 0.
template <class T>
CELERIS_HD inline T beta_raw(int a, int b) {
  return (a == 0 && b == 0) ? T(0) : T(1) / static_cast<T>(a * a + b * b);
}

// Eq. (2) from d2 = |u - v|^2 of the unit vectors u, v: gamma = 2 atan2(|u - v|, |u + v|),
// |u + v|^2 = 4 - d2. Equal to arccos<u, v> but accurate for nearly parallel spectra.
template <class T>
CELERIS_HD inline T angle_from_unit_d2(T d2) {
  d2 = d2 < T(0) ? T(0) : (d2 > T(4) ? T(4) : d2);
#if defined(__CUDA_ARCH__)
  return T(2) * atan2(sqrt(d2), sqrt(T(4) - d2));
#else
  return T(2) * std::atan2(std::sqrt(d2), std::sqrt(T(4) - d2));
#endif
}

// Angle when at least one spectrum has zero norm: 0 between two zero spectra, pi/2 otherwise.
template <class T>
CELERIS_HD inline T zero_norm_angle(bool zero_a, bool zero_b) {
  return (zero_a && zero_b) ? T(0) : T(1.5707963267948966);
}

// Eq. (4).
template <class T>
CELERIS_HD inline T rho(T alpha) {
#if defined(__CUDA_ARCH__)
  const T r = T(1) + sqrt(alpha);
#else
  const T r = T(1) + std::sqrt(alpha);
#endif
  return r * r;
}

// Eq. (5) for one band value.
template <class T>
CELERIS_HD inline T displace(T y, T centroid, T inv_rho) {
  return (y - centroid) * inv_rho + centroid;
}

}  // namespace celeris::hyperspectral::sppmath
