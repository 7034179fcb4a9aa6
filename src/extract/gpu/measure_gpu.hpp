// The measurement's photometry on the GPU: FLUX_APER (every aperture), FLUX_AUTO, FLUXERR_AUTO,
// KRON_RADIUS, FLUX_RADIUS (and the half-light radius the windowed measurements start from) of
// all objects at once, with the CPU's arithmetic (stages/photometry_math.hpp) and the CPU's
// results bit for bit. The images and the blanking codes go up once, on one stream, unless
// they are there already (PhotometryField::value_on_device, Blanking::device_view); the
// columns come back once. measure.cpp calls it with --device cuda; tests and benchmarks call it
// directly.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "core/cuda/stream_handle.hpp"
#include "extract/stages/photometry.hpp"

namespace celeris::extract::gpu {

// What to measure (measure.cpp's MeasureParams, reduced to photometry).
struct PhotometryRequest {
  std::vector<double> apertures;  // FLUX_APER diameters measured (PHOT_APERTURES' first ones)
  bool compute_auto = true;       // FLUX_AUTO family (else 0, as on the CPU)
  AutoParams autoparams;
  std::vector<double> fluxfrac;  // FLUX_RADIUS fractions measured
  bool growth = false;           // run the growth curve (FLUX_RADIUS or windowed measurements)
  bool hl_radius = false;        // and return the half-light radius (windowed measurements)
  // Where the growth curve runs (the same columns either way): in the photometry kernel, or in
  // a kernel of its own after it, every object a warp's (PhotometryArgs::growth_apart).
  // automatic: apart when the device measures more objects than twice the warps it holds at once
  // (stop 39, H200, the growth curve's kernel at six blocks per SM: crowded 4096^2, 42,641
  // objects, 3.2 -> 2.35 ms; sparse, 1,284 objects, all in one wave, 0.26 -> 0.35 ms).
  enum class GrowthKernel { automatic, inside, apart };
  GrowthKernel growth_kernel = GrowthKernel::automatic;
  int growth_blocks_per_sm = 6;  // its launch bounds (PhotometryArgs): 4, 6 or 8
  // With the growth curve in a kernel of its own: its first fill (a quarter of the bins, which
  // needs no FLUX_AUTO) on a second stream beside the photometry kernel, the rest after both
  // (PhotometryArgs::growth_first); false: all of it after the photometry.
  bool growth_first_beside = true;
  int host_threads = 1;  // for copying pageable images into page-locked chunks
  // Whether host code reads the blanking codes after this call (windowed, Petrosian, VIGNET
  // columns): codes made on the GPU then start their copy to the host beside the kernel.
  bool host_reads_codes = false;
  // Objects whose growth curve reaches this radius (6 A_IMAGE, or PHOT_AUTOAPERS' search
  // diameter when larger; pixels) are measured on the host threads, with the same function,
  // while the kernel runs. The results are the same either way. 0: all on the host; infinity:
  // none by radius. Infinity since the largest objects are measured a warp each
  // (warp_min_rlim): a host share then made the call slower on the H200 (crowded 4096^2,
  // bench_gpu_photometry: 4.09 ms all on the GPU against 4.48 ms with 750 objects on the host,
  // which also needs the blanking codes copied back; bench/results/...-stop34.md).
  double host_min_rlim = std::numeric_limits<double>::infinity();
  // Below that radius, the largest objects also go to the host while the host threads would
  // still finish theirs before the kernel its largest: an object's work taken as its box,
  // (2 r + 1)^2 pixels, a GPU thread this many times slower than a host thread on it. 0: none
  // (the default, as for host_min_rlim; 80 was the best of 0-80 when every object was a thread's,
  // stop 28).
  double device_slowdown = 0;
  // Objects on the device whose growth radius reaches this are measured a warp each
  // (measure_warp.cuh), the others a thread each: a warp takes a large object many times faster
  // than one thread, a small one no faster and with 32 times the threads. Infinity: none. 8 on
  // the H200 (bench_gpu_photometry, all objects on the GPU, the kernel as built, four blocks per
  // SM: crowded 4096^2, warps from radius 4 / 6 / 8 / 12, 3.17 / 2.99 / 2.80 / 3.27 ms; threads
  // alone 14.4 ms with the compiler's registers; bench/results/...-stop34.md).
  double warp_min_rlim = 8.0;
  // At least this many of the largest objects on the device are measured a warp each, whatever
  // their radius: on a frame with few objects the warps' slots would otherwise sit idle while
  // single threads take the rest (sparse 4096^2, 1,284 objects: the kernel 0.87 ms with warps
  // from radius 8, 0.26 ms with every object a warp's). -1: as many as the device holds at once
  // (its SMs x measure_kernels.hpp's kResidentWarpsPerSm); 0: by radius alone.
  int64_t min_warps = -1;
  // Host work that does not need the photometry (measure.cpp: the catalog's columns and the
  // shape and isophotal columns), run after the host's own objects while the kernel may still
  // be running. Null: none.
  std::function<void()> meanwhile;
};

// The columns, object i at i (and i * apertures + k, i * fractions + k), as measure.cpp's CPU
// calls give them for shapes[i]; `flags` holds the bits photometry set, to OR into the object's.
struct PhotometryColumns {
  std::vector<double> flux_aper, fluxerr_aper;
  std::vector<double> flux_auto, fluxerr_auto;  // double, as auto_flux returns them
  std::vector<float> kron_radius, flux_radius, hl_radius;
  std::vector<uint16_t> flags;
  // Device time of each step (seconds): images, blanking and shapes up; the kernel; the
  // columns down. `setup`: host time before the first copy (buffers grown, inputs packed).
  double setup = 0, upload = 0, kernel = 0, download = 0;
  double lock_wait = 0;     // host time taking a context (a new one made the first times)
  double host = 0;          // host time measuring the objects kept there (beside the kernel)
  double gather = 0;        // host time after the kernel: the columns copied out and merged
  double meanwhile = 0;     // host time of PhotometryRequest::meanwhile (beside the kernel)
  size_t host_objects = 0;  // how many (host_min_rlim, device_slowdown)
  size_t warp_objects = 0;  // how many objects the kernel measured a warp each (warp_min_rlim)

