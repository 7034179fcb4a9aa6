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
#include <vector>

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
  int host_threads = 1;          // for copying pageable images into page-locked chunks
  // Whether host code reads the blanking codes after this call (windowed, Petrosian, VIGNET
  // columns): codes made on the GPU then start their copy to the host beside the kernel.
  bool host_reads_codes = false;
  // Objects whose growth curve reaches this radius (6 A_IMAGE, or PHOT_AUTOAPERS' search
  // diameter when larger; pixels) are measured on the host threads, with the same function,
  // while the kernel runs: one GPU thread measures one object, some ten times slower than a CPU
  // core, and the kernel would wait on its largest object (a bright star of A_IMAGE 30 px).
  // The results are the same either way. 0: all on the host; infinity: all on the GPU.
  double host_min_rlim = 48.0;
  // Below that radius, the largest objects also go to the host while the host threads would
  // still finish theirs before the kernel its largest: an object's work taken as its box,
  // (2 r + 1)^2 pixels, a GPU thread this many times slower than a host thread on it. 80, the
  // best of 0-80 on the H100 with 16 host threads (bench_gpu_photometry, crowded 4096^2: the
  // call 9.95 -> 5.24 ms; sparse: 2.18 -> 1.0 ms at 40; bench/results/...-stop28.md). 0: none.
  double device_slowdown = 80;
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
  double host = 0;          // host time measuring the objects kept there (beside the kernel)
  double meanwhile = 0;     // host time of PhotometryRequest::meanwhile (beside the kernel)
  size_t host_objects = 0;  // how many (host_min_rlim, device_slowdown)
};

// Throws celeris::Error without a CUDA device (or in a build without CUDA). Calls are serialised on
// one process-wide context whose device and page-locked buffers grow as frames need and are reused.
PhotometryColumns measure_photometry(const PhotometryField& field,
                                     const std::vector<ApertureShape>& shapes,
                                     const PhotometryRequest& request);

}  // namespace celeris::extract::gpu
