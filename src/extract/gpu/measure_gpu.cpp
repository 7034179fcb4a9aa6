// The GPU measurement's driver for every row at once (measure_gpu.hpp): a context
// (measure_context.hpp), the images up, one kernel, the columns down.
#include "extract/gpu/measure_gpu.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/measure_context.hpp"

namespace celeris::extract::gpu {

namespace {

// Moves the largest of `device` (by decreasing radius) to `host` while the host threads, sharing
// the host's objects, would finish before the kernel's largest object (PhotometryRequest's
// device_slowdown). Bins of one pixel of radius: the order within the moved ones is the
// counting sort's.
void balance(const std::vector<ApertureShape>& shapes, double min_rlim, double slowdown,
             int threads, std::vector<int32_t>& device, std::vector<int32_t>& host) {
  if (!(slowdown > 0) || device.empty()) return;
  auto work = [&](int32_t i) {
    const double r = growth_radius(shapes[static_cast<size_t>(i)], min_rlim);
    return std::isfinite(r) ? (2 * r + 1) * (2 * r + 1) : 0.0;
  };
  double host_work = 0;
  for (const int32_t i : host) host_work += work(i);
  size_t moved = 0;
  for (; moved < device.size(); ++moved) {
    const double after = moved + 1 < device.size() ? work(device[moved + 1]) : 0.0;
    if ((host_work + work(device[moved])) / threads > slowdown * after) break;
    host_work += work(device[moved]);
  }
  host.insert(host.end(), device.begin(), device.begin() + static_cast<std::ptrdiff_t>(moved));
  device.erase(device.begin(), device.begin() + static_cast<std::ptrdiff_t>(moved));
}

// One image up (n pixels) into `d` on `s`; returns its device address.
template <class T>
const T* upload_image(MeasureContext& c, cuda::DeviceBuffer<T>& d, const T* host, size_t n,
                      cudaStream_t s, int threads) {
  c.staging.upload(d.grow(n), host, n * sizeof(T), s, threads);
  return d.data();
}

}  // namespace

PhotometryColumns measure_photometry(const PhotometryField& field,
                                     const std::vector<ApertureShape>& shapes,
                                     const PhotometryRequest& request) {
  cuda::cuda_require_device("--device cuda");
  using Clock = std::chrono::steady_clock;
  const auto t_setup = Clock::now();
  const size_t n = shapes.size();
  const size_t na = request.apertures.size(), nf = request.fluxfrac.size();
  PhotometryColumns out;
  if (n == 0) {
    if (request.meanwhile) request.meanwhile();
    return out;
  }
  const auto t_lock = Clock::now();
  const std::shared_ptr<MeasureContext> taken = take_measure_context();
  MeasureContext& c = *taken;
  out.lock_wait = std::chrono::duration<double>(Clock::now() - t_lock).count();
  const cudaStream_t s = c.stream.get();

  // The device's view of the field: the host's with device pointers (codes made on the GPU
  // already there).
  phot::View view = photometry_view(field, false);
  const size_t npix = static_cast<size_t>(field.value.width) * field.value.height;
  std::vector<int32_t> on_device, on_host;
  split_by_size(shapes.data(), n, request.autoparams.min_search, request.host_min_rlim,
                std::max(1, request.host_threads), on_device, on_host);
  balance(shapes, request.autoparams.min_search, request.device_slowdown,
          std::max(1, request.host_threads), on_device, on_host);
  const InputLayout in(n, na, nf);
  const OutputLayout lay(n, na, nf);
  c.staged_in.grow(in.all.bytes());
  c.staged_out.grow(lay.all.bytes());
  unsigned char* staged = c.staged_in.data();
  // The shapes: about 3 MB on a crowded frame.
  cuda::copy_in_slices(staged + in.shapes, shapes.data(), n * sizeof(ApertureShape),
                       std::max(1, request.host_threads));
  if (!on_device.empty())
    std::memcpy(staged + in.order, on_device.data(), on_device.size() * sizeof(int32_t));
  if (na) std::memcpy(staged + in.apertures, request.apertures.data(), na * sizeof(double));
  if (nf) std::memcpy(staged + in.fractions, request.fluxfrac.data(), nf * sizeof(double));
  unsigned char* d_in = c.in.grow(in.all.bytes());
  unsigned char* d_out = c.out.grow(lay.all.bytes());
  out.setup = std::chrono::duration<double>(Clock::now() - t_setup).count() - out.lock_wait;

  c.timer.mark(kStart, s);
  const int nt = std::max(1, request.host_threads);
  view.value = field.value_on_device ? field.value_on_device
                                     : upload_image(c, c.value, field.value.data, npix, s, nt);
  // The blanking codes are read only where MASK_TYPE is not NONE.
  auto codes = [&](const Blanking* b, const int32_t* on_device, cuda::DeviceBuffer<int32_t>& d) {
    if (!view.mask_detected || !b) return static_cast<const int32_t*>(nullptr);
    return on_device ? on_device : upload_image(c, d, b->view().code, npix, s, nt);
  };
  view.blanking.code = codes(field.blanking, view.blanking.code, c.code);
  // Dual-image mode: the detection image's own blanking, which Kron's radius pass reads.
  view.dblanking.code = codes(field.dblanking, view.dblanking.code, c.dcode);
  // One map for detection and measurement: its variances go up once.
  const float* host_var = view.var;
  if (view.var)
    view.var =
        field.var_on_device ? field.var_on_device : upload_image(c, c.var, view.var, npix, s, nt);
  if (view.dvar)
    view.dvar = view.dvar == host_var ? view.var : upload_image(c, c.dvar, view.dvar, npix, s, nt);
  if (view.dvalue) view.dvalue = upload_image(c, c.dvalue, view.dvalue, npix, s, nt);
  c.in.upload_async(staged, in.all.bytes(), s);  // page-locked
  c.timer.mark(kUploaded, s);

  PhotometryArgs a = photometry_args(view, request, c, d_in, in, d_out, lay, 0, shapes.data(),
                                     on_device, on_device.size());
  out.warp_objects = static_cast<size_t>(a.n_warp);
  if (a.growth && a.growth_apart && request.growth_first_beside)
    a.growth_first = c.growth_first.grow(n * phot::GrowthCurve::kFirstFill);
  const GrowthFork fork{c.aux.get(), c.fork.get(), c.join.get()};
  measure_photometry(a, s, &fork);
  c.timer.mark(kMeasured, s);
  c.out.download_async(c.staged_out.data(), lay.all.bytes(), s);
  c.timer.mark(kDownloaded, s);
  // Codes made on the GPU that host code will read start their copy now, beside the kernel.
  if (view.mask_detected && (request.host_reads_codes || !on_host.empty()))
    for (const Blanking* b : {field.blanking, field.dblanking})
      if (b) b->prefetch_host();
  // Meanwhile the largest objects on the host threads, with the same function.
  const auto t_host = Clock::now();
  PhotometryColumns held;
  if (!on_host.empty()) {
    const phot::View host_view = photometry_view(field);
    held.size_columns(n, na, nf, true);
    PhotometryArgs h = a;
    h.field = host_view;
    h.shapes = shapes.data();
    h.apertures = request.apertures.data();
    h.fractions = request.fluxfrac.data();
    h.flux_aper = held.flux_aper.data();
    h.fluxerr_aper = held.fluxerr_aper.data();
    h.flux_auto = held.flux_auto.data();
    h.fluxerr_auto = held.fluxerr_auto.data();
    h.kron_radius = held.kron_radius.data();
    h.flux_radius = held.flux_radius.data();
    h.hl_radius_out = held.hl_radius.data();
    h.flags = held.flags.data();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (size_t j = 0; j < on_host.size(); ++j) measure_object(h, on_host[j]);
  }
  out.host = std::chrono::duration<double>(Clock::now() - t_host).count();
  out.host_objects = on_host.size();
  if (request.meanwhile) {
    const auto t_meanwhile = Clock::now();
    request.meanwhile();
    out.meanwhile = std::chrono::duration<double>(Clock::now() - t_meanwhile).count();
  }
  c.stream.synchronize();
  out.upload = c.timer.seconds(kStart, kUploaded);
  out.kernel = c.timer.seconds(kUploaded, kMeasured);
  out.download = c.timer.seconds(kMeasured, kDownloaded);

  const auto t_gather = Clock::now();
  gather_columns(c.staged_out.data(), lay, n, na, nf, nt, out);
  for (const int32_t i : on_host) {
    for (size_t k = 0; k < na; ++k) {
      out.flux_aper[i * na + k] = held.flux_aper[i * na + k];
      out.fluxerr_aper[i * na + k] = held.fluxerr_aper[i * na + k];
    }
    out.flux_auto[i] = held.flux_auto[i];
    out.fluxerr_auto[i] = held.fluxerr_auto[i];
    out.kron_radius[i] = held.kron_radius[i];
    for (size_t k = 0; k < nf; ++k) out.flux_radius[i * nf + k] = held.flux_radius[i * nf + k];
    out.hl_radius[i] = held.hl_radius[i];
    out.flags[i] = held.flags[i];
  }
  out.gather = std::chrono::duration<double>(Clock::now() - t_gather).count();
  return out;
}

}  // namespace celeris::extract::gpu
