#include "extract/stages/deblend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "extract/settings/threads.hpp"
#include "extract/sextractor/glibc_rand.hpp"
#include "extract/sextractor/lutz.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract {

namespace {

constexpr int kMaxDeblendArea = 3;  // sub-components need min(DETECT_MINAREA, 3) pixels
constexpr int kMaxSons = 1024;      // SExtractor's NSONMAX: more nodes on a level = overflow

struct Node {
  std::vector<int32_t> pix;  // indices into the parent's pixel list, in raster order
  float thresh = 0;          // level threshold
  float fdflux = 0;          // sum of filtered values
  uint16_t flags = 0;        // kFlagTruncated from its own pixels
  std::vector<int> sons;     // indices in the next level
  bool ok = true;
};

// Connected components above `t` of the pixels of one node (8-connected), kept when they have
// at least `minarea` pixels, in SExtractor's completion order and pixel chain order. A component
// above t lies entirely inside one node of the level below, so scanning the node's bounding box
// with only its own pixels gives the same components, orders and chains as SExtractor's scan of
// that box.
std::vector<Node> components_above(const ObjectView& parent, const Node& node, float t, int minarea,
                                   int img_w, int img_h, DeblendScratch& scratch) {
  int x0 = std::numeric_limits<int>::max(), y0 = x0, x1 = 0, y1 = 0;
  for (int32_t pi : node.pix) {
    const Pixel p = parent[pi];
    x0 = std::min(x0, p.x);
    y0 = std::min(y0, p.y);
    x1 = std::max(x1, p.x);
    y1 = std::max(y1, p.y);
  }
  const int bw = x1 - x0 + 1, bh = y1 - y0 + 1;
  std::vector<int32_t>& local = scratch.local;
  local.assign(static_cast<size_t>(bw) * bh, -1);
  for (int32_t pi : node.pix) {
    const Pixel p = parent[pi];
    if (p.cvalue > t) local[static_cast<size_t>(p.y - y0) * bw + (p.x - x0)] = pi;
  }
  std::vector<Node> out;
  lutz_scan(
      bw, bh, [&](int x, int y) { return local[static_cast<size_t>(y) * bw + x] >= 0; }, minarea,
      [&](LutzComponent&& comp) {
        Node c;
        c.thresh = t;
        c.pix.reserve(comp.pixels.size());
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
      },
      scratch.lutz);
  return out;
}

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

  std::vector<std::vector<Node>> levels(nthresh);
  levels[0].resize(1);
  levels[0][0].pix.resize(parent.size());
  for (size_t i = 0; i < parent.size(); ++i) levels[0][0].pix[i] = static_cast<int32_t>(i);
  for (int k = 1; k < nthresh; ++k) {
    if (static_cast<int>(levels[k - 1].size()) >= kMaxSons) {
      plan.parent_flags |= kFlagDeblendOverflow;
      return plan;
    }
    const float t =
        peak > 0 ? static_cast<float>(t0 * std::pow(peak / t0, static_cast<double>(k) / nthresh))
                 : t0;
    for (size_t i = 0; i < levels[k - 1].size(); ++i) {
      std::vector<Node> sons = components_above(parent, levels[k - 1][i], t, minarea, params.width,
                                                params.height, scratch);
      for (Node& son : sons) {
        const int m = static_cast<int>(levels[k].size());
        if (m >= kMaxSons) {
          plan.parent_flags |= kFlagDeblendOverflow;
          return plan;
        }
        levels[k - 1][i].sons.push_back(m);
        levels[k].push_back(std::move(son));
      }
    }
  }

  // Prune from the top: a node with >= 2 significant branches splits into them.
  auto significant = [&](const Node& s) {
    return static_cast<float>(s.fdflux - s.thresh * static_cast<float>(s.pix.size())) > value0;
  };
  std::vector<const Node*> kept;
  for (int k = nthresh - 2; k >= 0; --k)
    for (Node& node : levels[k]) {
      int m = 0;
      for (int j : node.sons) {
        const Node& son = levels[k + 1][j];
        if (significant(son)) ++m;
        node.ok = node.ok && son.ok;
      }
      if (m > 1) {
        for (int j : node.sons) {
          const Node& son = levels[k + 1][j];
          if (son.ok && significant(son)) kept.push_back(&son);
        }
        node.ok = false;
      }
    }
  if (levels[0][0].ok) return plan;  // no split: the detection is unchanged

  plan.split = true;
  plan.in_core.assign(parent.size(), 0);
  const uint16_t inherited =
      parent.flags & (kFlagIsoIncomplete | kFlagAperIncomplete | kFlagExtractOverflow);
  for (const Node* node : kept) {
    for (int32_t pi : node->pix) {
      plan.cores.push_pixel(parent[pi]);
      plan.in_core[pi] = 1;
    }
    plan.cores.end_object(node->flags | kFlagBlended | inherited);
    const size_t c = plan.cores.size() - 1;
    const Shape s = compute_shape(plan.cores[c], node->thresh, params.pixel_thresholds);
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

Deblended deblend(const ObjectList& detections, const DeblendParams& params, int rand_offset,
                  int threads) {
  const size_t n = detections.size();
  std::vector<DeblendPlan> plans(n);
#pragma omp parallel num_threads(threads)
  {
    DeblendScratch scratch;
#pragma omp for schedule(dynamic, 4)
    for (size_t i = 0; i < n; ++i) plans[i] = plan_deblend(detections[i], params, scratch);
  }
  std::vector<size_t> first_draw(n + 1, 0);
  for (size_t i = 0; i < n; ++i) first_draw[i + 1] = first_draw[i] + plans[i].draws;
  std::vector<int32_t> stream(first_draw.back());
  GlibcRand rng;
  for (int i = 0; i < rand_offset; ++i) rng();
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
  for (const auto& p : parents) out.parent.insert(out.parent.end(), p.begin(), p.end());
  out.objects = ObjectList::concatenate(parts);
  return out;
}

}  // namespace celeris::extract
