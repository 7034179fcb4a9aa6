// Deblending's threshold tree (one union-find pass, stages/deblend_tree.hpp) against the direct
// form of SExtractor's refine.c: every level rebuilt by a Lutz scan of each node of the level
// below. The plans (cores and their pixel order, flags, shapes, amplitudes, draw counts) must be
// identical on random blends, at the image border, for every DEBLEND_NTHRESH and MINCONT, on the
// path that takes each node's flux from its chain, and at NSONMAX overflow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "deblended_compare.hpp"
#include "extract/sextractor/glibc_rand.hpp"
#include "extract/sextractor/lutz.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/deblend.hpp"
#include "extract/stages/deblend_tree_builder.hpp"
#include "extract/stages/detect.hpp"

using celeris::extract::test::expect_same_deblended;

using namespace celeris;
using namespace celeris::extract;

namespace {

// ---- reference: level by level, each node rescanned (the former implementation) -----------

struct RefNode {
  std::vector<int32_t> pix;  // chain order
  float thresh = 0, fdflux = 0;
  uint16_t flags = 0;
  std::vector<int> sons;
  bool ok = true;
};

std::vector<RefNode> ref_components_above(const ObjectView& parent, const RefNode& node, float t,
                                          int minarea, int img_w, int img_h) {
  int x0 = std::numeric_limits<int>::max(), y0 = x0, x1 = 0, y1 = 0;
  for (int32_t pi : node.pix) {
    x0 = std::min(x0, parent.x[pi]);
    y0 = std::min(y0, parent.y[pi]);
    x1 = std::max(x1, parent.x[pi]);
    y1 = std::max(y1, parent.y[pi]);
  }
  const int bw = x1 - x0 + 1, bh = y1 - y0 + 1;
  std::vector<int32_t> local(static_cast<size_t>(bw) * bh, -1);
  for (int32_t pi : node.pix)
    if (parent.cvalue[pi] > t)
      local[static_cast<size_t>(parent.y[pi] - y0) * bw + (parent.x[pi] - x0)] = pi;
  std::vector<RefNode> out;
  lutz_scan(
      bw, bh, [&](int x, int y) { return local[static_cast<size_t>(y) * bw + x] >= 0; }, minarea,
      [&](LutzComponent&& comp) {
        RefNode c;
        c.thresh = t;
        double rv = 0;
        for (int64_t q : comp.pixels) {
          const int32_t pi = local[static_cast<size_t>(q)];
          c.pix.push_back(pi);
          const Pixel p = parent[pi];
          rv += p.cvalue;
          if (p.x == 0 || p.y == 0 || p.x == img_w - 1 || p.y == img_h - 1)
            c.flags |= kFlagTruncated;
        }
        c.fdflux = static_cast<float>(rv);
        out.push_back(std::move(c));
      });
  return out;
}

// The reference levels of one detection (empty when a level overflows NSONMAX).
std::vector<std::vector<RefNode>> reference_levels(const ObjectView& parent,
                                                   const DeblendParams& params,
                                                   std::vector<float>& thresh) {
  const int nthresh = params.nthresh;
  float peak = -std::numeric_limits<float>::max();
  for (const Pixel p : parent) peak = std::max(peak, p.cvalue);
  const float t0 = params.detect_thresh;
  thresh.assign(nthresh, t0);
  std::vector<std::vector<RefNode>> levels(nthresh);
  levels[0].resize(1);
  for (size_t i = 0; i < parent.size(); ++i) levels[0][0].pix.push_back(static_cast<int32_t>(i));
  for (int k = 1; k < nthresh; ++k) {
    thresh[k] = peak > 0
                    ? static_cast<float>(t0 * std::pow(peak / t0, static_cast<double>(k) / nthresh))
                    : t0;
    for (size_t i = 0; i < levels[k - 1].size(); ++i)
      for (RefNode& son :
           ref_components_above(parent, levels[k - 1][i], thresh[k], std::min(params.minarea, 3),
                                params.width, params.height))
        levels[k].push_back(std::move(son));
  }
  return levels;
}

// The tree node for node, level by level: same order, sizes, fluxes (bit for bit), flags, and
// the same chain for every node.
void expect_same_tree(const ObjectView& det, const DeblendParams& p, DeblendTreeScratch& scratch,
                      const std::string& what) {
  std::vector<float> thresh;
  const auto levels = reference_levels(det, p, thresh);
  DeblendTree tree;
  build_deblend_tree(det, thresh, std::min(p.minarea, 3), p.width, p.height, scratch, tree);
  ASSERT_FALSE(tree.overflow) << what;
  ASSERT_EQ(tree.level.size(), levels.size() + 1) << what;
  std::vector<int32_t> chain;
  for (size_t k = 1; k < levels.size(); ++k) {
    ASSERT_EQ(static_cast<size_t>(tree.level[k + 1] - tree.level[k]), levels[k].size())
        << what << " level " << k;
    for (size_t j = 0; j < levels[k].size(); ++j) {
      const DeblendNode& node = tree.nodes[tree.level[k] + j];
      const RefNode& ref = levels[k][j];
      EXPECT_EQ(node.npix, static_cast<int32_t>(ref.pix.size())) << what << " level " << k;
      EXPECT_EQ(node.fdflux, ref.fdflux) << what << " level " << k << " node " << j;
      EXPECT_EQ(node.flags, ref.flags) << what;
      EXPECT_EQ(node.thresh, ref.thresh) << what;
      deblend_node_chain(det, tree, static_cast<int>(k), tree.level[k] + static_cast<int>(j),
                         scratch, chain);
      EXPECT_EQ(chain, ref.pix) << what << " level " << k << " node " << j;
    }
  }
}

// What the plan depends on: the cores (pixels in order, flags, thresholds) or the overflow.
struct RefResult {
  bool split = false;
  uint16_t parent_flags = 0;
  ObjectList cores;
  std::vector<float> core_thresh;
};

RefResult reference_cores(const ObjectView& parent, const DeblendParams& params) {
  RefResult r;
  r.parent_flags = parent.flags;
  const int nthresh = params.nthresh;
  float peak = -std::numeric_limits<float>::max();
  double rv = 0;
  for (const Pixel p : parent) {
    peak = std::max(peak, p.cvalue);
    rv += p.cvalue;
  }
  const float t0 = params.detect_thresh;
  const double value0 = static_cast<double>(static_cast<float>(rv)) * params.mincont;
  const int minarea = std::min(params.minarea, 3);
  std::vector<std::vector<RefNode>> levels(nthresh);
  levels[0].resize(1);
  for (size_t i = 0; i < parent.size(); ++i) levels[0][0].pix.push_back(static_cast<int32_t>(i));
  for (int k = 1; k < nthresh; ++k) {
    if (levels[k - 1].size() >= 1024) {
      r.parent_flags |= kFlagDeblendOverflow;
      return r;
    }
    const float t =
        peak > 0 ? static_cast<float>(t0 * std::pow(peak / t0, static_cast<double>(k) / nthresh))
                 : t0;
    for (size_t i = 0; i < levels[k - 1].size(); ++i)
      for (RefNode& son : ref_components_above(parent, levels[k - 1][i], t, minarea, params.width,
                                               params.height)) {
        if (levels[k].size() >= 1024) {
          r.parent_flags |= kFlagDeblendOverflow;
          return r;
        }
        levels[k - 1][i].sons.push_back(static_cast<int>(levels[k].size()));
        levels[k].push_back(std::move(son));
      }
  }
  auto significant = [&](const RefNode& s) {
    return static_cast<float>(s.fdflux - s.thresh * static_cast<float>(s.pix.size())) > value0;
  };
  std::vector<const RefNode*> kept;
  for (int k = nthresh - 2; k >= 0; --k)
    for (RefNode& node : levels[k]) {
      int m = 0;
      for (int j : node.sons) {
        if (significant(levels[k + 1][j])) ++m;
        node.ok = node.ok && levels[k + 1][j].ok;
      }
      if (m > 1) {
        for (int j : node.sons)
          if (levels[k + 1][j].ok && significant(levels[k + 1][j]))
            kept.push_back(&levels[k + 1][j]);
        node.ok = false;
      }
    }
  if (levels[0][0].ok) return r;
  r.split = true;
  for (const RefNode* node : kept) {
    for (int32_t pi : node->pix) r.cores.push_pixel(parent[pi]);
    r.cores.end_object(node->flags);
    r.core_thresh.push_back(node->thresh);
  }
  return r;
}

// ---- test fields ---------------------------------------------------------------------------

struct Field {
  Image<float> value;
  ObjectList detections;
};

// Gaussian stars (some overlapping, some cut by the border) plus noise, detected at `thresh`.
Field random_field(std::mt19937& rng, int w, int h, int nstars, float thresh, float noise) {
  Field f{Image<float>(w, h), {}};
  std::normal_distribution<float> gauss(0.0f, noise);
  for (int i = 0; i < w * h; ++i) f.value.data()[i] = gauss(rng);
  std::uniform_real_distribution<double> ux(-3, w + 3), uy(-3, h + 3), ua(5, 3000), us(0.7, 3.5);
  for (int s = 0; s < nstars; ++s) {
    const double cx = ux(rng), cy = uy(rng), amp = ua(rng), sig = us(rng);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
        if (r2 < 49 * sig * sig)
          f.value(x, y) += static_cast<float>(amp * std::exp(-r2 / (2 * sig * sig)));
      }
  }
  f.detections = detect(f.value.view(), f.value.view(), {thresh, 3});
  return f;
}

