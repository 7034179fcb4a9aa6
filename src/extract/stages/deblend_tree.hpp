// The threshold tree of one detection for multi-threshold deblending (SExtractor refine.c): level
// k holds the 8-connected components of the detection's pixels above t_k with at least `minarea`
// pixels, each the son of the level k - 1 component that contains it.
//
// SExtractor builds level k by a Lutz scan of every level k - 1 node; each pixel is then scanned
// about DEBLEND_NTHRESH / 2 times. build_deblend_tree gets the same tree from one pass: the pixels
// are added from the highest level down and joined to their neighbours with a union-find, and the
// components alive after level k's pixels are level k's nodes. What the scans would add is
// reproduced from the geometry: a scan completes its components in the order of their last row,
// then of the column after their last pixel on that row, so nodes are ordered by their parent's
// rank, then that key; the pixel chain (the order SExtractor's pixel lists have) is taken, by a
// Lutz scan of the node alone, only for the nodes that become deblended cores (deblend_node_chain).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "extract/objects.hpp"
#include "extract/sextractor/lutz.hpp"
#include "extract/stages/deblend_levels.hpp"
#include "extract/stages/deblend_profile.hpp"
#include "extract/stages/order_free_sum.hpp"

namespace celeris::extract {

struct DeblendNode {
  float thresh = 0;       // the level's threshold t_k
  float fdflux = 0;       // sum of the filtered values, in double in chain order, as a float
  int32_t npix = 0;       // pixels
  uint16_t flags = 0;     // kFlagTruncated when a pixel lies on the image border
  int32_t seed = 0;       // one of its pixels (index in the detection's pixel list)
  int32_t first_son = 0;  // its sons: nodes [first_son, first_son + sons) of the next level
  int32_t sons = 0;
};

struct DeblendTree {
  bool overflow = false;           // a level holds more nodes than SExtractor's NSONMAX allows
  std::vector<int32_t> level;      // nodes of level k: [level[k], level[k + 1]) in `nodes`
  std::vector<DeblendNode> nodes;  // level by level, each level in SExtractor's order
};

// A candidate's cores as a tree builder makes them (deblend_tree_builder.hpp cores(): the prune
// and the cores' chains made where the tree was built), for its plan.
struct BuiltCores {
  int count = 0;                       // 0: the detection does not split
  std::vector<int32_t> level, length;  // per core: its node's level, its pixels
  std::vector<float> thresh;           // per core: its level's threshold
  std::vector<uint16_t> flags;         // per core: its node's flags
  std::vector<int32_t> pixels;         // the cores' pixels, each core's in chain order
  // Where the builder made them too (a split candidate): per core the child it makes (its
  // moments and profile's amplitude, core_child in shape_finish.hpp), and the rand() draws the
  // pixel assignment will take (count_deblend_draws); -1 (children empty): the plan makes them.
  std::vector<DeblendChild> children;
  int64_t draws = -1;
};

// Buffers reused from one detection to the next (one per thread).
struct DeblendTreeScratch {
  std::vector<int32_t> grid;     // detection's bounding box (+1 border): pixel index, or -1
  std::vector<float> peak_grid;  // count_peaks: the box's filtered values, -inf off the detection
  int64_t box_x0 = 0, box_y0 = 0, box_w = 0;  // the grid's first column and row, its width
  std::vector<uint8_t> level;                 // per pixel: highest level it is above (0: none)
  std::vector<uint8_t> cell_level;  // per grid cell: its pixel's level (0: none, or level 0)
  std::vector<int32_t> order;       // pixels grouped by level
  std::vector<int32_t> uf;          // union-find parent
  std::vector<int32_t> npix;        // per root: component statistics
  std::vector<double> flux;
  std::vector<uint16_t> flags;
  std::vector<int64_t> last;   // per root: (last row, last column on it) as y * 2^32 + x
  std::vector<int32_t> roots;  // live components
  std::vector<int32_t> node_of_root;
  std::vector<int32_t> mark;   // per grid cell: the stamp of the last fill that took it
  std::vector<int32_t> queue;  // flood fill of one node: grid cells
  int32_t stamp = 0;           // the fill's mark
  LutzScratch lutz;
  struct RawNode {
    int32_t root, up, npix;
    double flux;
    uint16_t flags;
    int64_t last;
  };
  std::vector<std::vector<RawNode>> raw;    // per level
  std::vector<int32_t> rank, next_rank;     // per node of the level above / this one: position
  std::vector<float> tmax;                  // highest threshold up to each level
  std::vector<int32_t> count, start, fill;  // pixels per level, where each level's begin
  std::vector<int32_t> sorted;
  // Tests: take every node's fdflux from its chain (the path for sums that could round).
  bool chain_sums = false;
};

// How many of the detection's pixels are peaks: no 8-neighbour among its pixels has a higher
// filtered value (ties and NaN neighbours do not count as higher), counting stops at `stop`.
// Each component of the pixels above a level holds one (its highest pixel: its neighbours
// are in it, so not higher, or not above the level), and two components hold two. So with
// fewer than two peaks no level has two nodes, no node two branches, and the detection
// neither splits nor overflows: plan_deblend skips its tree (most detections of a crowded
// field are single stars). Uses the scratch's peak_grid.
int count_peaks(const ObjectView& parent, int stop, DeblendTreeScratch& scratch);

// `thresh` holds t_0 ... t_{nthresh-1} (t_0, the detection threshold, is not used; none NaN).
// When tree.overflow, the nodes are not filled.
void build_deblend_tree(const ObjectView& parent, const std::vector<float>& thresh, int minarea,
                        int img_w, int img_h, DeblendTreeScratch& scratch, DeblendTree& tree);

// The scratch deblend_node_chain reads for a tree that was not built by build_deblend_tree on
// this scratch (a tree built on the GPU): the pixels' levels, the box and its grid.
void prepare_node_chains(const ObjectView& parent, const std::vector<float>& thresh,
                         DeblendTreeScratch& scratch);

// A tree's cores as DeblendTreeBuilder::cores gives them (its prune with the candidate's value0,
// each core's chain), made on the host: the host's own plans (deblend.cpp plan_from_tree, which
// then plans from them as from the GPU's) and the tests' stand-ins for the GPU's builder.
// `tree_scratch` as deblend_node_chain reads it; `prepare_with`, for a tree not built on
// tree_scratch, the candidate's levels: prepare_node_chains runs only when the tree splits.
struct BuiltCoresScratch {
  std::vector<uint8_t> ok;                     // per node: no split below it
  std::vector<int32_t> kept_level, kept_node;  // the cores' levels and nodes
  std::vector<int32_t> chain;
};
void built_cores(const ObjectView& parent, const DeblendTree& tree, int nthresh, double value0,
                 const std::vector<float>* prepare_with, DeblendTreeScratch& tree_scratch,
                 BuiltCoresScratch& scratch, BuiltCores& out);

// The pixels of node `node` of level `k` (indices in the detection's pixel list) in chain order,
// as SExtractor's scan of the level below links them. Uses the scratch of the last
// build_deblend_tree or prepare_node_chains call on the same detection; returns the chain-order sum
// of filtered values.
double deblend_node_chain(const ObjectView& parent, const DeblendTree& tree, int k, int node,
                          DeblendTreeScratch& scratch, std::vector<int32_t>& chain);

}  // namespace celeris::extract
