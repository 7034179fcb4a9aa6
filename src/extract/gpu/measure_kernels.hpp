// The GPU measurement's kernel (measure_kernels.cu), launched by measure_gpu.cpp. Plain C++17
// declarations on raw device pointers, so that the C++20 driver and nvcc both read them.
#pragma once

#include <cuda_runtime.h>

#include "extract/gpu/measure_object.hpp"

namespace celeris::extract::gpu {

// Launch shape: one thread per object (in `order`), 128 per block. Memory traffic: each thread
// reads its apertures' pixels (and blanking codes) and writes its own outputs. Guarantees: every
// output is phot::aperture_flux / auto_flux / flux_radius's result on the CPU for the same inputs,
// bit for bit (the same source, sums in the same order, no FMA: --fmad=false).
void measure_photometry(const PhotometryArgs& args, cudaStream_t stream);

}  // namespace celeris::extract::gpu