// A split plan's cores as a list of objects: each core's pixels (the detection's, at the plan's
// core_index), its flags, no fixed centre.
ObjectList core_pixels(const ObjectView& det, const DeblendPlan& plan) {
  ObjectList out;
  for (size_t c = 0; c < plan.cores.size(); ++c) {
    for (int64_t k = plan.cores.offset[c]; k < plan.cores.offset[c + 1]; ++k)
      out.push_pixel(det[static_cast<size_t>(plan.core_index[static_cast<size_t>(k)])]);
    out.end_object(plan.cores.flags[c]);
  }
  return out;
}

void expect_same_plan(const ObjectView& det, const DeblendParams& p, DeblendScratch& scratch,
                      const std::string& what) {
  const RefResult ref = reference_cores(det, p);
  const DeblendPlan got = plan_deblend(det, p, scratch);
  ASSERT_EQ(got.split, ref.split) << what;
  ASSERT_EQ(got.parent_flags, ref.parent_flags) << what;
  if (!ref.split) return;
  ASSERT_EQ(got.cores.offset, ref.cores.offset) << what;
  const ObjectList cores = core_pixels(det, got);
  EXPECT_EQ(cores.x, ref.cores.x) << what;
  EXPECT_EQ(cores.y, ref.cores.y) << what;
  EXPECT_EQ(cores.cvalue, ref.cores.cvalue) << what;
  for (size_t c = 0; c < ref.cores.size(); ++c) {
    EXPECT_EQ(got.cores.flags[c], ref.cores.flags[c] | kFlagBlended) << what;
    // The shapes follow from the pixels in order and the level's threshold.
    const Shape s = compute_shape(cores[c], ref.core_thresh[c]);
    const Shape& g = got.child_shapes[c];
    EXPECT_TRUE(s.npix == g.npix && s.mx == g.mx && s.my == g.my && s.a == g.a && s.b == g.b &&
                s.cxx == g.cxx && s.cyy == g.cyy && s.cxy == g.cxy && s.abcor == g.abcor &&
                s.cpeak == g.cpeak)
        << what << " core " << c;
    EXPECT_EQ(got.cores.cx[c], s.mx) << what;
  }
}

TEST(Deblend, TreeGivesTheLevelByLevelScansPlans) {
  std::mt19937 rng(16);
  int splits = 0, total = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const int w = 40 + rng() % 80, h = 40 + rng() % 80;
    const Field f = random_field(rng, w, h, 5 + rng() % 40, 6.0f, 1.0f);
    DeblendScratch scratch;
    for (int nthresh : {2, 5, 32, 64})
      for (double mincont : {0.005, 0.0001, 0.0, 0.05}) {
        DeblendParams p;
        p.nthresh = nthresh;
        p.mincont = mincont;
        p.minarea = 1 + trial % 5;
        p.detect_thresh = 6.0f;
        p.width = w;
        p.height = h;
        for (size_t d = 0; d < f.detections.size(); ++d) {
          const std::string what = "trial " + std::to_string(trial) + " nthresh " +
                                   std::to_string(nthresh) + " mincont " + std::to_string(mincont) +
                                   " detection " + std::to_string(d);
          expect_same_plan(f.detections[d], p, scratch, what);
          ++total;
          splits += plan_deblend(f.detections[d], p).split;
        }
      }
  }
  EXPECT_GT(splits, total / 20);  // blends were met, not just single stars
}

// The path taken when the union-find's sums could round: every node's flux from its chain.
TEST(Deblend, ChainSumsPathGivesTheSamePlans) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 10; ++trial) {
    const Field f = random_field(rng, 90, 70, 30, 4.0f, 1.0f);
    DeblendScratch scratch;
    scratch.tree_scratch.chain_sums = true;
    DeblendParams p;
    p.detect_thresh = 4.0f;
    p.width = 90;
    p.height = 70;
    for (size_t d = 0; d < f.detections.size(); ++d) {
      expect_same_plan(f.detections[d], p, scratch, "trial " + std::to_string(trial));
      expect_same_tree(f.detections[d], p, scratch.tree_scratch, "trial " + std::to_string(trial));
    }
  }
}

