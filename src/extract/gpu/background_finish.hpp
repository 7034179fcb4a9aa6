// The background mesh grid finished on the device, for the subtraction: background.cpp
// finish_background's map of backgrounds alone (bad meshes filled from their nearest good ones,
// the median filter, the y-splines' second derivatives), operation for operation, so that the
// GPU front end subtracts without waiting for the host. The host's finish still runs, beside the
// kernels, for what only the host reads (the RMS grid, the global values, the thresholds, the
// host's copy of the map), and gives the same grid (tests/extract/gpu_background_finish_test).
#pragma once

#include <cuda_runtime.h>

namespace celeris::extract::gpu {

struct BackGrid {
  int nx = 0, ny = 0;              // the mesh grid
  int filter_w = 1, filter_h = 1;  // BACK_FILTERSIZE
  double filter_thresh = 0.0;      // BACK_FILTTHRESH
};

// Whether the device finishes this grid: where its median filter's windows hold at most 32
// meshes. The host's median_of sorts those by insertion (or its 9-value network), whose pick
// among equal values of either sign (+0 and -0) the device repeats; larger windows go through
// nth_element, whose pick it does not: such frames wait for the host's finish, as before.
bool back_grid_on_device(const BackGrid& g);

// raw: the mesh statistics' modes (kBadMesh where bad); filled and u: nx * ny floats of scratch;
// back: the finished grid; dback: its second derivatives along y (divided by 6). Queued on
// `stream`. `back` may be `raw` (the fill reads raw, the filter writes back). A grid without a
// good mesh gives NaNs (the host's finish refuses it).
void finish_back_grid(const float* raw, const BackGrid& g, float* filled, float* back, float* dback,
                      float* u, cudaStream_t stream);

}  // namespace celeris::extract::gpu
