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

#include "core/cuda/stream_handle.hpp"
#include "extract/stages/deblend_tree_builder.hpp"

namespace celeris::extract::gpu {

// The largest candidate the GPU takes: the host builds the larger ones while the kernels run
// (a block builds a tree level by level, each level a few passes over the candidate's pixels
// with a barrier between them: on the H200 one block of a 1,098-pixel candidate took 0.7-0.9 ms,
// where that detection's whole plan takes 0.027 ms on one core of the development machine
// (bench_deblend); the GPU's gain is the many small candidates side by side).
constexpr size_t kTreeMaxPixels = 256;
constexpr int64_t kTreeMaxCells = 8192;

// Fewer candidates (detections that may split) than this per host thread: the pipeline plans
// them all on the host (DeblendParams::builder_min_candidates). The GPU's trees cost a round
// trip of about 1 ms: on the H200 (stop 40) a sparse 4096^2 frame's 45 candidates waited 1.02
// ms for them (the stage 1.36 ms; the CPU path's whole stage 0.46), while a frame of 1,509
// candidates (18,005 detections) took its plans in 1.32 ms with the GPU's trees and 1.52 with
// the CPU path's (which also counts every detection's peaks): the host's plans take about 5-9
// us of thread time per candidate, about 1 ms per 100-180 candidates a thread.
constexpr size_t kTreeMinCandidatesPerThread = 64;

// A builder on the GPU; null in a build without CUDA or without a device.
std::unique_ptr<DeblendTreeBuilder> make_tree_builder();

// The detections where the GPU front end gathered them (gpu/front_end.cpp): per pixel, in chain
// order detection after detection, its column, row, value and filtered value; per detection its
// pixels' offsets (count + 1) and peaks (min(2, count_peaks)). Device pointers.
struct DeviceDetections {
  const int32_t* x = nullptr;
  const int32_t* y = nullptr;
  const float* value = nullptr;
  const float* cvalue = nullptr;
  const int32_t* offsets = nullptr;
  const uint8_t* peaks = nullptr;
  size_t count = 0, pixels = 0;
};

// A builder prepared where the detections are (DeblendTreeBuilder::prepared): after the work
// queued on `front` so far, on a stream of its own, it chooses the candidates it takes and
// prepares their inputs (deblend_prepare_kernels.hpp), and brings back each detection's slot.
// Its launch() waits for that, then launches the trees: the detections may be overwritten once
// it has returned (not before). The stage then takes its trees without begin() or add(). Null
// in a build without CUDA. p.detections is d.count.
std::unique_ptr<DeblendTreeBuilder> prepare_trees(const DeviceDetections& d, const PreparedTrees& p,
                                                  cuda::StreamHandle front);

}  // namespace celeris::extract::gpu