// Values spanning 2^40: the union-find's sums could round, so the plan must take the chains'.
TEST(Deblend, WideDynamicRangeTakesTheChainSums) {
  Image<float> v(40, 20, 0.0f);
  for (int x = 2; x < 38; ++x)
    for (int y = 5; y < 15; ++y) v(x, y) = 2.0f + 2.4e-7f * static_cast<float>(x * 7 + y);
  for (int y = 6; y < 14; ++y) v(8, y) = 3e11f, v(30, y) = 2e11f + static_cast<float>(y);
  v(9, 9) = 1.5e5f;
  const ObjectList det = detect(v.view(), v.view(), {0.5f, 3});
  ASSERT_EQ(det.size(), 1u);
  DeblendParams p;
  p.detect_thresh = 0.5f;
  p.width = 40;
  p.height = 20;
  DeblendScratch scratch;
  expect_same_plan(det[0], p, scratch, "wide range");
  expect_same_tree(det[0], p, scratch.tree_scratch, "wide range");
  EXPECT_TRUE(plan_deblend(det[0], p).split);
}

// The order-free check is sound: when it says so, shuffled sums are identical bit for bit; and it
// refuses sets whose sums do depend on the order.
TEST(Deblend, OrderFreeSumCheck) {
  std::mt19937 rng(5);
  int refused_and_differ = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 2 + rng() % 3000;
    // Magnitudes spread over 2^0 .. 2^spread, many low bits set.
    const int spread = rng() % 45;
    std::uniform_real_distribution<float> mant(1.0f, 2.0f);
    std::vector<float> v(n);
    for (float& x : v) x = std::ldexp(mant(rng), static_cast<int>(rng() % (spread + 1)));
    OrderFreeSum check;
    for (float x : v) check.add(x);
    double first = 0;
    for (float x : v) first += x;
    bool differ = false;
    for (int shuffle = 0; shuffle < 20; ++shuffle) {
      std::shuffle(v.begin(), v.end(), rng);
      double sum = 0;
      for (float x : v) sum += x;
      differ = differ || sum != first;
    }
    if (check.exact()) EXPECT_FALSE(differ) << "trial " << trial;
    refused_and_differ += !check.exact() && differ;
  }
  EXPECT_GT(refused_and_differ, 10);  // the trials met order-dependent sums
  OrderFreeSum two;
  two.add(1.0f);
  two.add(1e8f);  // 1e8 + 1 needs 27 of the 53 bits
  EXPECT_TRUE(two.exact());
  two.add(1e-3f);  // its ulp is 2^-33: 1e8 would need 60 bits
  EXPECT_FALSE(two.exact());
}

// More than NSONMAX (1024) nodes on a level: the detection is kept whole, flagged.
TEST(Deblend, MoreThanNsonmaxBranchesOverflow) {
  const int bars = 1100, w = 2 * bars + 2, h = 6;
  Image<float> v(w, h, 0.0f);
  for (int x = 1; x < w - 1; ++x) v(x, 1) = 2.0f;  // a low bridge joining every bar
  for (int b = 0; b < bars; ++b)
    for (int y = 2; y < 5; ++y) v(1 + 2 * b, y) = 100.0f;
  const ObjectList det = detect(v.view(), v.view(), {1.0f, 3});
  ASSERT_EQ(det.size(), 1u);
  DeblendParams p;
  p.detect_thresh = 1.0f;
  p.mincont = 0;  // every bar significant
  p.width = w;
  p.height = h;
  DeblendScratch scratch;
  expect_same_plan(det[0], p, scratch, "overflow");
  EXPECT_TRUE(plan_deblend(det[0], p).parent_flags & kFlagDeblendOverflow);
  // 1000 bars fit.
  Image<float> v2(2 * 1000 + 2, h, 0.0f);
  for (int x = 1; x < 2001; ++x) v2(x, 1) = 2.0f;
  for (int b = 0; b < 1000; ++b)
    for (int y = 2; y < 5; ++y) v2(1 + 2 * b, y) = 100.0f + static_cast<float>(b % 7);
  const ObjectList det2 = detect(v2.view(), v2.view(), {1.0f, 3});
  p.width = 2002;
  expect_same_plan(det2[0], p, scratch, "1000 bars");
  const DeblendPlan plan2 = plan_deblend(det2[0], p);
  EXPECT_FALSE(plan2.parent_flags & kFlagDeblendOverflow);
  EXPECT_EQ(plan2.cores.size(), 1000u);
}

// ---- the stage: draws counted without the exp, children written over the detections --------

// The profile weights of a split plan at (x, y), cumulative, as SExtractor's gatherup (the
// former implementation computed them in both passes).
int ref_profile_weights(const DeblendPlan& plan, int x, int y, std::vector<float>& p) {
  const size_t n = plan.cores.size();
  p.assign(n + 1, 0.0f);
  float distmin = 1e31f;
  int iclst = 0;
  for (size_t i = 0; i < n; ++i) {
    const Shape& s = plan.child_shapes[i];
    const float dx = static_cast<float>(x - s.mx), dy = static_cast<float>(y - s.my);
    const float cxx = static_cast<float>(s.cxx), cyy = static_cast<float>(s.cyy),
                cxy = static_cast<float>(s.cxy);
    const float dist = static_cast<float>(0.5 * (cxx * dx * dx + cyy * dy * dy + cxy * dx * dy) /
                                          static_cast<double>(s.abcor));
    p[i + 1] = static_cast<float>(
        p[i] + (dist < 70.0 ? plan.children[i].amplitude * std::exp(-dist) : 0.0));
    if (dist < distmin) {
      distmin = dist;
      iclst = static_cast<int>(i);
    }
  }
  return iclst;
}

size_t ref_draws(const ObjectView& parent, const DeblendPlan& plan) {
  size_t draws = 0;
  std::vector<float> p;
  for (size_t i = 0; i < parent.size(); ++i) {
    if (plan.in_core[i]) continue;
    ref_profile_weights(plan, parent.x[i], parent.y[i], p);
    if (static_cast<double>(p.back()) > 1.0e-31) ++draws;
  }
  return draws;
}

// One detection's objects appended to `out` by the direct method: each child its core pixels,
// then the pixels drawn for it in the parent's order.
void ref_finish(const ObjectView& parent, const DeblendPlan& plan, GlibcRand& rng,
                ObjectList& out) {
  if (!plan.split) {
    for (const Pixel p : parent) out.push_pixel(p);
    out.end_object(plan.parent_flags, parent.fixed_centre, parent.cx, parent.cy);
    return;
  }
  const size_t n = plan.cores.size();
  std::vector<std::vector<size_t>> given(n);
  std::vector<float> p;
  for (size_t i = 0; i < parent.size(); ++i) {
    if (plan.in_core[i]) continue;
    const int iclst = ref_profile_weights(plan, parent.x[i], parent.y[i], p);
    size_t c = static_cast<size_t>(iclst);
    if (static_cast<double>(p[n]) > 1.0e-31) {
      const float drand = p[n] * static_cast<float>(rng()) / GlibcRand::kRandMax;
      size_t k = 1;
      while (k <= n && p[k] < drand) ++k;
      c = k <= n ? k - 1 : static_cast<size_t>(iclst);
    }
    given[c].push_back(i);
  }
  for (size_t c = 0; c < n; ++c) {
    for (int64_t k = plan.cores.offset[c]; k < plan.cores.offset[c + 1]; ++k)
      out.push_pixel(parent[static_cast<size_t>(plan.core_index[static_cast<size_t>(k)])]);
    for (size_t i : given[c]) out.push_pixel(parent[i]);
    out.end_object(plan.cores.flags[c], true, plan.cores.cx[c], plan.cores.cy[c]);
  }
}

