// The GPU measurement's driver (measure_gpu.hpp): a process-wide context (stream, device and
// page-locked buffers grown as frames need), the images up, one kernel, the columns down.
#include "extract/gpu/measure_gpu.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/staged_upload.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/measure_kernels.hpp"

namespace celeris::extract::gpu {

namespace {

enum Mark { kStart, kUploaded, kMeasured, kDownloaded, kMarks };

// Everything one frame after another reuses: one per call at a time, from a process-wide pool
// (a stream's back workers each take their own).
struct Context {
  cuda::Stream stream;
  // The growth curve's first fill beside the photometry kernel (GrowthFork), and its bins.
  cuda::Stream aux;
  cuda::Event fork{false}, join{false};
  cuda::DeviceBuffer<double> growth_first;
  cuda::EventTimer timer{kMarks};
  int sms = 1;  // the device's multiprocessors
  cuda::DeviceBuffer<float> value, var, dvar, dvalue;
  cuda::DeviceBuffer<int32_t> code, dcode;  // the blanking codes; dual-image mode's detection side
  // The small inputs (shapes, diameters, fractions) and all outputs, each packed in one buffer
  // so that each crosses the bus in one copy.
  cuda::DeviceBuffer<unsigned char> in, out;
  cuda::PinnedBuffer<unsigned char> staged_in, staged_out;
  // Uploads from pageable memory (the blanking codes made on the host, weight maps).
  cuda::StagedUpload staging;
};

std::shared_ptr<Context> take_context() {
  static cuda::ContextPool<Context>* pool = new cuda::ContextPool<Context>;
  return pool->take([] {
    auto made = std::make_unique<Context>();
    int device = 0;
    CELERIS_CUDA_CHECK(cudaGetDevice(&device));
    CELERIS_CUDA_CHECK(cudaDeviceGetAttribute(&made->sms, cudaDevAttrMultiProcessorCount, device));
    return made;
  });
}

// Byte offsets of consecutive arrays in one buffer, each 16-byte aligned.
class Layout {
 public:
  template <class T>
  size_t add(size_t count) {
    const size_t at = bytes_;
    bytes_ += (count * sizeof(T) + 15) / 16 * 16;
    return at;
  }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_ = 0;
};

// The growth curve's radius (6 A_IMAGE, or PHOT_AUTOAPERS' search diameter when larger), which
// also sizes the Kron boxes: the measure of an object's work.
double growth_radius(const ApertureShape& s, double min_rlim) {
  return std::max(phot::kGrowthNSig * s.a, min_rlim);
}

// The objects the kernel measures, by decreasing growth radius (a counting sort), so that a
// warp's objects are alike and the largest start first; those whose radius reaches `host_rlim`
// go to `host` instead. Any order gives the same results: each object is measured alone. The
// radii's bins are taken on `threads` threads (the shapes are read once, about 3 MB on a crowded
// frame), the sort on one.
void split_by_size(const std::vector<ApertureShape>& shapes, double min_rlim, double host_rlim,
                   int threads, std::vector<int32_t>& device, std::vector<int32_t>& host) {
  constexpr int kBins = 256, kHost = kBins;  // bins 0 .. 255 by decreasing radius; the host
  std::vector<uint16_t> bins(shapes.size());
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < shapes.size(); ++i) {
    const double r = growth_radius(shapes[i], min_rlim);
    bins[i] = static_cast<uint16_t>(r >= host_rlim            ? kHost
                                    : r >= 0 && r < kBins - 1 ? kBins - 1 - static_cast<int>(r)
                                                              : 0);  // NaN, huge: first
  }
  std::vector<int64_t> start(kBins + 1, 0);
  device.clear();
  host.clear();
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (bins[i] == kHost)
      host.push_back(static_cast<int32_t>(i));
    else
      ++start[bins[i] + 1];
  }
  for (int b = 0; b < kBins; ++b) start[b + 1] += start[b];
  device.resize(static_cast<size_t>(start[kBins]));
  for (size_t i = 0; i < shapes.size(); ++i)
    if (bins[i] != kHost) device[static_cast<size_t>(start[bins[i]]++)] = static_cast<int32_t>(i);
}

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
const T* upload_image(Context& c, cuda::DeviceBuffer<T>& d, const T* host, size_t n, cudaStream_t s,
                      int threads) {
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
  const std::shared_ptr<Context> taken = take_context();
  Context& c = *taken;
  out.lock_wait = std::chrono::duration<double>(Clock::now() - t_lock).count();
  const cudaStream_t s = c.stream.get();

  // The device's view of the field: the host's with device pointers (codes made on the GPU
  // already there).
  phot::View view = photometry_view(field, false);
  const size_t npix = static_cast<size_t>(field.value.width) * field.value.height;
  Layout in;
  std::vector<int32_t> on_device, on_host;
  split_by_size(shapes, request.autoparams.min_search, request.host_min_rlim,
                std::max(1, request.host_threads), on_device, on_host);
  balance(shapes, request.autoparams.min_search, request.device_slowdown,
          std::max(1, request.host_threads), on_device, on_host);
  const size_t at_shapes = in.add<ApertureShape>(n), at_order = in.add<int32_t>(n),
               at_apertures = in.add<double>(na), at_fractions = in.add<double>(nf);
  Layout lay;
  const size_t at_flux_aper = lay.add<double>(n * na), at_fluxerr_aper = lay.add<double>(n * na),
               at_flux_auto = lay.add<double>(n), at_fluxerr_auto = lay.add<double>(n),
               at_kron = lay.add<float>(n), at_flux_radius = lay.add<float>(n * nf),
               at_hl = lay.add<float>(n), at_flags = lay.add<uint16_t>(n);
  c.staged_in.grow(in.bytes());
  c.staged_out.grow(lay.bytes());
  unsigned char* staged = c.staged_in.data();
  // The shapes: about 3 MB on a crowded frame.
  cuda::copy_in_slices(staged + at_shapes, shapes.data(), n * sizeof(ApertureShape),
                       std::max(1, request.host_threads));
  if (!on_device.empty())
    std::memcpy(staged + at_order, on_device.data(), on_device.size() * sizeof(int32_t));
  if (na) std::memcpy(staged + at_apertures, request.apertures.data(), na * sizeof(double));
  if (nf) std::memcpy(staged + at_fractions, request.fluxfrac.data(), nf * sizeof(double));
  unsigned char* d_in = c.in.grow(in.bytes());
  unsigned char* d_out = c.out.grow(lay.bytes());
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
  c.in.upload_async(staged, in.bytes(), s);  // page-locked
  c.timer.mark(kUploaded, s);

  PhotometryArgs a;
  a.field = view;
  a.shapes = reinterpret_cast<const ApertureShape*>(d_in + at_shapes);
  a.n = static_cast<int64_t>(on_device.size());
  a.order = reinterpret_cast<const int32_t*>(d_in + at_order);
  // The kernel's order is by decreasing radius (NaN first): the warps' objects lead it.
  while (static_cast<size_t>(a.n_warp) < on_device.size() &&
         !(growth_radius(shapes[static_cast<size_t>(on_device[a.n_warp])],
                         request.autoparams.min_search) < request.warp_min_rlim))
    ++a.n_warp;
  const int64_t min_warps =
      request.min_warps >= 0 ? request.min_warps : int64_t{c.sms} * kResidentWarpsPerSm;
  a.n_warp = std::max(a.n_warp, std::min(min_warps, static_cast<int64_t>(on_device.size())));
  out.warp_objects = static_cast<size_t>(a.n_warp);
  a.apertures = reinterpret_cast<const double*>(d_in + at_apertures);
  a.n_apertures = static_cast<int>(na);
  a.compute_auto = request.compute_auto;
  a.autoparams = request.autoparams;
  a.fractions = reinterpret_cast<const double*>(d_in + at_fractions);
  a.n_fluxfrac = static_cast<int>(nf);
  a.growth = request.growth;
  a.hl_radius = request.hl_radius;
  using GrowthKernel = PhotometryRequest::GrowthKernel;
  a.growth_apart = request.growth_kernel == GrowthKernel::apart ||
                   (request.growth_kernel == GrowthKernel::automatic &&
                    a.n > 2 * int64_t{c.sms} * kResidentWarpsPerSm);
  a.growth_blocks_per_sm = request.growth_blocks_per_sm;
  a.flux_aper = reinterpret_cast<double*>(d_out + at_flux_aper);
  a.fluxerr_aper = reinterpret_cast<double*>(d_out + at_fluxerr_aper);
  a.flux_auto = reinterpret_cast<double*>(d_out + at_flux_auto);
  a.fluxerr_auto = reinterpret_cast<double*>(d_out + at_fluxerr_auto);
  a.kron_radius = reinterpret_cast<float*>(d_out + at_kron);
  a.flux_radius = reinterpret_cast<float*>(d_out + at_flux_radius);
  a.hl_radius_out = reinterpret_cast<float*>(d_out + at_hl);
  a.flags = reinterpret_cast<uint16_t*>(d_out + at_flags);
  if (a.growth && a.growth_apart && request.growth_first_beside)
    a.growth_first = c.growth_first.grow(n * phot::GrowthCurve::kFirstFill);
  const GrowthFork fork{c.aux.get(), c.fork.get(), c.join.get()};
  measure_photometry(a, s, &fork);
  c.timer.mark(kMeasured, s);
  c.out.download_async(c.staged_out.data(), lay.bytes(), s);
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
    held.flux_aper.resize(n * na);
    held.fluxerr_aper.resize(n * na);
    held.flux_auto.resize(n);
    held.fluxerr_auto.resize(n);
    held.kron_radius.resize(n);
    held.flux_radius.resize(n * nf);
    held.hl_radius.resize(n);
    held.flags.resize(n);
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
  const unsigned char* got = c.staged_out.data();
  auto take = [&](auto& v, size_t at, size_t count) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    const T* p = reinterpret_cast<const T*>(got + at);
    v.assign(p, p + count);
  };
  // The eight columns copied side by side (each one's pages are new), by the team the rows after
  // this call use: libgomp ends the threads a smaller team leaves out, and the next full team
  // makes them again (sections on eight threads left the rows' loop 0.43 ms slower on a crowded
  // 4096^2 frame, H200, stop 47).
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
  for (int k = 0; k < 8; ++k) {
    switch (k) {
      case 0:
        take(out.flux_aper, at_flux_aper, n * na);
        break;
      case 1:
        take(out.fluxerr_aper, at_fluxerr_aper, n * na);
        break;
      case 2:
        take(out.flux_auto, at_flux_auto, n);
        break;
      case 3:
        take(out.fluxerr_auto, at_fluxerr_auto, n);
        break;
      case 4:
        take(out.kron_radius, at_kron, n);
        break;
      case 5:
        take(out.flux_radius, at_flux_radius, n * nf);
        break;
      case 6:
        take(out.hl_radius, at_hl, n);
        break;
      default:
        take(out.flags, at_flags, n);
    }
  }
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
