// The GPU measurement's kernel: photometry_math.hpp's functions, one object per thread, in the
// order measure.cpp calls them (apertures, Kron, growth curve), so that the FLAGS bits and every
// value are the CPU's.
#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/measure_kernels.hpp"

namespace celeris::extract::gpu {

namespace {

__global__ void photometry_kernel(const PhotometryArgs a) {
  const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= a.n) return;
  const int64_t i = a.order[t];
  const ApertureShape s = a.shapes[i];
  uint16_t flags = 0;
  for (int k = 0; k < a.n_apertures; ++k) {
    const FluxResult r = phot::aperture_flux(a.field, s, a.apertures[k], flags);
    a.flux_aper[i * a.n_apertures + k] = r.flux;
    a.fluxerr_aper[i * a.n_apertures + k] = r.fluxerr;
  }
  AutoResult au;
  if (a.compute_auto) au = phot::auto_flux(a.field, s, a.autoparams, flags);
  a.flux_auto[i] = au.flux;
  a.fluxerr_auto[i] = au.fluxerr;
  a.kron_radius[i] = au.kron_radius;
  float hl = 0.5f;
  if (a.growth)
    phot::flux_radius(a.field, s, static_cast<float>(au.flux), a.fractions, a.n_fluxfrac,
                      a.autoparams.min_search, a.flux_radius + i * a.n_fluxfrac, flags,
                      a.hl_radius ? &hl : nullptr);
  a.hl_radius_out[i] = hl;
  a.flags[i] = flags;
}

}  // namespace

void measure_photometry(const PhotometryArgs& args, cudaStream_t stream) {
  if (args.n == 0) return;
  constexpr int kBlock = 128;
  const int64_t blocks = (args.n + kBlock - 1) / kBlock;
  photometry_kernel<<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(args);
  cuda::cuda_check_launch("photometry_kernel");
}

}  // namespace celeris::extract::gpu