// A random field whose values are rounded to whole units, so that maxima are often plateaus
// of equal pixels (where a peak test that takes equal neighbours as higher, or as lower,
// miscounts), detected at `thresh`.
Field plateau_field(std::mt19937& rng, int w, int h, int nstars, float thresh) {
  Field f = random_field(rng, w, h, nstars, thresh, 1.0f);
  for (int i = 0; i < w * h; ++i) f.value.data()[i] = std::round(f.value.data()[i] / 4) * 4;
  f.detections = detect(f.value.view(), f.value.view(), {thresh, 3});
  return f;
}

// Peaks by their definition: pixels of the detection with no 8-neighbour in it of higher value.
int brute_force_peaks(const ObjectView& d) {
  int peaks = 0;
  for (size_t a = 0; a < d.size(); ++a) {
    bool peak = true;
    for (size_t b = 0; b < d.size(); ++b)
      if (std::abs(d.x[a] - d.x[b]) <= 1 && std::abs(d.y[a] - d.y[b]) <= 1 &&
          d.cvalue[b] > d.cvalue[a])
        peak = false;
    peaks += peak;
  }
  return peaks;
}

TEST(Deblend, CountPeaksEqualsBruteForce) {
  std::mt19937 rng(41);
  int one = 0, many = 0;
  DeblendTreeScratch scratch;
  for (int trial = 0; trial < 20; ++trial) {
    Field f = trial % 2 ? plateau_field(rng, 80, 60, 25, 5.0f)
                        : random_field(rng, 80, 60, 25, 5.0f, 1.0f);
    // Some NaN filtered values (never higher than a neighbour, nor lower).
    if (trial % 4 == 0)
      for (size_t i = 0; i < f.detections.pixel_count(); i += 7)
        f.detections.cvalue[i] = std::numeric_limits<float>::quiet_NaN();
    for (size_t d = 0; d < f.detections.size(); ++d) {
      const int want = brute_force_peaks(f.detections[d]);
      ASSERT_EQ(count_peaks(f.detections[d], 1 << 30, scratch), want) << "detection " << d;
      ASSERT_EQ(count_peaks(f.detections[d], 2, scratch), std::min(want, 2));
      one += want == 1;
      many += want > 1;
    }
  }
  EXPECT_GT(one, 20);
  EXPECT_GT(many, 20);
}

// Two flat-topped blobs joined by a fainter bridge: every pixel of each 3x3 top is a peak (equal
// neighbours are not higher), and the detection splits; one flat top alone is one blob.
TEST(Deblend, FlatTopsArePeaks) {
  Image<float> v(30, 12, 0.0f);
  for (int x = 2; x < 28; ++x)
    for (int y = 2; y < 10; ++y)  // rising towards the nearer top: no peak outside the tops
      v(x, y) = 100.0f - 3.0f * static_cast<float>(std::min(std::abs(x - 6), std::abs(x - 21)) +
                                                   std::abs(y - 6));
  for (int x : {6, 21})
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) v(x + dx, 6 + dy) = 500.0f;
  const ObjectList det = detect(v.view(), v.view(), {5.0f, 3});
  ASSERT_EQ(det.size(), 1u);
  DeblendTreeScratch s;
  EXPECT_EQ(count_peaks(det[0], 1 << 30, s), 18);
  DeblendParams p;
  p.detect_thresh = 5.0f;
  p.width = 30;
  p.height = 12;
  const DeblendPlan plan = plan_deblend(det[0], p);
  ASSERT_TRUE(plan.split);
  EXPECT_EQ(plan.cores.size(), 2u);
}

// Detections of one peak skip the tree: the plans must be those of the full tree, on fields
// with plateaus and with every sub-area size (DETECT_MINAREA 1 lets one-pixel branches count).
TEST(Deblend, OnePeakSkipGivesTheFullTreesPlans) {
  std::mt19937 rng(42);
  int skipped = 0, splits = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const Field f = trial % 2 ? plateau_field(rng, 90, 70, 30, 4.0f)
                              : random_field(rng, 90, 70, 30, 4.0f, 1.0f);
    DeblendScratch fast, full;
    full.every_tree = true;
    DeblendParams p;
    p.detect_thresh = 4.0f;
    p.width = 90;
    p.height = 70;
    p.minarea = 1 + trial % 4;
    p.mincont = trial % 3 == 0 ? 0.0 : 0.005;
    p.photo = trial % 5 == 0;
    for (size_t d = 0; d < f.detections.size(); ++d) {
      const ObjectView det = f.detections[d];
      const DeblendPlan a = plan_deblend(det, p, fast), b = plan_deblend(det, p, full);
      const std::string what = "trial " + std::to_string(trial) + " detection " + std::to_string(d);
      ASSERT_EQ(a.split, b.split) << what;
      ASSERT_EQ(a.parent_flags, b.parent_flags) << what;
      ASSERT_EQ(a.draws, b.draws) << what;
      ASSERT_EQ(a.cores.offset, b.cores.offset) << what;
      ASSERT_EQ(a.core_index, b.core_index) << what;
      skipped += count_peaks(det, 2, fast.tree_scratch) < 2;
      splits += b.split;
    }
  }
  EXPECT_GT(skipped, 50);
  EXPECT_GT(splits, 50);
}

TEST(Deblend, CountBelowEqualsLowerBound) {
  std::mt19937 rng(3);
  const float inf = std::numeric_limits<float>::infinity();
  for (int trial = 0; trial < 20000; ++trial) {
    const int n = static_cast<int>(rng() % 70);
    std::vector<float> t(n);
    for (float& v : t) v = static_cast<float>(rng() % 20) * 0.5f;  // many equal levels
    if (n > 0 && trial % 7 == 0) t.back() = inf;
    std::sort(t.begin(), t.end());
    for (float c :
         {-1.0f, 0.0f, 0.25f, 3.0f, 3.5f, 9.5f, 12.0f, inf, -inf,
          std::numeric_limits<float>::quiet_NaN(), static_cast<float>(rng() % 21) * 0.5f}) {
      const int want = static_cast<int>(std::lower_bound(t.begin(), t.end(), c) - t.begin());
      ASSERT_EQ(count_below(t.data(), n, c), want) << "n " << n << " c " << c;
    }
  }
}

