// The GPU measurement drivers' shared parts (measure_context.hpp).
#include "extract/gpu/measure_context.hpp"

#include <algorithm>
#include <type_traits>

#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"

namespace celeris::extract::gpu {

std::shared_ptr<MeasureContext> take_measure_context() {
  static cuda::ContextPool<MeasureContext>* pool = new cuda::ContextPool<MeasureContext>;
  return pool->take([] {
    auto made = std::make_unique<MeasureContext>();
    int device = 0;
    CELERIS_CUDA_CHECK(cudaGetDevice(&device));
    CELERIS_CUDA_CHECK(cudaDeviceGetAttribute(&made->sms, cudaDevAttrMultiProcessorCount, device));
    return made;
  });
}

InputLayout::InputLayout(size_t n, size_t na, size_t nf)
    : shapes(all.add<ApertureShape>(n)),
      order(all.add<int32_t>(n)),
      apertures(all.add<double>(na)),
      fractions(all.add<double>(nf)) {}

OutputLayout::OutputLayout(size_t n, size_t na, size_t nf)
    : flux_aper(all.add<double>(n * na)),
      fluxerr_aper(all.add<double>(n * na)),
      flux_auto(all.add<double>(n)),
      fluxerr_auto(all.add<double>(n)),
      kron(all.add<float>(n)),
      flux_radius(all.add<float>(n * nf)),
      hl(all.add<float>(n)),
      flags(all.add<uint16_t>(n)) {}

double growth_radius(const ApertureShape& s, double min_rlim) {
  return std::max(phot::kGrowthNSig * s.a, min_rlim);
}

void split_by_size(const ApertureShape* shapes, size_t n, double min_rlim, double host_rlim,
                   int threads, std::vector<int32_t>& device, std::vector<int32_t>& host) {
  constexpr int kBins = 256, kHost = kBins;  // bins 0 .. 255 by decreasing radius; the host
  std::vector<uint16_t> bins(n);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (size_t i = 0; i < n; ++i) {
    const double r = growth_radius(shapes[i], min_rlim);
    bins[i] = static_cast<uint16_t>(r >= host_rlim            ? kHost
                                    : r >= 0 && r < kBins - 1 ? kBins - 1 - static_cast<int>(r)
                                                              : 0);  // NaN, huge: first
  }
  std::vector<int64_t> start(kBins + 1, 0);
  device.clear();
  host.clear();
  for (size_t i = 0; i < n; ++i) {
    if (bins[i] == kHost)
      host.push_back(static_cast<int32_t>(i));
    else
      ++start[bins[i] + 1];
  }
  for (int b = 0; b < kBins; ++b) start[b + 1] += start[b];
  device.resize(static_cast<size_t>(start[kBins]));
  for (size_t i = 0; i < n; ++i)
    if (bins[i] != kHost) device[static_cast<size_t>(start[bins[i]]++)] = static_cast<int32_t>(i);
}

PhotometryArgs photometry_args(const phot::View& view, const PhotometryRequest& request,
                               const MeasureContext& c, const unsigned char* d_in,
                               const InputLayout& in, unsigned char* d_out, const OutputLayout& out,
                               size_t first, const ApertureShape* shapes,
                               const std::vector<int32_t>& device_order, size_t frame_objects) {
  const size_t na = request.apertures.size(), nf = request.fluxfrac.size();
  PhotometryArgs a;
  a.field = view;
  a.shapes = reinterpret_cast<const ApertureShape*>(d_in + in.shapes) + first;
  a.n = static_cast<int64_t>(device_order.size());
  a.order = reinterpret_cast<const int32_t*>(d_in + in.order) + first;
  // The kernel's order is by decreasing radius (NaN first): the warps' objects lead it.
  while (static_cast<size_t>(a.n_warp) < device_order.size() &&
         !(growth_radius(shapes[static_cast<size_t>(device_order[a.n_warp])],
                         request.autoparams.min_search) < request.warp_min_rlim))
    ++a.n_warp;
  const int64_t min_warps =
      request.min_warps >= 0 ? request.min_warps : int64_t{c.sms} * kResidentWarpsPerSm;
  a.n_warp = std::max(a.n_warp, std::min(min_warps, a.n));
  a.apertures = reinterpret_cast<const double*>(d_in + in.apertures);
  a.n_apertures = static_cast<int>(na);
  a.compute_auto = request.compute_auto;
  a.autoparams = request.autoparams;
  a.fractions = reinterpret_cast<const double*>(d_in + in.fractions);
  a.n_fluxfrac = static_cast<int>(nf);
  a.growth = request.growth;
  a.hl_radius = request.hl_radius;
  using GrowthKernel = PhotometryRequest::GrowthKernel;
  a.growth_apart = request.growth_kernel == GrowthKernel::apart ||
                   (request.growth_kernel == GrowthKernel::automatic &&
                    frame_objects > 2 * static_cast<size_t>(c.sms) * kResidentWarpsPerSm);
  a.growth_blocks_per_sm = request.growth_blocks_per_sm;
  a.flux_aper = reinterpret_cast<double*>(d_out + out.flux_aper) + first * na;
  a.fluxerr_aper = reinterpret_cast<double*>(d_out + out.fluxerr_aper) + first * na;
  a.flux_auto = reinterpret_cast<double*>(d_out + out.flux_auto) + first;
  a.fluxerr_auto = reinterpret_cast<double*>(d_out + out.fluxerr_auto) + first;
  a.kron_radius = reinterpret_cast<float*>(d_out + out.kron) + first;
  a.flux_radius = reinterpret_cast<float*>(d_out + out.flux_radius) + first * nf;
  a.hl_radius_out = reinterpret_cast<float*>(d_out + out.hl) + first;
  a.flags = reinterpret_cast<uint16_t*>(d_out + out.flags) + first;
  return a;
}

void gather_columns(const unsigned char* got, const OutputLayout& lay, size_t n, size_t na,
                    size_t nf, int threads, PhotometryColumns& out) {
  auto take = [&](auto& v, size_t at, size_t count) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    const T* p = reinterpret_cast<const T*>(got + at);
    v.assign(p, p + count);
  };
  // The columns' storage taken on this thread (Objects::resize says why), then copied by the team.
  out.size_columns(n, na, nf, false);
  // The eight columns copied side by side (each one's pages are new), by the team the rows after
  // this call use: libgomp ends the threads a smaller team leaves out, and the next full team
  // makes them again (sections on eight threads left the rows' loop 0.43 ms slower on a crowded
  // 4096^2 frame, H200, stop 47).
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int k = 0; k < 8; ++k) {
    switch (k) {
      case 0:
        take(out.flux_aper, lay.flux_aper, n * na);
        break;
      case 1:
        take(out.fluxerr_aper, lay.fluxerr_aper, n * na);
        break;
      case 2:
        take(out.flux_auto, lay.flux_auto, n);
        break;
      case 3:
        take(out.fluxerr_auto, lay.fluxerr_auto, n);
        break;
      case 4:
        take(out.kron_radius, lay.kron, n);
        break;
      case 5:
        take(out.flux_radius, lay.flux_radius, n * nf);
        break;
      case 6:
        take(out.hl_radius, lay.hl, n);
        break;
      default:
        take(out.flags, lay.flags, n);
    }
  }
}

}  // namespace celeris::extract::gpu
