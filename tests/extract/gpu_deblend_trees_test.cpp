// Deblending's threshold trees built on the GPU (gpu/deblend_trees_gpu.hpp) against the host's
// build_deblend_tree, tree for tree: every level's nodes in SExtractor's order with the same
// thresholds, flux (bit for bit), pixels, border flags and sons, and each node's seed one of its
// pixels (its chain, as the cores take it, is the host's), on simulated frames sparse and
// crowded, with and without a detection image of their own, for several DEBLEND_NTHRESH and
// sub-component areas, and the cores the GPU makes from each tree (prune and chains) against the
// host's, with the children and draws it makes from them against the host's plan's; then the
// deblending stage with the GPU's trees and cores, its trees alone, and its
// pixel assignments too, against the stage alone, every column; and the candidates prepared by
// the GPU front end. Skipped without a CUDA device.
#ifdef CELERIS_HAVE_CUDA

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "celeris/device.hpp"
#include "core/cuda/device_exception_lists.hpp"
#include "deblended_compare.hpp"
#include "extract/gpu/deblend_children_gpu.hpp"
#include "extract/gpu/deblend_trees_gpu.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/stages/deblend.hpp"
#include "extract/stages/detect.hpp"
#include "extract/stages/filter.hpp"
#include "gpu_test_frames.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

struct Candidate {
  size_t detection;
  double value0;
  std::vector<float> thresh;
  TreeBox box;
  OrderFreeSum sums;
};