// The parameters for a w x h field detected at `thresh`.
DeblendParams field_params(int w, int h, float thresh, double mincont) {
  DeblendParams p;
  p.detect_thresh = thresh;
  p.width = w;
  p.height = h;
  p.mincont = mincont;
  return p;
}

TEST(Deblend, DrawCountEqualsTheExactCount) {
  std::mt19937 rng(23);
  int splits = 0, ambiguous = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const Field f = random_field(rng, 100, 80, 40, 4.0f, 1.0f);
    const DeblendParams p = field_params(100, 80, 4.0f, 0.0001);
    DeblendScratch scratch;
    for (size_t d = 0; d < f.detections.size(); ++d) {
      const ObjectView det = f.detections[d];
      DeblendPlan plan = plan_deblend(det, p, scratch);
      if (!plan.split) continue;
      ++splits;
      ASSERT_EQ(plan.draws, ref_draws(det, plan)) << "trial " << trial << " detection " << d;
      // Amplitudes where the shortcut cannot decide (tiny: the sums near 1e-31), zero,
      // negative, and not finite: the count still follows the exact sums.
      for (float scale : {1e-3f, 1e-30f, 3e-31f, 0.0f, -1.0f}) {
        DeblendPlan q = plan_deblend(det, p, scratch);
        for (size_t c = 0; c < q.children.size(); ++c)
          q.children[c].amplitude *= (c % 2 == 0 || scale < 0) ? scale : 1.0f;
        const size_t want = ref_draws(det, q);
        ambiguous += want != plan.draws;
        EXPECT_EQ(count_deblend_draws(det, q), want) << "scale " << scale;
      }
      DeblendPlan q = plan_deblend(det, p, scratch);
      q.children[0].amplitude = std::numeric_limits<float>::infinity();
      EXPECT_EQ(count_deblend_draws(det, q), ref_draws(det, q));
    }
  }
  EXPECT_GT(splits, 20);
  EXPECT_GT(ambiguous, 10);  // the tiny amplitudes did change counts
}

// A plan whose draw count is not what its pixel assignment takes (a builder's count gone wrong)
// is refused, fewer or more, before a draw beyond its own is read.
TEST(Deblend, AMiscountedPlanIsRefused) {
  std::mt19937 rng(29);
  const Field f = random_field(rng, 100, 80, 40, 4.0f, 1.0f);
  const DeblendParams p = field_params(100, 80, 4.0f, 0.0001);
  int tried = 0;
  for (size_t d = 0; d < f.detections.size() && tried < 5; ++d) {
    const ObjectView det = f.detections[d];
    DeblendPlan plan = plan_deblend(det, p);
    if (!plan.split || plan.draws == 0) continue;
    ++tried;
    const std::vector<int32_t> random(plan.draws + 1, 12345);
    for (const int64_t off : {int64_t{-1}, int64_t{0}, int64_t{1}}) {
      DeblendPlan q = plan;
      q.draws = static_cast<size_t>(static_cast<int64_t>(plan.draws) + off);
      ObjectList out = f.detections;  // the children's entries written from object 0
      const size_t room = std::max(out.size(), q.cores.size()) + 1;
      out.offset.resize(room + 1), out.flags.resize(room), out.fixed_centre.resize(room);
      out.cx.resize(room), out.cy.resize(room);
      const int64_t first_pixel = f.detections.offset[d];
      DeblendFinishScratch scratch;
      auto finish = [&] {
        finish_deblend(q, random.data(), out, first_pixel, det.size(), 0, scratch);
      };
      if (off == 0)
        EXPECT_NO_THROW(finish()) << "detection " << d;
      else
        EXPECT_THROW(finish(), Error) << "detection " << d << ", draws off by " << off;
    }
  }
  EXPECT_EQ(tried, 5);
}

// The stage (children written over the detections' own pixel ranges, plans kept only for the
// detections that split) against plan_deblend and the direct assignment, detection after
// detection from one rand() stream: every column, offset and parent identical.
TEST(Deblend, StageEqualsPlansAndDirectAssignment) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 8; ++trial) {
    const int w = 120 + trial * 20, h = 90;
    Field f = random_field(rng, w, h, 60, 4.0f, 1.0f);
    // Distinct var/dthresh (weights), to see them travel with their pixels.
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    f.detections.add_pixel_weights();
    for (size_t i = 0; i < f.detections.pixel_count(); ++i) {
      f.detections.var[i] = u(rng);
      f.detections.dthresh[i] = 3.0f + u(rng) * 1e-3f;
    }
    for (size_t k = 0; k < f.detections.size(); k += 3) {  // some detections from elsewhere
      f.detections.fixed_centre[k] = 1;
      f.detections.cx[k] = u(rng);
      f.detections.cy[k] = u(rng);
    }
    DeblendParams p;
    p.detect_thresh = 4.0f;
    p.width = w;
    p.height = h;
    p.mincont = trial % 2 ? 0.005 : 0.0001;
    p.pixel_thresholds = trial % 3 == 0;
    const int64_t offset = trial == 7 ? 1000003 : trial * 5;  // one jumped far into the stream
    ObjectList want;
    want.pixel_weights = true;
    std::vector<int64_t> want_parent;
    GlibcRand stream;
    for (int64_t i = 0; i < offset; ++i) stream();
    int64_t draws = 0;
    for (size_t d = 0; d < f.detections.size(); ++d) {
      const DeblendPlan plan = plan_deblend(f.detections[d], p);
      draws += static_cast<int64_t>(plan.draws);
      const size_t before = want.size();
      ref_finish(f.detections[d], plan, stream, want);
      want_parent.resize(want.size(), static_cast<int64_t>(d));
      ASSERT_GT(want.size(), before);
    }
    ObjectList detections = f.detections;
    const std::string what = "trial " + std::to_string(trial);
    EXPECT_GT(want.size(), f.detections.size()) << what;  // blends were split
    // Every column, offset, parent and the draws.
    auto expect_wanted = [&](const Deblended& got, const std::string& how) {
      EXPECT_EQ(got.draws, draws) << how;
      EXPECT_EQ(got.parent, want_parent) << how;
      EXPECT_EQ(got.objects.offset, want.offset) << how;
      EXPECT_EQ(got.objects.x, want.x) << how;
      EXPECT_EQ(got.objects.y, want.y) << how;
      EXPECT_EQ(got.objects.value, want.value) << how;
      EXPECT_EQ(got.objects.cvalue, want.cvalue) << how;
      EXPECT_EQ(got.objects.var, want.var) << how;
      EXPECT_EQ(got.objects.dthresh, want.dthresh) << how;
      EXPECT_EQ(got.objects.flags, want.flags) << how;
      EXPECT_EQ(got.objects.fixed_centre, want.fixed_centre) << how;
      EXPECT_EQ(got.objects.cx, want.cx) << how;
      EXPECT_EQ(got.objects.cy, want.cy) << how;
    };
    expect_wanted(deblend(std::move(detections), p, offset, 1 + trial % 3), what);
    // The same stage finished a random range of detections at a time (DeblendStage, as the
    // pipelined back end takes it), each range's objects complete once it is finished.
    ObjectList again = f.detections;
    DeblendStage staged(std::move(again), p, offset, 1 + trial % 3);
    const size_t nd = staged.detections();
    EXPECT_EQ(staged.first_object(nd), want.size()) << what;
    for (size_t begin = 0; begin < nd;) {
      const size_t end = std::min(nd, begin + 1 + rng() % (nd / 2 + 1));
      staged.finish(begin, end, 1 + trial % 2);
      const Deblended& part = staged.result();
      for (size_t o = staged.first_object(begin); o < staged.first_object(end); ++o) {
        EXPECT_EQ(part.parent[o], want_parent[o]) << what << " object " << o;
        EXPECT_EQ(part.objects.offset[o + 1], want.offset[o + 1]) << what << " object " << o;
        EXPECT_EQ(part.objects.flags[o], want.flags[o]) << what << " object " << o;
      }
      begin = end;
    }
    expect_wanted(staged.take(), what + ", in ranges");
  }
}

