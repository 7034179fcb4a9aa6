// The GPU measurement's kernel (measure_kernels.cu), launched by measure_gpu.cpp. Plain C++17
// declarations on raw device pointers, so that the C++20 driver and nvcc both read them.
#pragma once

#include <cuda_runtime.h>

#include "extract/gpu/measure_object.hpp"

namespace celeris::extract::gpu {

// Launch shape: one warp per object for the first args.n_warp of `order`, one thread per object
// for the rest, 128 threads per block. Memory traffic: each object's apertures' pixels (and
// blanking codes) read, its own outputs written. Guarantees: every output is
// phot::aperture_flux / auto_flux / flux_radius's result on the CPU for the same inputs, bit for
// bit, in either form (the same source, sums in the same order, no FMA: --fmad=false).
// With args.growth_apart and args.growth_first, `fork` names a second stream and two events (no
// timing): the growth curve's first fill runs there beside the photometry (it needs no
// FLUX_AUTO), and `stream` waits for both before the growth curve goes on; without `fork` the
// growth kernel makes the first fill itself.
struct GrowthFork {
  cudaStream_t aux = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
};
void measure_photometry(const PhotometryArgs& args, cudaStream_t stream,
                        const GrowthFork* fork = nullptr);

// Warps of the kernel each SM holds at once (its launch bounds: four blocks of four warps).
constexpr int kResidentWarpsPerSm = 16;

}  // namespace celeris::extract::gpu
