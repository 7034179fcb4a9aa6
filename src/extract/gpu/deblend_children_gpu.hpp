// Stage 4's pixel assignment on the GPU (DeblendParams::children, stages/deblend.hpp): the split
// detections' pixels (their coordinates and whether each lies in a core), their children
// (stages/deblend_profile.hpp's DeblendChild) and the draws packed into page-locked memory by
// the host threads, one upload, one kernel (deblend_children_kernels.hpp), one download of the
// choices; the host then writes the children (place_children). The GPU gives the host's
// choices bit for bit: the same arithmetic, glibc's expf reproduced from its exception lists
// (core/glibc_float_math.hpp). A detection is left to the host (done[j] = 0) where the lists do
// not describe this process's glibc, a weight's argument falls outside them, or the GPU's draws
// differ from the plan's count.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "extract/stages/deblend.hpp"

namespace celeris::extract::gpu {

// A DeblendChildrenChooser. Without a CUDA device (or in a build without CUDA) it makes none of
// the choices.
void choose_deblend_children(const DeblendChildrenJob& job, std::vector<int32_t>& chosen,
                             std::vector<uint8_t>& done,
                             std::vector<std::pair<std::string, double>>* seconds);

}  // namespace celeris::extract::gpu