// The stage given each detection's peaks (as the GPU front end counts them, FrontEnd::peaks)
// gives what it gives counting them itself: same objects, pixels, draws and parents; a count
// list of the wrong length is refused.
TEST(Deblend, StageGivenThePeaksIsTheSame) {
  std::mt19937 rng(77);
  size_t several = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const int w = 110 + trial * 15, h = 80;
    const Field f =
        trial % 2 ? plateau_field(rng, w, h, 40, 4.0f) : random_field(rng, w, h, 40, 4.0f, 1.0f);
    DeblendParams p;
    p.detect_thresh = 4.0f;
    p.width = w;
    p.height = h;
    p.minarea = 1 + trial % 3;
    std::vector<uint8_t> peaks(f.detections.size());
    DeblendTreeScratch scratch;
    for (size_t d = 0; d < peaks.size(); ++d) {
      peaks[d] = static_cast<uint8_t>(std::min(2, count_peaks(f.detections[d], 2, scratch)));
      several += peaks[d] >= 2;
    }
    ObjectList a = f.detections, b = f.detections;
    const Deblended counted = deblend(std::move(a), p, 11, 1 + trial % 2);
    p.peaks = &peaks;
    const Deblended given = deblend(std::move(b), p, 11, 1 + trial % 2);
    const std::string what = "trial " + std::to_string(trial);
    EXPECT_GT(counted.objects.size(), f.detections.size()) << what;  // blends were split
    expect_same_deblended(given, counted, what);
    std::vector<uint8_t> short_list(peaks.begin(), peaks.end() - 1);
    p.peaks = &short_list;
    ObjectList c = f.detections;
    EXPECT_THROW(deblend(std::move(c), p, 11, 1), Error) << what;
  }
  EXPECT_GT(several, 20u);
}

// Each detection's peaks as the GPU front end gives them (FrontEnd::peaks): min(2, count_peaks).
std::vector<uint8_t> counted_peaks(const ObjectList& detections) {
  std::vector<uint8_t> peaks(detections.size());
  DeblendTreeScratch scratch;
  for (size_t d = 0; d < peaks.size(); ++d)
    peaks[d] = static_cast<uint8_t>(std::min(2, count_peaks(detections[d], 2, scratch)));
  return peaks;
}

// A tree builder on the host (the GPU's stand-in for the stage's own path): build_deblend_tree
// on the candidates it is given, each node's seed moved to the last pixel of its chain (the
// GPU's seeds are other pixels than the host's), every third tree refused (the stage builds
// those itself), every third one's cores made too (the prune and the cores' chains, as the GPU
// gives them: the stage plans those from them), and detections of more than `max_pixels` pixels
// not taken.
class HostTreeBuilder final : public DeblendTreeBuilder {
 public:
  // `built` counts the trees it builds.
  // `split_cores` (if given) counts the split plans it gives cores for.
  HostTreeBuilder(size_t max_pixels, size_t* built, size_t* split_cores = nullptr)
      : max_pixels_(max_pixels), built_count_(built), split_cores_(split_cores) {}
  bool takes(size_t pixels, int64_t cells) const override {
    return pixels <= max_pixels_ && cells > 0;
  }
  void begin(size_t candidates, size_t pixels, int nthresh, int minarea, int width,
             int height) override {
    nthresh_ = nthresh, minarea_ = minarea, width_ = width, height_ = height;
    pixels_ = pixels;
    given_.assign(candidates, {});
    trees_.assign(candidates, {});
    cores_.assign(candidates, {});
    launched_ = built_ = false;
  }
  void add(size_t j, size_t pixel_begin, const ObjectView& parent, const float* thresh,
           double value0, const TreeBox& box, const OrderFreeSum& sums) override {
    ASSERT_TRUE(sums.exact());
    ASSERT_FALSE(launched_);
    ASSERT_LE(pixel_begin + parent.size(), pixels_);
    for (size_t p = 0; p < parent.size(); ++p) {
      ASSERT_TRUE(parent.x[p] >= box.x0 && parent.x[p] <= box.x1);
      ASSERT_TRUE(parent.y[p] >= box.y0 && parent.y[p] <= box.y1);
    }
    given_[j] = {true, parent, std::vector<float>(thresh, thresh + nthresh_), value0};
  }
  void launch() override { launched_ = true; }
  void wait() override {
    ASSERT_TRUE(launched_);
    DeblendTreeScratch scratch;
    BuiltCoresScratch core_scratch;
    std::vector<int32_t> chain;
    for (size_t j = 0; j < given_.size(); ++j) {
      if (!given_[j].added) continue;
      DeblendTree& t = trees_[j];
      build_deblend_tree(given_[j].parent, given_[j].thresh, minarea_, width_, height_, scratch, t);
      ++*built_count_;
      if (t.overflow) continue;
      for (size_t k = 1; k + 1 < t.level.size(); ++k)
        for (int32_t n = t.level[k]; n < t.level[k + 1]; ++n) {
          deblend_node_chain(given_[j].parent, t, static_cast<int>(k), n, scratch, chain);
          t.nodes[n].seed = chain.back();
        }
      if (j % 3 == 1)
        built_cores(given_[j].parent, t, nthresh_, given_[j].value0, nullptr, scratch, core_scratch,
                    cores_[j]);
    }
    built_ = true;
  }
  bool cores(size_t j, BuiltCores& out) const override {
    EXPECT_TRUE(built_ && given_[j].added);
    if (j % 3 != 1 || trees_[j].overflow) return false;
    out = cores_[j];
    if (split_cores_ && out.count > 0) ++*split_cores_;
    return true;
  }
  bool tree(size_t j, DeblendTree& out) const override {
    EXPECT_TRUE(built_ && given_[j].added);
    if (j % 3 == 2) return false;
    out = trees_[j];
    return true;
  }
  size_t not_built() const override { return 0; }