// The candidates as the stage picks them for a builder (candidate_levels, tree_box_and_sums):
// levels with no NaN, sums exact in any order, sizes the builder takes (every detection, not
// only those of two peaks or more).
std::vector<Candidate> candidates(const ObjectList& det, const DeblendParams& params,
                                  const DeblendTreeBuilder& builder, size_t& not_taken) {
  std::vector<Candidate> out;
  for (size_t d = 0; d < det.size(); ++d) {
    const ObjectView o = det[d];
    Candidate c{d, 0.0, {}, {}, {}};
    CandidateLevels levels;
    if (!candidate_levels(o, params, c.thresh, levels)) continue;
    c.value0 = levels.value0;
    c.box = tree_box_and_sums(o, c.thresh.data(), c.sums);
    if (!c.sums.exact() || !builder.takes(o.size(), c.box.cells())) {
      ++not_taken;
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST(GpuDeblendTrees, SameTreesAsTheHost) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  size_t trees = 0, nodes = 0, not_built = 0, not_taken = 0, several = 0, split = 0, cores = 0;
  size_t children = 0, children_on_host = 0;
  std::mt19937_64 rng(5);
  const gpu_test::FrameCase cases[] = {{512, 512, 2500, 0, 1, false},
                                       {700, 300, 3000, 2, 2, true},
                                       {1024, 1024, 9000, 0, 3, true},
                                       {256, 256, -1, 1, 4, false}};
  int round = 0;
  for (const gpu_test::FrameCase& k : cases)
    for (const auto& [nthresh, minarea] :
         {std::pair{32, 3}, std::pair{7, 1}, std::pair{64, 2}, std::pair{2, 3}}) {
      ++round;
      const gpu_test::TestFrame f = gpu_test::test_frame(k, rng);
      const float t0 = 30.0f;
      const ObjectList det = detect(f.value.view(), f.cvalue.view(), {t0, 5});
      auto builder = gpu::make_tree_builder();
      ASSERT_TRUE(builder);
      DeblendParams p;
      p.nthresh = nthresh;
      p.detect_thresh = t0;
      // The children's area corrections as with weights in every other round (the plans'
      // parameters only: the levels stay those of the global threshold).
      DeblendParams plan_params = p;
      plan_params.pixel_thresholds = round % 2 == 0;
      builder->ask_children(plan_params.pixel_thresholds);
      const std::vector<Candidate> cand = candidates(det, p, *builder, not_taken);
      size_t pixels = 0;
      std::vector<size_t> begin;
      for (const Candidate& c : cand) begin.push_back(pixels), pixels += det.count(c.detection);
      builder->begin(cand.size(), pixels, nthresh, minarea, k.width, k.height);
      for (size_t j = 0; j < cand.size(); ++j)
        builder->add(j, begin[j], det[cand[j].detection], cand[j].thresh.data(), cand[j].value0,
                     cand[j].box, cand[j].sums);
      builder->launch();
      builder->wait();
      not_built += builder->not_built();
      DeblendTreeScratch hs, gs;
      DeblendTree want, got;
      std::vector<int32_t> want_chain, got_chain;
      BuiltCores built, want_cores;
      BuiltCoresScratch core_scratch;
      for (size_t j = 0; j < cand.size(); ++j) {
        const ObjectView o = det[cand[j].detection];
        const std::string what =
            "round " + std::to_string(round) + " detection " + std::to_string(cand[j].detection);
        build_deblend_tree(o, cand[j].thresh, minarea, k.width, k.height, hs, want);
        if (!builder->tree(j, got)) continue;
        ++trees;
        ASSERT_FALSE(want.overflow) << what;
        ASSERT_EQ(got.level, want.level) << what;
        ASSERT_EQ(got.nodes.size(), want.nodes.size()) << what;
        several += want.level.size() > 2 && want.level[2] - want.level[1] > 1;
        prepare_node_chains(o, cand[j].thresh, gs);
        for (size_t n = 0; n < want.nodes.size(); ++n) {
          const DeblendNode &a = got.nodes[n], &b = want.nodes[n];
          ASSERT_EQ(a.thresh, b.thresh) << what << " node " << n;
          ASSERT_EQ(std::memcmp(&a.fdflux, &b.fdflux, sizeof(float)), 0) << what << " node " << n;
          ASSERT_EQ(a.npix, b.npix) << what << " node " << n;
          ASSERT_EQ(a.flags, b.flags) << what << " node " << n;
          ASSERT_EQ(a.first_son, b.first_son) << what << " node " << n;
          ASSERT_EQ(a.sons, b.sons) << what << " node " << n;
        }
        // The seeds: each node's chain from the GPU's seed is the host's.
        for (size_t lev = 1; lev + 1 < want.level.size(); ++lev)
          for (int32_t n = want.level[lev]; n < want.level[lev + 1]; ++n) {
            deblend_node_chain(o, want, static_cast<int>(lev), n, hs, want_chain);
            deblend_node_chain(o, got, static_cast<int>(lev), n, gs, got_chain);
            ASSERT_EQ(got_chain, want_chain) << what << " node " << n;
            ++nodes;
          }
        // The cores the GPU made from its tree (its prune, each core's chain): the host's.
        built_cores(o, want, nthresh, cand[j].value0, nullptr, hs, core_scratch, want_cores);
        ASSERT_TRUE(builder->cores(j, built)) << what;
        ASSERT_EQ(built.count, want_cores.count) << what;
        ASSERT_EQ(built.level, want_cores.level) << what;
        ASSERT_EQ(built.length, want_cores.length) << what;
        ASSERT_EQ(built.thresh, want_cores.thresh) << what;
        ASSERT_EQ(built.flags, want_cores.flags) << what;
        ASSERT_EQ(built.pixels, want_cores.pixels) << what;
        const int kept = want_cores.count;
        split += kept > 0;
        cores += static_cast<size_t>(kept);
        // The children and draws the GPU made from its cores: the host's plan's, bit for bit.
        if (kept == 0) continue;
        if (built.draws < 0) {
          ++children_on_host;
          continue;
        }
        ASSERT_EQ(built.children.size(), static_cast<size_t>(kept)) << what;
        const float t = cand[j].thresh[0];
        const DeblendPlan host = plan_from_built_cores(o, plan_params, t, want_cores);
        const DeblendPlan gpu = plan_from_built_cores(o, plan_params, t, built);
        ASSERT_EQ(gpu.draws, host.draws) << what;
        for (int q = 0; q < kept; ++q) {
          const DeblendChild &g = gpu.children[q], &h = host.children[q];
          ASSERT_TRUE(same_bits(g.mx, h.mx) && same_bits(g.my, h.my) && same_bits(g.cxx, h.cxx) &&
                      same_bits(g.cyy, h.cyy) && same_bits(g.cxy, h.cxy) &&
                      same_bits(g.abcor, h.abcor) && same_bits(g.amplitude, h.amplitude))
              << what << " core " << q << ": amplitude " << g.amplitude << " against "
              << h.amplitude;
          ASSERT_EQ(gpu.cores.cx[q], host.cores.cx[q]) << what;
          ASSERT_EQ(gpu.cores.flags[q], host.cores.flags[q]) << what;
        }
        ASSERT_EQ(gpu.cores.offset, host.cores.offset) << what;
        ASSERT_EQ(gpu.core_index, host.core_index) << what;
        ++children;
      }
    }
  EXPECT_GT(trees, 5000u);
  EXPECT_GT(several, 500u);  // trees that branch, not just chains of one node a level
  EXPECT_LT(not_built, trees / 100 + 1);
  EXPECT_GT(split, 300u);
  // Where glibc's lists describe this process's glibc, every split candidate's children are
  // the GPU's but those whose moments make no ellipse.
  if (cuda::device_exception_lists().log && cuda::device_exception_lists().expf)
    EXPECT_LT(children_on_host, split / 100 + 1);
  std::printf(
      "%zu trees (%zu branching), %zu nodes compared; %zu not built, %zu not taken; %zu split "
      "into %zu cores made on the GPU; %zu with their children and draws made there (%zu "
      "left to the host)\n",
      trees, several, nodes, not_built, not_taken, split, cores, children, children_on_host);
}

// The deblending stage with the GPU's trees, and with the GPU's trees and pixel assignments
// (gpu/deblend_children_gpu.hpp), gives the stage's objects alone, every column, the draws and
// the parents, on crowded frames, for DEBLEND_NTHRESH 32 and 8 and MINCONT 0.005 and 0; the GPU
// made every pixel assignment.
TEST(GpuDeblendTrees, StageGivesTheSameObjects) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(9);
  for (const auto& [k, nthresh, mincont] :
       {std::tuple{gpu_test::FrameCase{1024, 1024, 12000, 1, 7, true}, 32, 0.005},
        std::tuple{gpu_test::FrameCase{800, 600, 6000, 0, 8, false}, 8, 0.0}}) {
    const gpu_test::TestFrame f = gpu_test::test_frame(k, rng);
    const ObjectList det = detect(f.value.view(), f.cvalue.view(), {30.0f, 5});
    DeblendParams p;
    p.nthresh = nthresh;
    p.mincont = mincont;
    p.detect_thresh = 30.0f;
    p.width = k.width;
    p.height = k.height;
    ObjectList a = det, b = det, c = det;
    const Deblended want = deblend(std::move(a), p, 3, 4);
    EXPECT_GT(want.objects.size(), det.size() + 100);  // blends were split
    p.trees = gpu::make_tree_builder;
    test::expect_same_deblended(deblend(std::move(b), p, 3, 4), want, "the GPU's trees and cores");
    p.builder_cores = false;
    ObjectList d = det;
    test::expect_same_deblended(deblend(std::move(d), p, 3, 4), want,
                                "the GPU's trees, the cores on the host");
    p.builder_cores = true;
    size_t asked = 0, made = 0;
    p.children = [&](const DeblendChildrenJob& job, std::vector<int32_t>& chosen,
                     std::vector<uint8_t>& done,
                     std::vector<std::pair<std::string, double>>* seconds) {
      gpu::choose_deblend_children(job, chosen, done, seconds);
      asked += done.size();
      for (uint8_t x : done) made += x;
    };
    test::expect_same_deblended(deblend(std::move(c), p, 3, 4), want,
                                "the GPU's trees and pixel assignments");
    EXPECT_GT(asked, 100u);
    EXPECT_EQ(made, asked);
  }
}

// Several frames deblended at once on host threads (a stream's back workers), each stage with
// builders of its own: every launch succeeds and each gives the stage's objects alone. (The
// kernel's shared-memory limit is one attribute for all threads; setting it per launch let one
// thread's small size class lower it under another's large one: "invalid argument".)
TEST(GpuDeblendTrees, StagesOnSeveralThreadsAtOnce) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(13);
  const gpu_test::TestFrame f =
      gpu_test::test_frame(gpu_test::FrameCase{1024, 1024, 12000, 1, 7, true}, rng);
  const ObjectList det = detect(f.value.view(), f.cvalue.view(), {30.0f, 5});
  DeblendParams p;
  p.nthresh = 32;
  p.mincont = 0.005;
  p.detect_thresh = 30.0f;
  p.width = 1024;
  p.height = 1024;
  ObjectList a = det;
  const Deblended want = deblend(std::move(a), p, 1, 4);
  p.trees = gpu::make_tree_builder;
  constexpr int kThreads = 8, kRounds = 6;
  std::vector<std::string> errors(kThreads);
  std::vector<int> same(kThreads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([&, t] {
      try {
        for (int r = 0; r < kRounds; ++r) {
          ObjectList b = det;
          const Deblended got = deblend(std::move(b), p, 1, 4);
          same[t] += got.parent == want.parent && got.objects.offset == want.objects.offset &&
                     got.objects.x == want.objects.x && got.objects.y == want.objects.y &&
                     got.objects.flags == want.objects.flags && got.draws == want.draws;
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (std::thread& w : workers) w.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(same[t], kRounds) << "thread " << t;
  }
}

// The candidates prepared and their trees launched by the GPU front end (prepare_trees,
// FrontEnd::prepared_trees): the stage that takes them gives the objects of the stage alone,
// every column, planned at once and in ranges; each detection the builder took is a candidate
// of two peaks or more whose levels and value0 are candidate_levels' bit for bit, and it took
// most of them; a builder prepared with other parameters is not used.
TEST(GpuDeblendTrees, PreparedByTheFrontEndGivesTheSameObjects) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(17);
  auto used_prepared = [](const std::vector<std::pair<std::string, double>>& seconds) {
    return std::any_of(seconds.begin(), seconds.end(),
                       [](const auto& s) { return s.first.rfind("    prepared, ", 0) == 0; });
  };
  for (const auto& [k, nthresh, mincont] :
       {std::tuple{gpu_test::FrameCase{1024, 1024, 12000, 1, 7, true}, 32, 0.005},
        std::tuple{gpu_test::FrameCase{800, 600, 6000, 0, 8, false}, 8, 0.0}}) {
    const gpu_test::TestFrame f = gpu_test::test_frame(k, rng);
    Config c;
    c.device = Backend::Cuda;
    c.deblend_nthresh = nthresh;
    c.deblend_mincont = mincont;
    const FrontEnd fe = gpu::front_end(f.image.view(), c, FilterParams::of(c, 2), 2);
    const std::string what = "DEBLEND_NTHRESH " + std::to_string(nthresh);
    ASSERT_TRUE(fe.prepared_trees) << what;
    const ObjectList& det = fe.detections;
    const size_t n = det.size();
    DeblendParams p;
    p.nthresh = nthresh;
    p.mincont = mincont;
    p.minarea = c.detect_minarea;
    p.detect_thresh = fe.detect_thresh;
    p.width = k.width;
    p.height = k.height;
    p.peaks = &fe.peaks;
    ObjectList a = det;
    const Deblended want = deblend(std::move(a), p, 3, 4);
    EXPECT_GT(want.objects.size(), n + 50) << what;  // blends were split
    p.trees = gpu::make_tree_builder;
    p.prepared = fe.prepared_trees.get();
    std::vector<std::pair<std::string, double>> seconds;
    ObjectList b = det;
    test::expect_same_deblended(deblend(std::move(b), p, 3, 4, &seconds), want, what);
    EXPECT_TRUE(used_prepared(seconds)) << what;
    // The slots: candidates with the host's levels.
    const DeblendTreeBuilder& prepared = *fe.prepared_trees;
    size_t several = 0, taken = 0, wrong = 0;
    std::vector<float> thresh, got;
    DeblendScratch scratch;
    for (size_t i = 0; i < n; ++i) {
      several += fe.peaks[i] >= 2;
      const int32_t slot = prepared.slot(i);
      if (slot < 0) continue;
      ++taken;
      CandidateLevels levels;
      const bool host =
          candidate_levels(det[i], p, thresh, levels) && may_split(det[i], p, scratch, fe.peaks[i]);
      const double value0 = prepared.prepared_levels(static_cast<size_t>(slot), got);
      wrong += !host || !same_bits(value0, levels.value0) || got.size() != thresh.size() ||
               std::memcmp(got.data(), thresh.data(), 4 * got.size()) != 0;
    }
    EXPECT_EQ(wrong, 0u) << what;
    EXPECT_GT(taken, several / 2) << what << ": " << taken << " of " << several;
    // In ranges, the first launched ahead.
    {
      ObjectList d = det;
      DeblendStage stage(std::move(d), p, 3, 4, nullptr, nullptr, true);
      stage.launch_plans(n / 3, 4);
      stage.plan(n / 3, 4);
      stage.plan(2 * n / 3, 3);
      stage.plan(n, 2);
      stage.finish(0, n, 4);
      test::expect_same_deblended(stage.take(), want, what + ", in ranges");
    }
    // Other parameters: the stage's own builders.
    p.mincont = mincont + 0.01;
    p.prepared = nullptr;
    ObjectList e = det, g = det;
    const Deblended other = deblend(std::move(e), p, 3, 4);
    p.prepared = fe.prepared_trees.get();
    seconds.clear();
    test::expect_same_deblended(deblend(std::move(g), p, 3, 4, &seconds), other,
                                what + ", another DEBLEND_MINCONT");
    EXPECT_FALSE(used_prepared(seconds)) << what;
  }
}

#endif  // CELERIS_HAVE_CUDA
