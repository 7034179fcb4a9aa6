// Internal to celeris: the SPP implementations behind spp(cube, options), for spp.cpp's dispatch,
// the tests that compare backends and the benchmarks. The public entry point is spp() in
// include/celeris/hyperspectral.hpp; nothing here is part of the public API.
#pragma once

#include <string>
#include <vector>

#include "celeris/hyperspectral.hpp"

namespace celeris::hyperspectral {

// Multi-threaded (OpenMP) float32 CPU implementation.
SppResult spp_cpu(const Cube& cube, int window, bool keep_alpha = false);
SppResult spp_cpu(Cube&& cube, int window, bool keep_alpha = false);

// CUDA implementation (throws when not compiled or no device): upload, spp_cuda_device, download.
// `kernel`: one of spp_cuda_kernels() (SppOptions::kernel says what each does).
SppResult spp_cuda(const Cube& cube, int window, bool keep_alpha = false,
                   const std::string& kernel = "strip");
SppResult spp_cuda(Cube&& cube, int window, bool keep_alpha = false,
                   const std::string& kernel = "strip");

// Device-resident SPP, for benchmarks that keep the cube on the GPU: `d_cube` is a device pointer
// to bands x lines x samples float32 (BSQ), displaced in place (eqs. 1-5 all on the GPU:
// centroid, norms, alpha, rho, displacement). `d_alpha` (device, lines * samples floats) receives
// alpha when not null; `centroid` (host) the centroid when not null. Scratch (about 17 bytes per
// pixel, plus a unit-spectra copy of the cube for the block and tile kernels) is allocated and
// freed inside the call.
struct SppDeviceTimes {
  double total = 0;     // seconds, CUDA events around all stages (scratch allocation excluded)
  double centroid = 0;  // per stage, seconds
  double normalise = 0;
  double alpha = 0;
  double displace = 0;
  double wall = 0;  // host clock for the whole call, scratch allocation and free included
};
SppDeviceTimes spp_cuda_device(float* d_cube, int bands, int lines, int samples, int window,
                               const std::string& kernel = "strip", float* d_alpha = nullptr,
                               std::vector<double>* centroid = nullptr);

}  // namespace celeris::hyperspectral
