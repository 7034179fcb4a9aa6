// Stage 4's threshold trees on the GPU: a DeblendTreeBuilder (stages/deblend_tree_builder.hpp)
// that packs each candidate's pixels (their cells in its box and their filtered values) into
// page-locked memory as the planning threads hand them over, uploads them at once, builds the
// trees with gpu/deblend_tree_kernels.cu (candidates grouped by size, one launch per group) and
// brings back the nodes, in SExtractor's order, as the host's build_deblend_tree gives them. Its
// inputs are the host's pixel lists, so it takes any detections (device tests compare it with
// build_deblend_tree on every candidate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "extract/stages/deblend_tree_builder.hpp"

namespace celeris::extract::gpu {

// The largest candidate the GPU takes (the host builds larger ones while the kernels run): one
// block holds the candidate in shared memory.
constexpr size_t kTreeMaxPixels = 2048;
constexpr int64_t kTreeMaxCells = 32768;

// A builder on the GPU; null in a build without CUDA or without a device.
std::unique_ptr<DeblendTreeBuilder> make_tree_builder();

}  // namespace celeris::extract::gpu
