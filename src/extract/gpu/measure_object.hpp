// One object's photometry as the GPU measurement's kernel computes it (measure_kernels.cu), over
// photometry_math.hpp: plain C++17 without CUDA headers, so that the host runs the same body for
// the objects it keeps (measure_gpu.cpp) and tests run it without a device.
#pragma once

#include <cstdint>

#include "celeris/host_device.hpp"
#include "extract/stages/photometry_math.hpp"

namespace celeris::extract::gpu {

// One launch's inputs and outputs, in device memory (in host memory where the host runs
// measure_object).
struct PhotometryArgs {
  phot::View field;  // the images (and blanking codes) on the device
  const ApertureShape* shapes = nullptr;
  int64_t n = 0;  // objects the kernel measures
  // Object order[t] is measured by warp t for t < n_warp (the largest objects: measure_warp.cuh),
  // then by thread t - n_warp: objects of similar size side by side in a warp (and the largest
  // first), since a warp takes as long as its largest object.
  const int32_t* order = nullptr;
  int64_t n_warp = 0;
  const double* apertures = nullptr;  // FLUX_APER diameters measured
  int n_apertures = 0;
  bool compute_auto = true;  // FLUX_AUTO (else 0, as measure.cpp leaves it)
  AutoParams autoparams;
  const double* fractions = nullptr;  // PHOT_FLUXFRAC measured
  int n_fluxfrac = 0;
  bool growth = false;     // the growth curve runs (FLUX_RADIUS or the windowed measurements)
  bool hl_radius = false;  // and gives SExtractor's half-light radius
  // The growth curve in a second kernel, every object a warp's, after the first has made the
  // apertures and AUTO (measure_kernels.cu): the first then keeps fewer registers live.
  bool growth_apart = false;
  int growth_blocks_per_sm = 6;  // that kernel's launch bounds: 4, 6 or 8
  // With growth_apart: each object's cumul[0 .. GrowthCurve::kFirstFill) from the growth
  // curve's first fill, made beside the photometry kernel (measure_photometry's GrowthFork), at
  // growth_first[i * kFirstFill]; null: the growth kernel makes the first fill itself.
  double* growth_first = nullptr;
  // Outputs, object-major: flux_aper[i * n_apertures + k], flux_radius[i * n_fluxfrac + k].
  double *flux_aper = nullptr, *fluxerr_aper = nullptr;
  double *flux_auto = nullptr, *fluxerr_auto = nullptr;
  float *kron_radius = nullptr, *flux_radius = nullptr, *hl_radius_out = nullptr;
  uint16_t* flags = nullptr;  // the FLAGS bits photometry sets (the object's own are ORed later)
};

// Object i's photometry into a's outputs, the calls in measure.cpp's order (apertures, Kron,
// growth curve) so that the FLAGS bits and every value are the CPU's. `sum_box(sum)` sums a box
// and `flux_radius(...)` runs the growth curve (phot::flux_radius's arguments): by this thread
// alone (measure_object), or by a warp (measure_warp.cuh), each lane then holding the same
// values and only the `writer` lane writing them.
template <class SumBox, class FluxRadius>
CELERIS_HD inline void measure_object_with(const PhotometryArgs& a, int64_t i,
                                           const SumBox& sum_box, const FluxRadius& flux_radius,
                                           bool writer) {
  const ApertureShape s = a.shapes[i];
  uint16_t flags = 0;
  for (int k = 0; k < a.n_apertures; ++k) {
    const FluxResult r = phot::aperture_flux(a.field, s, a.apertures[k], flags, sum_box);
    if (writer) {
      a.flux_aper[i * a.n_apertures + k] = r.flux;
      a.fluxerr_aper[i * a.n_apertures + k] = r.fluxerr;
    }
  }
  AutoResult au;
  if (a.compute_auto) au = phot::auto_flux(a.field, s, a.autoparams, flags, sum_box);
  // Written before the growth curve, which then needs only au.flux (fewer registers kept).
  if (writer) {
    a.flux_auto[i] = au.flux;
    a.fluxerr_auto[i] = au.fluxerr;
    a.kron_radius[i] = au.kron_radius;
  }
  float hl = 0.5f;
  if (a.growth)
    flux_radius(a.field, s, static_cast<float>(au.flux), a.fractions, a.n_fluxfrac,
                a.autoparams.min_search, a.flux_radius + i * a.n_fluxfrac, flags,
                a.hl_radius ? &hl : nullptr);
  if (writer) {
    a.hl_radius_out[i] = hl;
    a.flags[i] = flags;
  }
}

// Object i by this thread alone: the kernel's body for the smaller objects, also run on the
// host (with host pointers in `a`) for the objects kept there.
CELERIS_HD inline void measure_object(const PhotometryArgs& a, int64_t i) {
  measure_object_with(a, i, phot::SumBoxOnOneThread{}, phot::FluxRadiusOnOneThread{}, true);
}

}  // namespace celeris::extract::gpu
