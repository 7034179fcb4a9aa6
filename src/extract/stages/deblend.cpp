#include "extract/stages/deblend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "extract/settings/threads.hpp"
#include "extract/sextractor/glibc_rand.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract {

namespace {

constexpr int kMaxDeblendArea = 3;  // sub-components need min(DETECT_MINAREA, 3) pixels

// Gaussian profile weights of each child at pixel (x, y) (cumulative in p, as SExtractor), and
// the nearest child in the moment metric.
int profile_weights(const DeblendPlan& plan, int x, int y, std::vector<float>& p) {
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
    p[i + 1] = static_cast<float>(p[i] + (dist < 70.0 ? plan.amplitude[i] * std::exp(-dist) : 0.0));
    if (dist < distmin) {
      distmin = dist;
      iclst = static_cast<int>(i);
    }
  }
  return iclst;
}

}  // namespace

DeblendPlan plan_deblend(const ObjectView& parent, const DeblendParams& params) {
  DeblendScratch scratch;
  return plan_deblend(parent, params, scratch);
}

DeblendPlan plan_deblend(const ObjectView& parent, const DeblendParams& params,
                         DeblendScratch& scratch) {
  DeblendPlan plan;
  plan.parent_flags = parent.flags;
  const int nthresh = params.nthresh;
  if (nthresh < 2 || parent.empty()) return plan;

  float peak = -std::numeric_limits<float>::max();
  double rv = 0;
  for (const Pixel p : parent) {
    peak = std::max(peak, p.cvalue);
    rv += p.cvalue;
  }
  const float t0 = object_dthresh(parent, params.detect_thresh, params.pixel_thresholds);
  const double value0 = static_cast<double>(static_cast<float>(rv)) * params.mincont;
  const int minarea = std::min(params.minarea, kMaxDeblendArea);

  std::vector<float>& thresh = scratch.thresh;
  thresh.assign(nthresh, t0);
  for (int k = 1; k < nthresh; ++k) {
    if (!(peak > 0))
      thresh[k] = t0;
    else if (params.photo)
      thresh[k] = static_cast<float>(t0 + (peak - t0) * static_cast<double>(k) / nthresh);
    else
      thresh[k] = static_cast<float>(t0 * std::pow(peak / t0, static_cast<double>(k) / nthresh));
    if (std::isnan(thresh[k])) return plan;  // no pixel above any level: nothing splits
  }
  DeblendTree& tree = scratch.tree;
  build_deblend_tree(parent, thresh, minarea, params.width, params.height, scratch.tree_scratch,
                     tree);
  if (tree.overflow) {
    plan.parent_flags |= kFlagDeblendOverflow;
    return plan;
  }

  // Prune from the top: a node with >= 2 significant branches splits into them.
  auto significant = [&](const DeblendNode& s) {
    return static_cast<float>(s.fdflux - s.thresh * static_cast<float>(s.npix)) > value0;
  };
  std::vector<uint8_t>& ok = scratch.ok;
  ok.assign(tree.nodes.size(), 1);
  std::vector<std::pair<int, int32_t>>& kept = scratch.kept;  // (level, node)
  kept.clear();
  for (int k = nthresh - 2; k >= 0; --k)
    for (int32_t j = tree.level[k]; j < tree.level[k + 1]; ++j) {
      const DeblendNode& node = tree.nodes[j];
      int m = 0;
      for (int32_t son = node.first_son; son < node.first_son + node.sons; ++son) {
        if (significant(tree.nodes[son])) ++m;
        ok[j] = ok[j] && ok[son];
      }
      if (m > 1) {
        for (int32_t son = node.first_son; son < node.first_son + node.sons; ++son)
          if (ok[son] && significant(tree.nodes[son])) kept.emplace_back(k + 1, son);
        ok[j] = 0;
      }
    }
  if (ok[0]) return plan;  // no split: the detection is unchanged

  plan.split = true;
  plan.in_core.assign(parent.size(), 0);
  const uint16_t inherited =
      parent.flags & (kFlagIsoIncomplete | kFlagAperIncomplete | kFlagExtractOverflow);
  std::vector<int32_t>& chain = scratch.chain;
  for (const auto& [k, j] : kept) {
    const DeblendNode& node = tree.nodes[j];
    deblend_node_chain(parent, tree, k, j, scratch.tree_scratch, chain);
    for (int32_t pi : chain) {
      plan.cores.push_pixel(parent[pi]);
      plan.in_core[pi] = 1;
    }
    plan.cores.end_object(node.flags | kFlagBlended | inherited);
    const size_t c = plan.cores.size() - 1;
    const Shape s = compute_shape(plan.cores[c], node.thresh, params.pixel_thresholds);
    plan.cores.fixed_centre[c] = 1;
    plan.cores.cx[c] = s.mx;
    plan.cores.cy[c] = s.my;
    const float d = static_cast<float>(
        s.npix / (2 * kSexPi * s.abcor * static_cast<float>(s.a) * static_cast<float>(s.b)));
    float amp = d < 70.0f ? t0 * std::exp(d) : static_cast<float>(4.0 * s.cpeak);
    if (amp > 4.0 * s.cpeak) amp = static_cast<float>(4.0 * s.cpeak);
    plan.amplitude.push_back(amp);
    plan.child_shapes.push_back(s);
  }
  std::vector<float> p;
  for (size_t i = 0; i < parent.size(); ++i) {
    if (plan.in_core[i]) continue;
    const Pixel px = parent[i];
    profile_weights(plan, px.x, px.y, p);
    if (static_cast<double>(p.back()) > 1.0e-31) ++plan.draws;
  }
  return plan;
}