 private:
  struct Given {
    bool added = false;
    ObjectView parent;
    std::vector<float> thresh;
    double value0 = 0;
  };
  size_t max_pixels_;
  size_t* built_count_;
  size_t* split_cores_;
  int nthresh_ = 0, minarea_ = 0, width_ = 0, height_ = 0;
  size_t pixels_ = 0;
  std::vector<Given> given_;
  std::vector<DeblendTree> trees_;
  std::vector<BuiltCores> cores_;
  bool launched_ = false, built_ = false;
};

// The stage with a tree builder gives what it gives building every tree itself: same objects,
// every column, the draws and the parents, whichever trees the builder takes, refuses or moves
// the seeds of, for DEBLEND_NTHRESH, MINCONT, DETECT_MINAREA, DETECT_TYPE PHOTO and weights'
// thresholds; also with the peaks given and on several threads.
TEST(Deblend, StageWithATreeBuilderIsTheSame) {
  std::mt19937 rng(91);
  size_t built = 0, split_cores = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int w = 100 + trial * 13, h = 85;
    Field f = trial % 4 == 3 ? plateau_field(rng, w, h, 45, 4.0f)
                             : random_field(rng, w, h, 45, 4.0f, 1.0f);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    f.detections.add_pixel_weights();
    for (size_t i = 0; i < f.detections.pixel_count(); ++i)
      f.detections.dthresh[i] = 3.0f + u(rng) * 1e-3f;
    DeblendParams p;
    p.detect_thresh = 4.0f;
    p.width = w;
    p.height = h;
    p.nthresh = std::vector<int>{32, 2, 7, 64}[trial % 4];
    p.mincont = trial % 2 ? 0.005 : 0.0001;
    p.minarea = 1 + trial % 5;
    p.photo = trial % 5 == 4;
    p.pixel_thresholds = trial % 3 == 0;
    const std::vector<uint8_t> peaks = counted_peaks(f.detections);
    if (trial % 2) p.peaks = &peaks;
    const int threads = 1 + trial % 3;
    ObjectList a = f.detections, b = f.detections;
    const Deblended want = deblend(std::move(a), p, 5, threads);
    // Builders that take every candidate, or the small ones, and (trial 5) none at all.
    size_t made = 0;
    p.trees = [&]() -> std::unique_ptr<DeblendTreeBuilder> {
      ++made;
      if (trial == 5) return nullptr;
      return std::make_unique<HostTreeBuilder>(trial % 3 == 1 ? 60 : 100000, &built, &split_cores);
    };
    std::vector<std::pair<std::string, double>> steps;
    const Deblended got = deblend(std::move(b), p, 5, threads, &steps);
    EXPECT_GE(made, 1u);
    const std::string what = "trial " + std::to_string(trial);
    EXPECT_GT(want.objects.size(), f.detections.size()) << what;  // blends were split
    expect_same_deblended(got, want, what);
    bool timed = false;
    for (const auto& s : steps) timed |= s.first == "deblend plans: from the builders' trees";
    EXPECT_TRUE(timed) << what;
  }
  EXPECT_GT(built, 30u);        // the builder's trees were used (60 of them)
  EXPECT_GT(split_cores, 10u);  // and its cores, for split plans
}

// The stage planned a random range of detections at a time (DeblendStage's in_ranges, each
// range's plans, draws and objects before the next range's: the route to a back end that runs
// in detection order from the plans onward), some ranges launched ahead of the one planned (their
// trees under way meanwhile), gives what it gives planning them all at once, with
// the trees its own or a builder's, the peaks given or counted, on one thread or several, the
// stream jumped into; finishing a range before it is planned is refused, and so is a chooser of
// the children elsewhere (it takes every split detection at once).
TEST(Deblend, StagePlannedInRangesIsTheSame) {
  std::mt19937 rng(93);
  size_t built = 0, ranges = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const int w = 110 + trial * 17, h = 80;
    Field f = trial % 4 == 3 ? plateau_field(rng, w, h, 50, 4.0f)
                             : random_field(rng, w, h, 50, 4.0f, 1.0f);
    DeblendParams p;
    p.detect_thresh = 4.0f;
    p.width = w;
    p.height = h;
    p.mincont = trial % 2 ? 0.005 : 0.0001;
    p.minarea = 1 + trial % 4;
    const std::vector<uint8_t> peaks = counted_peaks(f.detections);
    if (trial % 3 == 1) p.peaks = &peaks;
    if (trial % 2)
      p.trees = [&]() -> std::unique_ptr<DeblendTreeBuilder> {
        return std::make_unique<HostTreeBuilder>(100000, &built);
      };
    const int threads = 1 + trial % 3;
    const int64_t offset = trial == 5 ? 700001 : trial * 3;
    ObjectList a = f.detections, b = f.detections;
    const Deblended want = deblend(std::move(a), p, offset, threads);
    const std::string what = "trial " + std::to_string(trial);
    EXPECT_GT(want.objects.size(), f.detections.size()) << what;  // blends were split
    DeblendStage staged(std::move(b), p, offset, threads, nullptr, nullptr, true);
    const size_t nd = staged.detections();
    EXPECT_EQ(staged.planned(), 0u) << what;
    EXPECT_THROW(staged.finish(0, 1, threads), Error) << what;
    // A first range of one detection, then random ones (some empty).
    std::vector<size_t> ends{1};
    while (ends.back() < nd) ends.push_back(std::min(nd, ends.back() + rng() % (nd / 3 + 1)));
    size_t launched = 0;
    for (size_t k = 0, begin = 0; k < ends.size(); ++k) {
      const size_t end = ends[k];
      const int plan_threads = 1 + (trial + static_cast<int>(k)) % 3;
      // Some ranges launched ahead, the next one's trees under way while this one is planned.
      if (launched < end) staged.launch_plans(launched = end, plan_threads);
      if (k + 1 < ends.size() && rng() % 2) {
        staged.launch_plans(launched = ends[k + 1], plan_threads);
        if (ends[k + 1] > end + 1)  // a plan may not end inside a launched range
          EXPECT_THROW(staged.plan(end + 1, plan_threads), Error) << what;
      }
      staged.plan(end, plan_threads);
      ++ranges;
      EXPECT_EQ(staged.planned(), end) << what;
      // The objects of detections [0, end): want's parents are in detection order.
      const auto objects_before =
          std::lower_bound(want.parent.begin(), want.parent.end(), static_cast<int64_t>(end));
      EXPECT_EQ(staged.first_object(end), static_cast<size_t>(objects_before - want.parent.begin()))
          << what << " range to " << end;
      EXPECT_EQ(staged.result().objects.size(), staged.first_object(end)) << what;
      if (end < nd) EXPECT_THROW(staged.finish(begin, end + 1, threads), Error) << what;
      staged.finish(begin, end, threads);
      begin = end;
    }
    EXPECT_THROW(staged.plan(nd + 1, threads), Error) << what;
    EXPECT_THROW(staged.launch_plans(nd + 1, threads), Error) << what;
    expect_same_deblended(staged.take(), want, what + ", planned in ranges");
  }
  EXPECT_GT(built, 30u);  // the builder's trees were used
  EXPECT_GT(ranges, 30u);
  // A chooser of the children elsewhere needs every plan at once.
  std::mt19937 rng2(5);
  Field f = random_field(rng2, 100, 80, 30, 4.0f, 1.0f);
  DeblendParams p;
  p.detect_thresh = 4.0f;
  p.children = [](const DeblendChildrenJob&, std::vector<int32_t>&, std::vector<uint8_t>&,
                  std::vector<std::pair<std::string, double>>*) {};
  EXPECT_THROW(DeblendStage(std::move(f.detections), p, 0, 1, nullptr, nullptr, true), Error);
}

