// The deblending's threshold trees on the GPU (deblend_trees_gpu.hpp): one block per candidate,
// the candidate's pixels, its box's grid and its union-find in shared memory. Level by level from
// the highest down, the pixels of the level join their neighbours at that level or above (a
// lock-free union-find whose root is each component's pixel of the highest level; a thread per
// pixel of the level and direction, the pixels sorted by level once), then every
// component's pixels, flux, border flag and last pixel are summed again and the components of
// `minarea` pixels or more become the level's nodes, each the son of the node of the level
// below that holds it (a level no pixel joins repeats the level above's nodes). The nodes are then
// put in SExtractor's order (by their parent's rank, then their last pixel:
// stages/deblend_tree.hpp) and written as the host's DeblendNode. The flux sums are in an order of
// their own, in 64-bit integers of the values' smallest ulp: the host hands over only candidates
// whose sums are exact in any order (OrderFreeSum), which makes them the host's double sums
// exactly. Plain C++17 on raw device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace celeris::extract::gpu {

// FLAGS' "touches the image border" (kFlagTruncated, celeris/extract.hpp, which nvcc need not
// read here; deblend_trees_gpu.cpp checks that they are the same).
constexpr uint16_t kTreeTruncatedFlag = 8;

// One candidate, as uploaded.
struct TreeCandidate {
  int64_t pixel_begin = 0;  // its pixels' entries in TreeArgs::cell and cvalue
  int32_t pixels = 0;
  int32_t x0 = 0, y0 = 0;  // its box's first column and row (without the border)
  int32_t bw = 0, bh = 0;  // the grid: the box with a border of one
  // Every value above the first level is an integer times 2^ulp_exponent, and every sum of
  // them is below 2^52 such units (OrderFreeSum::exact): the flux sums are taken in int64.
  int32_t ulp_exponent = 0;
};

// What comes back for a candidate.
enum TreeStatus : int32_t { kTreeBuilt = 0, kTreeNotBuilt = 1 };
// SExtractor's NSONMAX: a level of this many nodes overflows. No launch's node_cap may pass it,
// so that the builder can tell an overflow from the levels' sizes and leave it to the host.
constexpr int kTreeNsonmax = 1024;
struct TreeResult {
  int32_t status = kTreeNotBuilt;
  int32_t nodes = 0;  // nodes written, the root included
  int64_t first = 0;  // its first node in TreeArgs::nodes
};

// The host's DeblendNode, field for field (deblend_trees_gpu.cpp checks the layout).
struct TreeNode {
  float thresh, fdflux;
  int32_t npix;
  uint16_t flags;
  int32_t seed, first_son, sons;
};

struct TreeArgs {
  const TreeCandidate* candidates = nullptr;
  const int32_t* launch = nullptr;  // the candidates of this launch (one block each)
  int64_t launched = 0;
  const int32_t* cell = nullptr;  // per pixel: its cell in its candidate's grid
  const float* cvalue = nullptr;  // per pixel: its filtered value
  const float* thresh = nullptr;  // per candidate: nthresh levels
  int nthresh = 0, minarea = 1;
  int width = 0, height = 0;  // the image (kFlagTruncated)
  // This launch's shared memory: candidates of at most max_pixels pixels and max_cells cells,
  // trees of at most node_cap (<= kTreeNsonmax) nodes besides the root (else kTreeNotBuilt).
  int max_pixels = 0, max_cells = 0, node_cap = 0;
  TreeResult* results = nullptr;       // per candidate
  int32_t* levels = nullptr;           // per candidate: nthresh + 1 entries, DeblendTree::level
  TreeNode* nodes = nullptr;           // the trees' nodes, each tree's together
  int64_t node_space = 0;              // nodes' size
  unsigned long long* used = nullptr;  // nodes taken so far (zeroed before the first launch)
};

// One block per candidate of args.launch, `threads` a block (a multiple of 32), the shared
// memory sized by args' limits.
void build_trees(const TreeArgs& args, int threads, cudaStream_t stream);

}  // namespace celeris::extract::gpu
