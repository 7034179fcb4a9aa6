// Threshold trees built away from the deblending stage's planning threads: the GPU builds those
// of the detections that may split (gpu/deblend_trees_gpu.hpp) while the host threads plan the
// others. The stage (deblend.cpp) computes each candidate's levels itself (their pow is the C
// library's), hands the builder the candidates whose union-find sums are exact in any order
// (OrderFreeSum), and takes back each tree in SExtractor's node order, as build_deblend_tree
// gives it; a tree the builder could not make (too many nodes for its storage) is built on the
// host. Plain C++.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "extract/objects.hpp"
#include "extract/stages/deblend_tree.hpp"

namespace celeris::extract {

// A candidate's bounding box (without border), from its pixels.
struct TreeBox {
  int x0 = 0, y0 = 0, x1 = -1, y1 = -1;
  // The cells of the box with a border of one (the grid build_deblend_tree walks).
  int64_t cells() const { return (int64_t{x1} - x0 + 3) * (int64_t{y1} - y0 + 3); }
};

// A candidate's box, and into `sums` its pixels above the first level (thresh[1], the first
// level's ceiling: deblend_levels.hpp; nthresh >= 2), whose OrderFreeSum decides whether a
// builder may take it.
inline TreeBox tree_box_and_sums(const ObjectView& parent, const float* thresh,
                                 OrderFreeSum& sums) {
  TreeBox box{std::numeric_limits<int>::max(), std::numeric_limits<int>::max(),
              std::numeric_limits<int>::min(), std::numeric_limits<int>::min()};
  for (size_t p = 0; p < parent.size(); ++p) {
    box.x0 = std::min(box.x0, parent.x[p]);
    box.x1 = std::max(box.x1, parent.x[p]);
    box.y0 = std::min(box.y0, parent.y[p]);
    box.y1 = std::max(box.y1, parent.y[p]);
    if (thresh[1] < parent.cvalue[p]) sums.add(parent.cvalue[p]);
  }
  return box;
}

// A tree's sub-components hold at least min(DETECT_MINAREA, this) pixels (refine.c).
constexpr int kDeblendMaxMinarea = 3;

// What a builder prepared where the detections were made (the GPU front end:
// gpu::prepare_trees) was prepared with: the stage takes its trees only where these are its own
// (deblend.cpp).
struct PreparedTrees {
  size_t detections = 0;
  int nthresh = 0, minarea = 0;  // minarea: the sub-components' (min(DETECT_MINAREA, 3))
  double mincont = 0;
  float t0 = 0;  // the detection threshold
  int width = 0, height = 0;
};

class DeblendTreeBuilder {
 public:
  virtual ~DeblendTreeBuilder() = default;
  // Whether it builds the tree of a detection of `pixels` pixels whose box has `cells` cells.
  virtual bool takes(size_t pixels, int64_t cells) const = 0;
  // Asks for each split candidate's children and draws too (BuiltCores::children, draws), the
  // cores' area corrections taken as with detection weights when `weighted`
  // (DeblendParams::pixel_thresholds). Before begin(); it holds for the builder's sets. A builder
  // may make them for some candidates, or none (draws -1).
  virtual void ask_children(bool /*weighted*/) {}
  // A new set of trees: `candidates` of `pixels` pixels in all, levels of `nthresh` thresholds,
  // sub-components of `minarea` pixels, an image of width x height (kFlagTruncated).
  virtual void begin(size_t candidates, size_t pixels, int nthresh, int minarea, int width,
                     int height) = 0;
  // Candidate j (< candidates): its pixels are [pixel_begin, pixel_begin + parent.size()) of
  // the set's, `thresh` its nthresh levels, `value0` the contrast's share of it
  // (CandidateLevels::value0, for the prune), `sums` the OrderFreeSum of its pixels above the
  // first level (exact()). Called from several threads at once (distinct j).
  virtual void add(size_t j, size_t pixel_begin, const ObjectView& parent, const float* thresh,
                   double value0, const TreeBox& box, const OrderFreeSum& sums) = 0;
  // Starts building the trees (returns without waiting).
  virtual void launch() = 0;
  // Waits for the trees (again: returns at once).
  virtual void wait() = 0;
  // A builder prepared where the detections were made, which chose its candidates itself, one
  // slot each, instead of being given them by begin() and add(): what it was prepared with
  // (null: a builder given its candidates). Its j below is a slot.
  virtual const PreparedTrees* prepared() const { return nullptr; }
  // With prepared(): detection i's slot, -1 where it took none (the stage plans it on the host).
  virtual int32_t slot(size_t /*detection*/) const { return -1; }
  // With prepared(), after wait(): slot j's levels (nthresh) into `thresh`; returns its value0.
  virtual double prepared_levels(size_t /*j*/, std::vector<float>& /*thresh*/) const { return 0; }
  // Candidate j's tree (after wait): false when it was not built (the caller builds it). The
  // node's seed is one of its pixels, not necessarily build_deblend_tree's. Thread safe.
  virtual bool tree(size_t j, DeblendTree& tree) const = 0;
  // Candidate j's cores (after wait): its prune and, if it splits, its cores' chains, as
  // plan_from_tree takes them from tree(j); false when the builder did not make them (the
  // caller plans from tree(j)). Thread safe.
  virtual bool cores(size_t /*j*/, BuiltCores& /*out*/) const { return false; }
  // How many trees were not built (after wait), for the stage's report.
  virtual size_t not_built() const = 0;
  // The steps' times (after wait), appended to `seconds` (names alike from frame to frame).
  virtual void report(std::vector<std::pair<std::string, double>>& /*seconds*/) const {}
};

}  // namespace celeris::extract
