// gpu/deblend_core_chains.hpp (the GPU's cores' chains, the same routine on the host) against
// deblend_tree.hpp's deblend_node_chain: the chain of every node of every tree, from the node's
// seed, on simulated frames sparse and crowded, several DEBLEND_NTHRESH and sub-component areas;
// and the fills of one candidate's cores sharing one grid (each its own stamp), as the kernel
// runs them. Needs no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "extract/gpu/deblend_core_chains.hpp"
#include "extract/stages/deblend.hpp"
#include "extract/stages/deblend_levels.hpp"
#include "extract/stages/deblend_prune.hpp"
#include "extract/stages/deblend_tree.hpp"
#include "extract/stages/detect.hpp"
#include "gpu_test_frames.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

// One candidate's grid as the GPU builds it (deblend_trees_gpu.cpp's cells, the tree kernel's
// levels), and scratch for cores of up to its size.
struct HostGrid {
  std::vector<int32_t> grid, cell, mark, queue, raster, piece_end, piece_next;
  std::vector<uint8_t> level, mark_start, mark_end, above;
  std::vector<chain::Run> runs;
  std::vector<chain::Link> stored;
  std::vector<chain::Open> open;
  cores::CandidateGrid g;
  cores::CoreScratch s;

  HostGrid(const ObjectView& o, const std::vector<float>& thresh) {
    const int nthresh = static_cast<int>(thresh.size());
    std::vector<float> tmax(thresh.size());
    level_ceilings(thresh.data(), nthresh, tmax.data());
    int x0 = o.x[0], x1 = o.x[0], y0 = o.y[0], y1 = o.y[0];
    for (size_t p = 0; p < o.size(); ++p) {
      x0 = std::min(x0, o.x[p]), x1 = std::max(x1, o.x[p]);
      y0 = std::min(y0, o.y[p]), y1 = std::max(y1, o.y[p]);
    }
    const int bw = x1 - x0 + 3, bh = y1 - y0 + 3;
    grid.assign(static_cast<size_t>(bw) * bh, -1);
    mark.assign(grid.size(), 0);
    const size_t n = o.size();
    cell.resize(n);
    level.resize(n);
    for (size_t p = 0; p < n; ++p) {
      cell[p] = (o.y[p] - y0 + 1) * bw + (o.x[p] - x0 + 1);
      level[p] = static_cast<uint8_t>(count_below(tmax.data() + 1, nthresh - 1, o.cvalue[p]));
      if (level[p] > 0) grid[static_cast<size_t>(cell[p])] = static_cast<int32_t>(p);
    }
    queue.resize(n), raster.resize(n), runs.resize(n), piece_end.resize(n), piece_next.resize(n);
    mark_start.resize(n), mark_end.resize(n), stored.resize(n);
    open.resize(static_cast<size_t>(chain::open_capacity(static_cast<int64_t>(n))));
    above.resize(static_cast<size_t>(chain::above_capacity(static_cast<int64_t>(n))));
    g = {grid.data(), level.data(), cell.data(), mark.data(), bw};
    s.queue = queue.data(), s.raster = raster.data(), s.runs = runs.data();
    s.chain = {mark_start.data(), mark_end.data(), stored.data(), piece_end.data(),
               piece_next.data(), open.data(),     above.data()};
    s.capacity = static_cast<int32_t>(n);
  }
  std::vector<int32_t> chain_of(int k, int32_t seed, int32_t stamp) {
    std::vector<int32_t> out(static_cast<size_t>(s.capacity));
    const int32_t m = cores::core_chain(g, k, seed, stamp, s, out.data());
    out.resize(m < 0 ? 0 : static_cast<size_t>(m));
    if (m < 0) out.push_back(-1);  // never a chain's: fails the comparison
    return out;
  }
};

}  // namespace

