// The deblending's plans on the GPU, their first part: after a candidate's tree is built (the
// same stream, deblend_tree_kernels.cu), its prune (stages/deblend_prune.hpp) and, for a
// detection that splits, each core's pixels in chain order (deblend_core_chains.hpp), which the
// host's plans otherwise take from a flood fill and a Lutz scan of each core
// (deblend_node_chain). One warp per candidate: its grid and scratch in shared memory, the
// prune and the fills on one lane (a candidate has at most kTreeMaxPixels pixels), the grid and
// the pixels' levels on all. The cores go to compact arrays (each candidate's place taken with
// an atomic), so that only what the host reads comes back. Plain C++17 on raw device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "extract/gpu/deblend_tree_kernels.hpp"

namespace celeris::extract::gpu {

// A core: node `node` of level `level`, its node's flags, its chain's `length` pixels.
struct CoreEntry {
  int32_t node = 0, length = 0;
  int16_t level = 0;
  uint16_t flags = 0;
};

// Per candidate. cores: -1 when not made here (no tree, or a broken invariant: the host makes
// the plan from the tree), 0 when the detection does not split, else how many, at
// entries[first_entry ...], their pixels (indexes in the candidate's list, each core's in chain
// order, one core after the other) at pixels[first_pixel ...].
struct CoreResult {
  int32_t cores = -1, first_entry = 0;
  int64_t first_pixel = 0;
};

struct CoreArgs {
  const TreeCandidate* candidates = nullptr;
  const int32_t* launch = nullptr;  // this launch's candidates (one warp each)
  int64_t launched = 0;
  const int32_t* cell = nullptr;   // per pixel: its cell in its candidate's grid
  const float* cvalue = nullptr;   // per pixel: its filtered value
  const float* thresh = nullptr;   // per candidate: nthresh levels
  const double* value0 = nullptr;  // per candidate: the contrast's share (CandidateLevels)
  int nthresh = 0;
  const TreeResult* trees = nullptr;  // the tree kernel's results, levels and nodes
  const int32_t* levels = nullptr;
  const TreeNode* nodes = nullptr;
  // This launch's shared memory: candidates of at most max_pixels pixels, max_cells cells,
  // max_nodes nodes (the root included).
  int max_pixels = 0, max_cells = 0, max_nodes = 0;
  CoreResult* results = nullptr;  // per candidate
  CoreEntry* entries = nullptr;
  int64_t entry_space = 0;
  uint8_t* pixels = nullptr;  // a candidate's pixel indexes fit a byte (kTreeMaxPixels <= 256)
  int64_t pixel_space = 0;
  unsigned long long* used = nullptr;  // [0]: entries taken, [1]: pixels taken
};

// One warp per candidate of args.launch, on the stream its trees were built on.
void build_cores(const CoreArgs& args, cudaStream_t stream);

}  // namespace celeris::extract::gpu