// Below DeblendParams::builder_min_candidates candidates no builder is asked for and every tree
// is the host's (the same objects); at or above it the builders are asked for.
TEST(Deblend, FewCandidatesAreAllPlannedOnTheHost) {
  std::mt19937 rng(95);
  const Field f = random_field(rng, 200, 150, 120, 4.0f, 1.0f);
  DeblendParams p;
  p.detect_thresh = 4.0f;
  p.width = 200;
  p.height = 150;
  ObjectList a = f.detections;
  const Deblended want = deblend(std::move(a), p, 3, 2);
  size_t candidates = 0;
  {
    DeblendScratch scratch;
    for (size_t d = 0; d < f.detections.size(); ++d)
      candidates += may_split(f.detections[d], p, scratch);
  }
  ASSERT_GT(candidates, 5u);
  size_t built = 0;
  for (const size_t min : {candidates + 1, candidates}) {
    size_t made = 0;
    p.trees = [&] {
      ++made;
      return std::make_unique<HostTreeBuilder>(100000, &built);
    };
    p.builder_min_candidates = min;
    ObjectList b = f.detections;
    const Deblended got = deblend(std::move(b), p, 3, 2);
    const std::string what = "minimum " + std::to_string(min) + " of " + std::to_string(candidates);
    EXPECT_EQ(made, min > candidates ? 0u : 2u) << what;  // two batches
    expect_same_deblended(got, want, what);
  }
  EXPECT_GT(built, 0u);
}

// The stage with its pixel assignments made by a chooser (DeblendParams::children: the GPU's in
// the pipeline) gives what it gives making them in finish(): here a chooser on the host that
// makes them with choose_children and leaves every third detection (and, once, all of them) to
// the stage; with and without tree builders, on several threads, in chunks of detections.
TEST(Deblend, StageWithTheChildrenChosenElsewhereIsTheSame) {
  std::mt19937 rng(93);
  size_t chosen_elsewhere = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const int w = 220 + trial * 17, h = 160;
    Field f = random_field(rng, w, h, 160, 4.0f, 1.0f);
    DeblendParams p;
    p.detect_thresh = 4.0f;
    p.width = w;
    p.height = h;
    p.nthresh = std::vector<int>{32, 7, 64}[trial % 3];
    p.mincont = trial % 2 ? 0.005 : 0.0001;
    const int threads = 1 + trial % 3;
    ObjectList a = f.detections, b = f.detections;
    const Deblended want = deblend(std::move(a), p, 7, threads);
    size_t built = 0;
    if (trial % 2) p.trees = [&] { return std::make_unique<HostTreeBuilder>(100000, &built); };
    size_t calls = 0;
    p.children = [&](const DeblendChildrenJob& job, std::vector<int32_t>& chosen,
                     std::vector<uint8_t>& done, std::vector<std::pair<std::string, double>>*) {
      ++calls;
      chosen.assign(job.chosen_begin.back(), -7);  // every entry the stage reads is written
      done.assign(job.plans.size(), 0);
      std::vector<float> scratch;
      for (size_t j = 0; j < job.plans.size(); ++j) {
        if (trial == 4 || j % 3 == 2) continue;
        choose_children(*job.plans[j], job.random + job.first_draw[j], job.parents[j], scratch,
                        chosen.data() + job.chosen_begin[j]);
        done[j] = 1;
        ++chosen_elsewhere;
      }
    };
    DeblendStage stage(std::move(b), p, 7, threads);
    for (size_t d = 0; d < stage.detections(); d += 11)
      stage.finish(d, std::min(stage.detections(), d + 11), threads);
    const Deblended got = stage.take();
    const std::string what = "trial " + std::to_string(trial);
    EXPECT_EQ(calls, 1u) << what;
    EXPECT_GT(want.objects.size(), f.detections.size()) << what;  // blends were split
    expect_same_deblended(got, want, what);
  }
  EXPECT_GT(chosen_elsewhere, 60u);
}

// The levels from one pow and products equal SExtractor's pow per level, bit for bit, over
// thresholds and peaks of every scale (and where no product can be trusted: non-positive or
// non-finite ratios, subnormal levels); a large tolerance takes every level by pow.
TEST(Deblend, ExponentialLevelsEqualPowBitForBit) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const float special[] = {0.0f,
                           -2.0f,
                           1e-40f,
                           3e38f,
                           std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN()};
  long levels = 0, by_pow = 0;
  std::vector<float> got(128), forced(128);
  for (int trial = 0; trial < 300000; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 63);
    float t0 = static_cast<float>(std::pow(10.0, -8 + 16 * u(rng)));
    float peak = static_cast<float>(t0 * std::pow(10.0, (trial % 10 == 0 ? -3 : 0) + 30 * u(rng)));
    if (trial % 1000 == 1) t0 = special[(trial / 1000) % 6];
    if (trial % 1000 == 2) peak = special[(trial / 1000) % 6];
    if (!(peak > 0)) continue;  // plan_deblend keeps every level at t0 then
    const int pows = exponential_levels(t0, peak, n, got.data());
    if (trial % 1000 > 2) by_pow += pows, levels += n - 1;
    ASSERT_EQ(exponential_levels(t0, peak, n, forced.data(), 1e6), n - 1);
    for (int k = 0; k < n; ++k) {
      const float want =
          k == 0 ? t0 : static_cast<float>(t0 * std::pow(peak / t0, static_cast<double>(k) / n));
      ASSERT_TRUE(std::memcmp(&got[k], &want, sizeof(float)) == 0)
          << "t0 " << t0 << " peak " << peak << " n " << n << " k " << k << ": " << got[k] << " vs "
          << want;
      ASSERT_TRUE(std::memcmp(&forced[k], &want, sizeof(float)) == 0) << "forced, k " << k;
    }
  }
  EXPECT_GT(levels, 5000000);
  EXPECT_LT(by_pow, levels / 10000);  // the products decide nearly every ordinary level
}

}  // namespace