  // Every column sized (`sized`) or its storage reserved for n rows of na apertures and nf
  // fractions.
  void size_columns(size_t n, size_t na, size_t nf, bool sized) {
    auto size = [sized](auto& column, size_t count) {
      if (sized)
        column.resize(count);
      else
        column.reserve(count);
    };
    size(flux_aper, n * na);
    size(fluxerr_aper, n * na);
    size(flux_auto, n);
    size(fluxerr_auto, n);
    size(kron_radius, n);
    size(flux_radius, n * nf);
    size(hl_radius, n);
    size(flags, n);
  }
};

// Throws celeris::Error without a CUDA device (or in a build without CUDA). Calls are serialised on
// one process-wide context whose device and page-locked buffers grow as frames need and are reused.
PhotometryColumns measure_photometry(const PhotometryField& field,
                                     const std::vector<ApertureShape>& shapes,
                                     const PhotometryRequest& request);

// The same photometry for rows decided one batch after another (the clean pass writes them out
// in order: stages/measure_beside_pass.hpp), each batch's kernels queued as it comes, the
// batches on four streams in turn, the columns of every row brought back once. The field's
// images must be on the device already (the batches upload none): value_on_device, and with
// weights var_on_device, the measurement variance, with `dvar_on_device` the detection
// variance Kron's first pass reads (the same map's for a frame of one weight map; the field's
// host views of both, var and dvar, stay empty, its wthresh, weight_gain and dwthresh are
// read); no dual-image images; its blanking is `codes`, whose codes are
// on the device, which work queued on stream() before a batch may still complete
// (CodesBesidePass::merge). Every object is measured on the device (the request's host share,
// host_min_rlim and device_slowdown, is not used), and the growth curve's kernel is chosen by
// `capacity` (PhotometryRequest::growth_kernel's automatic rule, as if every row were measured
// at once). Batches of any size give the same columns: each object is measured alone. Throws
// celeris::Error without a CUDA device (or in a build without CUDA).
class PhotometryBatches {
 public:
  // At most `capacity` rows in all.
  PhotometryBatches(const PhotometryField& field, const BlankingView& codes,
                    const PhotometryRequest& request, size_t capacity,
                    const float* dvar_on_device = nullptr);
  ~PhotometryBatches();
  PhotometryBatches(const PhotometryBatches&) = delete;
  PhotometryBatches& operator=(const PhotometryBatches&) = delete;

  // The stream that each batch's own stream waits on when it is launched: work queued here
  // before measure() (the blanking codes' merges) precedes that batch's kernels.
  cuda::StreamHandle stream() const;
  // Rows rows() .. rows() + count - 1, whose shapes are shapes[0 .. count).
  void measure(const ApertureShape* shapes, size_t count);
  // Every row's columns (as measure_photometry's for all the rows' shapes), `meanwhile` (host
  // work, as PhotometryRequest's) run while the last kernels may still be running. `kernel`: the
  // host's wait here for the kernels (and the download), `meanwhile` aside; `setup`: the host
  // time of the batches' launches.
  PhotometryColumns finish(const std::function<void()>& meanwhile = {});

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace celeris::extract::gpu