void finish_deblend(const ObjectView& parent, const DeblendPlan& plan, const int32_t* random,
                    ObjectList& out) {
  if (!plan.split) {
    for (const Pixel p : parent) out.push_pixel(p);
    out.end_object(plan.parent_flags, parent.fixed_centre, parent.cx, parent.cy);
    return;
  }
  // Each pixel outside the cores goes to one child; a child's pixels are its core, then those
  // it was given, in the parent's order (a stable bucket sort by child).
  std::vector<float> p;
  const size_t n = plan.cores.size();
  std::vector<int32_t> chosen(parent.size(), -1);
  std::vector<size_t> given(n + 1, 0);
  size_t draw = 0;
  for (size_t i = 0; i < parent.size(); ++i) {
    if (plan.in_core[i]) continue;
    const Pixel px = parent[i];
    const int iclst = profile_weights(plan, px.x, px.y, p);
    size_t c = static_cast<size_t>(iclst);
    if (static_cast<double>(p[n]) > 1.0e-31) {
      const float drand = p[n] * static_cast<float>(random[draw++]) / GlibcRand::kRandMax;
      size_t k = 1;
      while (k <= n && p[k] < drand) ++k;
      c = k <= n ? k - 1 : static_cast<size_t>(iclst);
    }
    chosen[i] = static_cast<int32_t>(c);
    ++given[c + 1];
  }
  for (size_t c = 0; c < n; ++c) given[c + 1] += given[c];
  std::vector<int32_t> order(given[n]);
  for (size_t i = 0; i < parent.size(); ++i)
    if (chosen[i] >= 0) order[given[chosen[i]]++] = static_cast<int32_t>(i);
  size_t next = 0;
  for (size_t c = 0; c < n; ++c) {
    const ObjectView core = plan.cores[c];
    for (const Pixel px : core) out.push_pixel(px);
    for (; next < given[c]; ++next) out.push_pixel(parent[order[next]]);
    out.end_object(core.flags, true, core.cx, core.cy);
  }
}

Deblended deblend(const ObjectList& detections, const DeblendParams& params, int64_t rand_offset,
                  int threads) {
  const size_t n = detections.size();
  std::vector<DeblendPlan> plans(n);
  // Largest detections first, so that none is left to run alone at the end.
  std::vector<uint32_t> by_size(n);
  for (size_t i = 0; i < n; ++i) by_size[i] = static_cast<uint32_t>(i);
  std::stable_sort(by_size.begin(), by_size.end(), [&](uint32_t a, uint32_t b) {
    return detections.count(a) > detections.count(b);
  });
#pragma omp parallel num_threads(threads)
  {
    DeblendScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (size_t k = 0; k < n; ++k)
      plans[by_size[k]] = plan_deblend(detections[by_size[k]], params, scratch);
  }
  std::vector<size_t> first_draw(n + 1, 0);
  for (size_t i = 0; i < n; ++i) first_draw[i + 1] = first_draw[i] + plans[i].draws;
  std::vector<int32_t> stream(first_draw.back());
  GlibcRand rng;
  for (int64_t i = 0; i < rand_offset; ++i) rng();
  for (auto& v : stream) v = rng();
  // Detections in blocks, each block's objects in a list of its own, concatenated in order.
  constexpr size_t kBlock = 64;
  const size_t nblocks = (n + kBlock - 1) / kBlock;
  std::vector<ObjectList> parts(nblocks);
  std::vector<std::vector<int64_t>> parents(nblocks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (size_t b = 0; b < nblocks; ++b)
    for (size_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) {
      finish_deblend(detections[i], plans[i], stream.data() + first_draw[i], parts[b]);
      plans[i] = DeblendPlan{};
      parents[b].resize(parts[b].size(), static_cast<int64_t>(i));
    }
  Deblended out;
  out.draws = static_cast<int64_t>(first_draw.back());
  for (const auto& p : parents) out.parent.insert(out.parent.end(), p.begin(), p.end());
  out.objects = ObjectList::concatenate(parts, threads);
  return out;
}

}  // namespace celeris::extract
