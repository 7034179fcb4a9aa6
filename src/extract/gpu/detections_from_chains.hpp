// The host's side of the GPU's detection (front_end.cpp, detect_weighted_gpu.cpp): the
// detections' columns from the chained pixels the device gathered and brought back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "extract/objects.hpp"

namespace celeris::extract::gpu {

// The detections from the chained pixels as the device gathered them (component c's at
// [offset[c], offset[c + 1]), in chain order: their x, y and the two images' values there) and
// the components' ends (chain_kernels.hpp component_ends): FLAGS 8 when one of its pixels lies
// on the image border, as detect() gives them, and each one's done line (done_lines' for the
// detections themselves) into `done`. The host only copies: the pixels' coordinates (an integer
// division each) and the border test were a third of this step's time in a stream's profile.
ObjectList detections_from_chains(const int32_t* xs, const int32_t* ys, int64_t n,
                                  const int32_t* offset, const int32_t* ends, size_t nobj,
                                  const float* value, const float* cvalue, int threads,
                                  std::vector<int64_t>& done);

}  // namespace celeris::extract::gpu
