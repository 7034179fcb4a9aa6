// The GPU measurement's kernel (measure_kernels.cu), launched by measure_gpu.cpp. Plain C++17
// declarations on raw device pointers, so that the C++20 driver and nvcc both read them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "extract/stages/photometry_math.hpp"

namespace celeris::extract::gpu {

// One launch's inputs and outputs, all in device memory.
struct PhotometryArgs {
  phot::View field;  // the images (and blanking codes) on the device
  const ApertureShape* shapes = nullptr;
  int64_t n = 0;  // objects
  // Thread t measures object order[t]: objects of similar size side by side in a warp (and the
  // largest first), since a warp takes as long as its largest object.
  const int32_t* order = nullptr;
  const double* apertures = nullptr;  // FLUX_APER diameters measured
  int n_apertures = 0;
  bool compute_auto = true;  // FLUX_AUTO (else 0, as measure.cpp leaves it)
  AutoParams autoparams;
  const double* fractions = nullptr;  // PHOT_FLUXFRAC measured
  int n_fluxfrac = 0;
  bool growth = false;     // the growth curve runs (FLUX_RADIUS or the windowed measurements)
  bool hl_radius = false;  // and gives SExtractor's half-light radius
  // Outputs, object-major: flux_aper[i * n_apertures + k], flux_radius[i * n_fluxfrac + k].
  double *flux_aper = nullptr, *fluxerr_aper = nullptr;
  double *flux_auto = nullptr, *fluxerr_auto = nullptr;
  float *kron_radius = nullptr, *flux_radius = nullptr, *hl_radius_out = nullptr;
  uint16_t* flags = nullptr;  // the FLAGS bits photometry sets (the object's own are ORed later)
};

// Launch shape: one thread per object (in `order`), 128 per block. Memory traffic: each thread
// reads its apertures' pixels (and blanking codes) and writes its own outputs. Guarantees: every
// output is phot::aperture_flux / auto_flux / flux_radius's result on the CPU for the same inputs,
// bit for bit (the same source, sums in the same order, no FMA: --fmad=false).
void measure_photometry(const PhotometryArgs& args, cudaStream_t stream);

}  // namespace celeris::extract::gpu