TEST(DeblendCoreChains, EveryNodesChainIsTheHosts) {
  std::mt19937_64 rng(11);
  const gpu_test::FrameCase cases[] = {
      {512, 512, 2500, 0, 1, false}, {700, 300, 3000, 2, 2, true}, {1024, 1024, 9000, 0, 3, true}};
  size_t nodes = 0, multi = 0;
  int round = 0;
  for (const gpu_test::FrameCase& k : cases) {
    const gpu_test::TestFrame f = gpu_test::test_frame(k, rng);
    const float t0 = 30.0f;
    const ObjectList det = detect(f.value.view(), f.cvalue.view(), {t0, 5});
    for (const auto& [nthresh, minarea] : {std::pair{32, 3}, std::pair{7, 1}}) {
      ++round;
      DeblendParams p;
      p.nthresh = nthresh;
      p.detect_thresh = t0;
      DeblendTreeScratch hs;
      DeblendTree tree;
      std::vector<float> thresh;
      std::vector<int32_t> want;
      for (size_t d = 0; d < det.size(); ++d) {
        const ObjectView o = det[d];
        CandidateLevels levels;
        if (!candidate_levels(o, p, thresh, levels)) continue;
        build_deblend_tree(o, thresh, minarea, k.width, k.height, hs, tree);
        if (tree.overflow) continue;
        HostGrid h(o, thresh);
        int32_t stamp = 0;
        for (int lev = 1; lev < nthresh; ++lev)
          for (int32_t j = tree.level[lev]; j < tree.level[lev + 1]; ++j) {
            deblend_node_chain(o, tree, lev, j, hs, want);
            ASSERT_EQ(h.chain_of(lev, tree.nodes[j].seed, ++stamp), want)
                << "round " << round << " detection " << d << " level " << lev << " node " << j;
            ++nodes;
            multi += want.size() > 1;
          }
      }
    }
  }
  EXPECT_GT(nodes, 10000u);
  EXPECT_GT(multi, 5000u);
  std::printf("%zu nodes' chains compared, %zu of more than one pixel\n", nodes, multi);
}

// The kernel's way: each tree's kept cores (prune_deblend_tree) filled one after the other on one
// grid, stamps 1, 2, ..., against the host's chains of the same cores.
TEST(DeblendCoreChains, CoresOfOneCandidateShareTheGrid) {
  std::mt19937_64 rng(12);
  const gpu_test::TestFrame f = gpu_test::test_frame({768, 768, 7000, 0, 7, false}, rng);
  const float t0 = 30.0f;
  const ObjectList det = detect(f.value.view(), f.cvalue.view(), {t0, 5});
  DeblendParams p;
  p.nthresh = 32;
  p.detect_thresh = t0;
  DeblendTreeScratch hs;
  DeblendTree tree;
  std::vector<float> thresh;
  std::vector<int32_t> want;
  std::vector<uint8_t> ok;
  std::vector<int32_t> kept_level, kept_node;
  size_t split = 0, cores_seen = 0;
  for (size_t d = 0; d < det.size(); ++d) {
    const ObjectView o = det[d];
    CandidateLevels levels;
    if (!candidate_levels(o, p, thresh, levels)) continue;
    build_deblend_tree(o, thresh, 3, 768, 768, hs, tree);
    if (tree.overflow) continue;
    ok.resize(tree.nodes.size()), kept_level.resize(tree.nodes.size());
    kept_node.resize(tree.nodes.size());
    const int kept =
        prune_deblend_tree(tree.nodes.data(), tree.level.data(), p.nthresh, levels.value0,
                           ok.data(), kept_level.data(), kept_node.data());
    if (kept == 0) continue;
    ++split;
    HostGrid h(o, thresh);
    for (int c = 0; c < kept; ++c) {
      deblend_node_chain(o, tree, kept_level[c], kept_node[c], hs, want);
      ASSERT_EQ(h.chain_of(kept_level[c], tree.nodes[kept_node[c]].seed, c + 1), want)
          << "detection " << d << " core " << c;
      ++cores_seen;
    }
  }
  std::printf("%zu detections split, %zu cores\n", split, cores_seen);
  EXPECT_GT(split, 100u);
  EXPECT_GT(cores_seen, 2 * split - 1);
}
