// The deblending's plans on the GPU, their first part: after a candidate's tree is built (the
// same stream, deblend_tree_kernels.cu), its prune (stages/deblend_prune.hpp) and, for a
// detection that splits, each core's pixels in chain order (deblend_core_chains.hpp), which the
// host's plans otherwise take from a flood fill and a Lutz scan of each core
// (deblend_node_chain); then, if asked, each core's child (its moments and profile's
// amplitude) and the candidate's draws, which the host's plans otherwise make (plan_from_cores).
// One warp per candidate: its grid and scratch in shared memory, the prune and the fills on one
// lane (a candidate has at most kTreeMaxPixels pixels), the grid and the pixels' levels on all,
// the children a core per lane, the draws a pixel per lane. The cores go to compact arrays (each
// candidate's place taken with an atomic), so that only what the host reads comes back. Plain C++17
// on raw device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/glibc_float_math.hpp"
#include "extract/gpu/deblend_tree_kernels.hpp"
#include "extract/stages/deblend_profile.hpp"

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
// draws: with CoreArgs::children, a split candidate's rand() draws (count_deblend_draws), -1
// when not made (the host makes its children and draws).
struct CoreResult {
  int32_t cores = -1, first_entry = 0;
  int64_t first_pixel = 0;
  int64_t draws = -1;
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
  // The split candidates' children too (null: not made): per core its child (core_child,
  // stages/shape_finish.hpp) at children[first_entry + q], and the candidate's draws. They need
  // each pixel's unfiltered value, glibc's exception lists for log and expf, the host's log of
  // the area correction's ratio cap (shape_finish::kRatioCap) and whether the area corrections
  // are taken as with weights.
  const float* value = nullptr;
  DeblendChild* children = nullptr;
  glibcmath::ExceptionLists lists;
  double log_cap = 0;
  bool weighted = false;
};

// One warp per candidate of args.launch, on the stream its trees were built on.
void build_cores(const CoreArgs& args, cudaStream_t stream);

}  // namespace celeris::extract::gpu
