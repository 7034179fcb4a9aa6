// Multi-threshold deblending (SExtractor refine.c): each detection is re-thresholded at
// DEBLEND_NTHRESH - 1 exponentially spaced levels between the detection threshold and its
// (filtered) peak; a node of the resulting tree splits when at least two of its branches hold
// more than DEBLEND_MINCONT of the parent's total filtered flux above their own level. The
// pixels outside the branch cores are then given to a child drawn at random with probabilities
// from each child's Gaussian profile, from the C library's rand() stream as SExtractor does.
//
// Two phases so that detections can be deblended in parallel and still consume the random
// stream in SExtractor's order: plan_deblend (parallel) builds the tree and counts the random
// draws each detection needs; finish_deblend (parallel) assigns the pixels given the slice of
// the stream that starts at the prefix sum of the counts. The tree itself is built in one pass
// (deblend_tree.hpp); only the cores' pixel chains are scanned.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "celeris/extract.hpp"
#include "extract/objects.hpp"
#include "extract/stages/deblend_tree.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {

struct DeblendParams {
  int nthresh = 32;
  double mincont = 0.005;
  int minarea = 5;
  float detect_thresh = 0;
  // With weights: the detection's threshold is the smallest of its pixels' (Pixel::dthresh),
  // and so is each core's when its moments are taken (SExtractor's variable threshold).
  bool pixel_thresholds = false;
  int width = 0, height = 0;  // image size, for kFlagTruncated
  bool photo = false;         // DETECT_TYPE PHOTO: levels spaced linearly (refine.c)
};

// The tree of one detection and what its pixel assignment needs.
struct DeblendPlan {
  bool split = false;
  uint16_t parent_flags = 0;        // the detection's flags (kFlagDeblendOverflow added here)
  ObjectList cores;                 // core pixels of each child, in SExtractor's order
  std::vector<Shape> child_shapes;  // moments of the cores
  std::vector<float> amplitude;     // Gaussian amplitude of each child's profile
  std::vector<uint8_t> in_core;     // per parent pixel: already in a child core
  size_t draws = 0;                 // rand() calls the pixel assignment will make
};

// Buffers plan_deblend reuses from one detection to the next (one per thread).
struct DeblendScratch {
  DeblendTreeScratch tree_scratch;
  DeblendTree tree;
  std::vector<float> thresh;                  // the levels' thresholds
  std::vector<uint8_t> ok;                    // per tree node: no split below it
  std::vector<std::pair<int, int32_t>> kept;  // (level, node) of the cores
  std::vector<int32_t> chain;
};

DeblendPlan plan_deblend(const ObjectView& parent, const DeblendParams& params,
                         DeblendScratch& scratch);
DeblendPlan plan_deblend(const ObjectView& parent, const DeblendParams& params);
// Appends the children of `parent` (or `parent` itself when it does not split) to `out`.
// `random` points to plan.draws consecutive values of the rand() stream.
void finish_deblend(const ObjectView& parent, const DeblendPlan& plan, const int32_t* random,
                    ObjectList& out);

// The deblending stage: every detection's tree in parallel, then the random draws taken from
// one rand() stream in detection order (the first `rand_offset` numbers skipped: see
// Config::deblend_rand_offset), then the pixel assignments in parallel. Objects come out in
// detection order, children in SExtractor's order; parent[k] is object k's detection.
struct Deblended {
  ObjectList objects;
  std::vector<int64_t> parent;
  int64_t draws = 0;  // rand() numbers taken (after the skipped rand_offset)
};
Deblended deblend(const ObjectList& detections, const DeblendParams& params, int64_t rand_offset,
                  int threads);

}  // namespace celeris::extract
