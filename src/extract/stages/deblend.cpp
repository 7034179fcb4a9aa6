#include "extract/stages/deblend.hpp"
#include "extract/stages/deblend_levels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "celeris/error.hpp"
#include "extract/settings/threads.hpp"
#include "extract/sextractor/glibc_rand.hpp"
#include "extract/stages/deblend_profile.hpp"
#include "extract/stages/deblend_tree_builder.hpp"
#include "extract/stages/shape_finish.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract {

namespace {

// The C library's expf, as SExtractor's exp of a float argument.
struct HostExpf {
  float operator()(float v) const { return std::exp(v); }
};
constexpr HostExpf host_expf;

void plan_candidate(const ObjectView& parent, const DeblendParams& params, DeblendScratch& scratch,
                    DeblendPlan& plan);

// choose_children, each child's pixels counted in given[c + 1] as they are chosen (given: null,
// or n + 1 zeros).
void choose_and_count(const DeblendPlan& plan, const int32_t* random, const ObjectView& parent,
                      std::vector<float>& p, int32_t* chosen, size_t* given);
// place_children with scratch.given already holding each child's count at c + 1.
void place_counted(const DeblendPlan& plan, const int32_t* chosen, ObjectList& out,
                   int64_t pixel_base, size_t npix, size_t object_base,
                   DeblendFinishScratch& scratch);

// Moves the parent's pixel columns at [base, base + perm.size()) into the order `perm`.
template <class T, class A>
void permute(std::vector<T, A>& column, int64_t base, const std::vector<int32_t>& perm,
             std::vector<T>& tmp) {
  T* c = column.data() + base;
  tmp.resize(perm.size());
  for (size_t j = 0; j < perm.size(); ++j) tmp[j] = c[perm[j]];
  std::copy(tmp.begin(), tmp.end(), c);
}

// The view of pixels [base, base + n) of `list`'s columns.
ObjectView pixels_at(const ObjectList& list, int64_t base, size_t n) {
  ObjectView v;
  v.x = list.x.data() + base;
  v.y = list.y.data() + base;
  v.value = list.value.data() + base;
  v.cvalue = list.cvalue.data() + base;
  v.var = list.pixel_weights ? list.var.data() + base : nullptr;
  v.dthresh = list.pixel_weights ? list.dthresh.data() + base : nullptr;
  v.count = n;
  return v;
}

}  // namespace

int exponential_levels(float t0, float peak, int nthresh, float* thresh, double tolerance) {
  const float r = peak / t0;  // in float, as SExtractor
  thresh[0] = t0;
  // Relative distance of t0 q^k from t0 pow(r, k/n): pow is within an ulp (2.2e-16) of the
  // true power; the exponents k (1/n) and k/n in double differ by 2 ulps, worth ln(r) 2.2e-16;
  // each product adds half an ulp. `tolerance` (1e-14) bounds one of these terms with room.
  const double bound = tolerance * (std::fabs(std::log(static_cast<double>(r))) + nthresh + 2);
  const int by_pow = product_levels(t0, r, std::pow(r, 1.0 / nthresh), nthresh, bound, thresh);
  // The levels not sure by products (all of them without a positive finite ratio), by pow.
  if (by_pow > 0)
    for (int k = 1; k < nthresh; ++k)
      if (std::isnan(thresh[k]))
        thresh[k] = static_cast<float>(t0 * std::pow(r, static_cast<double>(k) / nthresh));
  return by_pow;
}

bool candidate_levels(const ObjectView& parent, const DeblendParams& params,
                      std::vector<float>& thresh, CandidateLevels& out) {
  const int nthresh = params.nthresh;
  float peak = -std::numeric_limits<float>::max();
  double rv = 0;
  for (const Pixel p : parent) {
    peak = std::max(peak, p.cvalue);
    rv += p.cvalue;
  }
  const float t0 = object_dthresh(parent, params.detect_thresh, params.pixel_thresholds);
  out.t0 = t0;
  out.value0 = static_cast<double>(static_cast<float>(rv)) * params.mincont;
  thresh.assign(nthresh, t0);
  if (peak > 0 && !params.photo) exponential_levels(t0, peak, nthresh, thresh.data());
  for (int k = 1; k < nthresh; ++k) {
    if (peak > 0 && params.photo)
      thresh[k] = static_cast<float>(t0 + (peak - t0) * static_cast<double>(k) / nthresh);
    if (std::isnan(thresh[k])) return false;
  }
  return true;
}

DeblendPlan plan_deblend(const ObjectView& parent, const DeblendParams& params) {
  DeblendScratch scratch;
  return plan_deblend(parent, params, scratch);
}

DeblendPlan plan_deblend(const ObjectView& parent, const DeblendParams& params,
                         DeblendScratch& scratch) {
  DeblendPlan plan;
  plan.parent_flags = parent.flags;
  if (may_split(parent, params, scratch)) plan_candidate(parent, params, scratch, plan);
  return plan;
}

namespace {

void reset_plan(const ObjectView& parent, DeblendPlan& plan) {
  plan.split = false;
  plan.parent_flags = parent.flags;
  plan.cores.clear();
  plan.child_shapes.clear();
  plan.children.clear();
  plan.in_core.clear();
  plan.core_index.clear();
  plan.draws = 0;
}

// A core's pixels (indexes in the detection's list, in chain order) into the plan, and the flags
// its child takes.
uint16_t push_core(const ObjectView& parent, const int32_t* chain, size_t length,
                   uint16_t node_flags, DeblendPlan& plan) {
  for (size_t q = 0; q < length; ++q) plan.in_core[chain[q]] = 1;
  plan.core_index.insert(plan.core_index.end(), chain, chain + length);
  const uint16_t inherited =
      parent.flags & (kFlagIsoIncomplete | kFlagAperIncomplete | kFlagExtractOverflow);
  return node_flags | kFlagBlended | inherited;
}

// A core whose child a tree builder made (BuiltCores::children).
void add_given_core(const ObjectView& parent, const int32_t* chain, size_t length,
                    uint16_t node_flags, const DeblendChild& child, DeblendPlan& plan) {
  const uint16_t flags = push_core(parent, chain, length, node_flags, plan);
  plan.cores.add(static_cast<int64_t>(plan.core_index.size()), flags, child.mx, child.my);
  plan.children.push_back(child);
}

// One core of a split plan: its pixels (indexes in the detection's list) in chain order, its
// level's threshold and its node's flags; its shape and the amplitude of its profile.
void add_core(const ObjectView& parent, const DeblendParams& params, float t0, const int32_t* chain,
              size_t length, float thresh, uint16_t node_flags, DeblendPlan& plan) {
  const uint16_t flags = push_core(parent, chain, length, node_flags, plan);
  const Shape s =
      compute_shape_at(parent, chain, length, thresh, params.pixel_thresholds, params.dgeo);
  plan.cores.add(static_cast<int64_t>(plan.core_index.size()), flags, s.mx, s.my);
  plan.child_shapes.push_back(s);
  plan.children.push_back(core_child(s, t0, host_expf));
}

// The plan from a tree's cores (built_cores', or a builder's: deblend_tree_builder.hpp).
void plan_from_cores(const ObjectView& parent, const DeblendParams& params,
                     const CandidateLevels& levels, const BuiltCores& cores, DeblendPlan& plan) {
  if (cores.count == 0) return;  // no split: the detection is unchanged
  plan.split = true;
  plan.in_core.assign(parent.size(), 0);
  plan.core_index.reserve(cores.pixels.size());
  plan.child_shapes.reserve(static_cast<size_t>(cores.count));
  plan.children.reserve(static_cast<size_t>(cores.count));
  // The builder's children and draws where it made them (the moments without a DGEO map).
  const bool given =
      cores.draws >= 0 && !params.dgeo && cores.children.size() == static_cast<size_t>(cores.count);
  size_t at = 0;
  for (int c = 0; c < cores.count; ++c) {
    const size_t length = static_cast<size_t>(cores.length[c]);
    const int32_t* chain = cores.pixels.data() + at;
    if (given)
      add_given_core(parent, chain, length, cores.flags[c], cores.children[c], plan);
    else
      add_core(parent, params, levels.t0, chain, length, cores.thresh[c], cores.flags[c], plan);
    at += length;
  }
  plan.draws = given ? static_cast<size_t>(cores.draws) : count_deblend_draws(parent, plan);
}

void plan_from_tree(const ObjectView& parent, const DeblendParams& params,
                    const CandidateLevels& levels, bool tree_built_here, DeblendScratch& scratch,
                    DeblendPlan& plan);

// plan_deblend for a detection that may_split, written over `plan` (whose storage is reused).
void plan_candidate(const ObjectView& parent, const DeblendParams& params, DeblendScratch& scratch,
                    DeblendPlan& plan) {
  reset_plan(parent, plan);
  CandidateLevels levels;
  if (!candidate_levels(parent, params, scratch.thresh, levels)) return;
  build_deblend_tree(parent, scratch.thresh, std::min(params.minarea, kDeblendMaxMinarea),
                     params.width, params.height, scratch.tree_scratch, scratch.tree);
  plan_from_tree(parent, params, levels, true, scratch, plan);
}

// The plan from the candidate's tree (scratch.tree) and levels (scratch.thresh); a tree built
// elsewhere (not by build_deblend_tree on scratch.tree_scratch) gets the scratch its cores'
// chains read first.
void plan_from_tree(const ObjectView& parent, const DeblendParams& params,
                    const CandidateLevels& levels, bool tree_built_here, DeblendScratch& scratch,
                    DeblendPlan& plan) {
  if (scratch.tree.overflow) {
    plan.parent_flags |= kFlagDeblendOverflow;
    return;
  }

  // The prune and the cores' chains, then the plan from them, as from a builder's.
  built_cores(parent, scratch.tree, params.nthresh, levels.value0,
              tree_built_here ? nullptr : &scratch.thresh, scratch.tree_scratch, scratch.cores,
              scratch.built);
  plan_from_cores(parent, params, levels, scratch.built, plan);
}

}  // namespace

DeblendPlan plan_from_built_cores(const ObjectView& parent, const DeblendParams& params, float t0,
                                  const BuiltCores& cores) {
  DeblendPlan plan;
  reset_plan(parent, plan);
  CandidateLevels levels;
  levels.t0 = t0;
  plan_from_cores(parent, params, levels, cores, plan);
  return plan;
}

size_t count_deblend_draws(const ObjectView& parent, const DeblendPlan& plan) {
  const int n = static_cast<int>(plan.children.size());
  const DeblendChild* c = plan.children.data();
  // With a negative or non-finite amplitude the sums may decrease: every pixel exactly.
  const bool shortcut = draws_shortcut(c, n);
  size_t draws = 0;
  for (size_t i = 0; i < parent.size(); ++i)
    if (!plan.in_core[i])
      draws += pixel_takes_draw(c, n, parent.x[i], parent.y[i], shortcut, host_expf);
  return draws;
}

void choose_children(const DeblendPlan& plan, const int32_t* random, const ObjectView& parent,
                     std::vector<float>& p, int32_t* chosen) {
  choose_and_count(plan, random, parent, p, chosen, nullptr);
}

namespace {

// The plan's count (the host's count_deblend_draws, or a builder's) set where the next
// detection's draws start: an assignment that took another number of them would shift them all,
// so either way is an internal error, and a draw past the plan's is never read.
void choose_and_count(const DeblendPlan& plan, const int32_t* random, const ObjectView& parent,
                      std::vector<float>& p, int32_t* chosen, size_t* given) {
  const size_t n = plan.children.size();  // (plan.cores.size(): a core each)
  const DeblendChild* children = plan.children.data();
  // The pixels a block at a time: each child's exponents over the block first, a loop the
  // compiler makes in vector registers (the same operations in each lane; the cores' pixels,
  // which need none, are computed too rather than break the loop), then each pixel's running
  // sums, nearest child and draw. p holds the block's exponents, child after child, then one
  // pixel's running sums.
  constexpr size_t kBlock = 64;
  p.resize(n * kBlock + n + 1);
  float* dist = p.data();
  float* sums = dist + n * kBlock;
  sums[0] = 0.0f;
  size_t draw = 0;
  for (size_t b0 = 0; b0 < parent.size(); b0 += kBlock) {
    const size_t nb = std::min(kBlock, parent.size() - b0);
    const int32_t* xs = parent.x + b0;
    const int32_t* ys = parent.y + b0;
    for (size_t c = 0; c < n; ++c) {
      const DeblendChild ch = children[c];
      float* d = dist + c * kBlock;
      for (size_t i = 0; i < nb; ++i) d[i] = deblend_profile_dist(ch, xs[i], ys[i]);
    }
    for (size_t j = 0; j < nb; ++j) {
      const size_t i = b0 + j;
      if (plan.in_core[i]) {
        chosen[i] = -1;
        continue;
      }
      // The children's running sums of Gaussian profile weights and the nearest child, as the
      // GPU's profile_total makes them, from the block's exponents.
      int iclst = 0;
      profile_sums(
          children, static_cast<int>(n), [&](int k) { return dist[k * kBlock + j]; }, host_expf,
          iclst, sums);
      size_t c = static_cast<size_t>(iclst);
      if (takes_draw(sums[n])) {
        if (draw == plan.draws)  // (the next detection's draws: never read them)
          throw Error(
              "internal: a deblending's pixel assignment takes more rand() draws than its "
              "plan counted (" +
              std::to_string(plan.draws) + ")");
        const float drand = draw_threshold(sums[n], random[draw++], GlibcRand::kRandMax);
        size_t k = 1;
        while (k <= n && sums[k] < drand) ++k;
        c = k <= n ? k - 1 : static_cast<size_t>(iclst);
      }
      chosen[i] = static_cast<int32_t>(c);
      if (given) ++given[c + 1];
    }
  }
  if (draw != plan.draws)
    throw Error("internal: a deblending's pixel assignment took " + std::to_string(draw) +
                " rand() draws where its plan counted " + std::to_string(plan.draws));
}

}  // namespace

void finish_deblend(const DeblendPlan& plan, const int32_t* random, ObjectList& out,
                    int64_t pixel_base, size_t npix, size_t object_base,
                    DeblendFinishScratch& scratch) {
  scratch.chosen.resize(npix);
  scratch.given.assign(plan.cores.size() + 1, 0);
  choose_and_count(plan, random, pixels_at(out, pixel_base, npix), scratch.p, scratch.chosen.data(),
                   scratch.given.data());
  place_counted(plan, scratch.chosen.data(), out, pixel_base, npix, object_base, scratch);
}

void place_children(const DeblendPlan& plan, const int32_t* chosen, ObjectList& out,
                    int64_t pixel_base, size_t npix, size_t object_base,
                    DeblendFinishScratch& scratch) {
  const size_t n = plan.cores.size();
  int32_t most = -1;
  for (size_t i = 0; i < npix; ++i) most = std::max(most, chosen[i]);
  if (most >= static_cast<int32_t>(n))
    throw Error("internal: deblending gave a pixel to child " + std::to_string(most) + " of " +
                std::to_string(n));
  std::vector<size_t>& given = scratch.given;
  given.assign(n + 1, 0);
  for (size_t i = 0; i < npix; ++i)
    if (chosen[i] >= 0) ++given[static_cast<size_t>(chosen[i]) + 1];
  place_counted(plan, chosen, out, pixel_base, npix, object_base, scratch);
}

namespace {

void place_counted(const DeblendPlan& plan, const int32_t* chosen, ObjectList& out,
                   int64_t pixel_base, size_t npix, size_t object_base,
                   DeblendFinishScratch& scratch) {
  // Each pixel outside the cores goes to one child; a child's pixels are its core, then those
  // it was given, in the parent's order (a stable bucket sort by child: scratch.given holds
  // each child's count at c + 1).
  const size_t n = plan.cores.size();
  std::vector<size_t>& given = scratch.given;
  for (size_t c = 0; c < n; ++c) given[c + 1] += given[c];
  std::vector<int32_t>& order = scratch.order;
  order.resize(given[n]);
  for (size_t i = 0; i < npix; ++i)
    if (chosen[i] >= 0) order[given[chosen[i]]++] = static_cast<int32_t>(i);
  // The children's pixels as indices into the parent's, then every column moved at once.
  std::vector<int32_t>& perm = scratch.perm;
  perm.clear();
  size_t next = 0;
  int64_t end = pixel_base;
  for (size_t c = 0; c < n; ++c) {
    const int64_t core0 = plan.cores.offset[c], core1 = plan.cores.offset[c + 1];
    perm.insert(perm.end(), plan.core_index.begin() + core0, plan.core_index.begin() + core1);
    for (; next < given[c]; ++next) perm.push_back(order[next]);
    end = pixel_base + static_cast<int64_t>(perm.size());
    const size_t o = object_base + c;
    out.offset[o + 1] = end;
    out.flags[o] = plan.cores.flags[c];
    out.fixed_centre[o] = 1;
    out.cx[o] = plan.cores.cx[c];
    out.cy[o] = plan.cores.cy[c];
  }
  permute(out.x, pixel_base, perm, scratch.tmp_int);
  permute(out.y, pixel_base, perm, scratch.tmp_int);
  permute(out.value, pixel_base, perm, scratch.tmp_float);
  permute(out.cvalue, pixel_base, perm, scratch.tmp_float);
  if (out.pixel_weights) {
    permute(out.var, pixel_base, perm, scratch.tmp_float);
    permute(out.dthresh, pixel_base, perm, scratch.tmp_float);
  }
}

}  // namespace

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The order in which detections [begin, end) are planned. Those that could hold up the end of the
// stage if handed out late (more than 1/16 of a thread's share of the pixels) go first, largest
// first; the others follow in detection order, whose pixels and per-object entries lie one after
// the other in memory (handing every detection out by size cost a cache miss per column and per
// detection, and a serial sort of them all).
struct PlanOrder {
  std::vector<uint32_t> order;
  size_t big = 0;  // order[0 .. big): the large ones
};

PlanOrder plan_order(const ObjectList& detections, size_t begin, size_t end, int threads) {
  const size_t pixels = static_cast<size_t>(detections.offset[end] - detections.offset[begin]);
  const size_t share = pixels / (16 * static_cast<size_t>(std::max(threads, 1)));
  PlanOrder p;
  p.order.reserve(end - begin);
  for (size_t i = begin; i < end; ++i)
    if (detections.count(i) > share) p.order.push_back(static_cast<uint32_t>(i));
  std::stable_sort(p.order.begin(), p.order.end(), [&](uint32_t a, uint32_t b) {
    return detections.count(a) > detections.count(b);
  });
  p.big = p.order.size();
  for (size_t i = begin; i < end; ++i)
    if (detections.count(i) <= share) p.order.push_back(static_cast<uint32_t>(i));
  return p;
}

}  // namespace

namespace {

// may_split's questions before the peaks: DEBLEND_NTHRESH, pixels, a pixel-stack overflow.
bool may_split_at_all(const ObjectView& parent, const DeblendParams& params) {
  if (params.nthresh < 2 || parent.empty()) return false;
  // scan.c's sortit: a detection that lost pixels to a pixel-stack overflow is not deblended.
  return !(parent.flags & kFlagExtractOverflow);
}

}  // namespace

bool may_split(const ObjectView& parent, const DeblendParams& params, DeblendScratch& scratch) {
  // One peak: no level has two nodes, nothing splits (deblend_tree.hpp, count_peaks).
  return may_split_at_all(parent, params) &&
         (scratch.every_tree || count_peaks(parent, 2, scratch.tree_scratch) >= 2);
}

bool may_split(const ObjectView& parent, const DeblendParams& params, DeblendScratch& scratch,
               int peaks) {
  return may_split_at_all(parent, params) && (scratch.every_tree || peaks >= 2);
}

struct DeblendStage::State {
  ObjectList detections;  // per-object columns and offsets (the pixel columns are `out`'s)
  std::vector<uint16_t> parent_flags;
  std::vector<size_t> first_object, first_draw;
  DeblendPlanPool own;
  DeblendPlanPool* pool = nullptr;
  std::vector<const DeblendPlan*> plans;  // in the pool; null: the detection does not split
  // Per pool thread: its plans of this stage so far (next_plan's `used`), kept from one range
  // of detections to the next.
  std::vector<size_t> used;
  size_t planned = 0;  // detections [0, planned) planned, their draws taken
  int64_t rand_offset = 0;
  std::vector<int32_t> stream;
  // The pixel assignments made by params.children: per detection its choices' first entry in
  // `chosen` (-1: made in finish(), on the host).
  std::vector<int32_t> chosen;
  std::vector<int64_t> chosen_at;
  Deblended out;

  // The next plan of `mine`'s storage (mine.plans[0 .. used) hold this stage's split plans).
  static DeblendPlan& next_plan(DeblendPlanPool::PerThread& mine, size_t used) {
    if (used == mine.plans.size()) mine.plans.emplace_back();
    return mine.plans[used];
  }
  // Detection i's plan, just made in next_plan(mine, used): its flags, objects and draws, and
  // the plan itself when it splits.
  void keep_plan(size_t i, DeblendPlanPool::PerThread& mine, size_t& used) {
    const DeblendPlan& plan = mine.plans[used];
    parent_flags[i] = plan.parent_flags;
    first_object[i + 1] = plan.split ? plan.cores.size() : 1;
    first_draw[i + 1] = plan.draws;
    if (plan.split) plans[i] = &plan, ++used;
  }
  // Detection i as planned: its per-object entries, its pixels in `out`'s columns (which hold
  // them from construction; finish() writes a detection's children over its own pixels only,
  // so a detection not yet finished reads as detected).
  ObjectView parent(size_t i) const { return detections.view_over(out.objects, i); }
  // The pool's storage and `used` for a team of `threads`.
  void reserve_threads(int threads) {
    pool->reserve(threads);
    if (used.size() < static_cast<size_t>(threads)) used.resize(static_cast<size_t>(threads), 0);
  }
  size_t& used_by(int thread) { return used[static_cast<size_t>(thread)]; }

  // A range of detections whose plans are launched (launch_range) and not yet collected
  // (collect_range): with builders, its candidates, their levels and their trees under way.
  enum Route : uint8_t { kNoSplit, kHost, kBuilder };
  struct LaunchedPlans {
    size_t begin = 0, end = 0;
    double launch_seconds = 0;
    std::vector<uint32_t> cand;       // the candidates (detections that may split)
    std::vector<size_t> cand_pixels;  // candidate j's pixels start at cand_pixels[j]
    std::vector<size_t> first;        // batch b: candidates [first[b], first[b + 1])
    std::vector<std::unique_ptr<DeblendTreeBuilder>> builders;  // one per batch (null: none)
    std::vector<uint8_t> route;                                 // per candidate: a Route
    std::vector<float> thresh;                                  // per candidate: its levels
    std::vector<CandidateLevels> levels;
    // With a prepared builder (DeblendParams::prepared; builders is then empty): per candidate
    // its slot there.
    DeblendTreeBuilder* prepared = nullptr;
    std::vector<int32_t> slot;
  };
  std::deque<LaunchedPlans> launched_ranges;  // in detection order
  bool prepared_reported = false;             // params.prepared's steps reported
  size_t launched = 0;                        // detections [0, launched) launched
  void launch_range(size_t end, const DeblendParams& params, int threads,
                    std::vector<std::pair<std::string, double>>* seconds);
  void collect_range(const DeblendParams& params, int threads,
                     std::vector<std::pair<std::string, double>>* seconds);
  void launch_with_builder(LaunchedPlans& r, const DeblendParams& params, int threads,
                           std::vector<std::pair<std::string, double>>* seconds);
  void collect_with_builder(LaunchedPlans& r, const DeblendParams& params, int threads,
                            std::vector<std::pair<std::string, double>>* seconds);
  // params.prepared where it was prepared for these detections with these parameters, else null.
  DeblendTreeBuilder* prepared_for(const DeblendParams& params) const;
  // launch_with_builder's with a prepared builder: each candidate to its slot there, or to the
  // host where it has none.
  void take_prepared(LaunchedPlans& r) const;
  // collect_with_builder's step 4 with a prepared builder (its first call waits for the trees).
  void plan_from_prepared(LaunchedPlans& r, const DeblendParams& params, int threads,
                          std::vector<std::pair<std::string, double>>* seconds);
  // The split detections' pixel assignments by `chooser`, once the draws are taken.
  void choose_elsewhere(const DeblendChildrenChooser& chooser, int threads,
                        std::vector<std::pair<std::string, double>>* seconds) {
    DeblendChildrenJob job;
    job.random = stream.data();
    job.draws = stream.size();
    job.threads = threads;
    job.chosen_begin.push_back(0);
    std::vector<size_t> which;
    for (size_t i = 0; i < plans.size(); ++i)
      if (plans[i]) {
        which.push_back(i);
        job.parents.push_back(parent(i));
        job.plans.push_back(plans[i]);
        job.first_draw.push_back(first_draw[i]);
        job.chosen_begin.push_back(job.chosen_begin.back() + detections.count(i));
      }
    chosen_at.assign(plans.size(), -1);
    if (which.empty()) return;
    std::vector<uint8_t> done;
    chooser(job, chosen, done, seconds);
    const bool any = std::find(done.begin(), done.end(), 1) != done.end();
    if (done.size() != which.size() || (any && chosen.size() < job.chosen_begin.back()))
      throw Error("internal: the deblending's pixel assignment gave " +
                  std::to_string(done.size()) + " answers for " + std::to_string(which.size()) +
                  " detections");
    for (size_t j = 0; j < which.size(); ++j)
      if (done[j]) chosen_at[which[j]] = static_cast<int64_t>(job.chosen_begin[j]);
  }
};

// The plans of detections [begin, end) with the trees of most candidates from builders that
// params.trees makes (deblend_tree_builder.hpp), in two halves: launch_with_builder lists the
// range's candidates, takes their levels and launches the builders' trees; collect_with_builder
// plans the other candidates on the host meanwhile, then each from its builder's tree. Within a
// range the candidates go in two batches, each to a builder of its own: the second batch's
// levels are taken while the first's trees are built, and the first's plans made while the
// second's are. Between ranges, a caller that launches the next range before collecting this one
// has the next range's trees built while this one's plans are made.
void DeblendStage::State::launch_with_builder(
    LaunchedPlans& r, const DeblendParams& params, int threads,
    std::vector<std::pair<std::string, double>>* seconds) {
  const auto t_start = Clock::now();
  const ObjectList& det = detections;
  const size_t begin = r.begin, end = r.end;
  auto mine = [&]() -> DeblendPlanPool::PerThread& {
    return pool->at(static_cast<size_t>(omp_get_thread_num()));
  };
  // 1. The detections that may split (most of a crowded field's are single stars).
  std::vector<uint8_t> candidate(end - begin);
#pragma omp parallel num_threads(threads)
  {
    DeblendScratch& scratch = mine().scratch;
#pragma omp for schedule(dynamic, 256)
    for (size_t i = begin; i < end; ++i) {
      const ObjectView p = parent(i);
      parent_flags[i] = p.flags;
      first_object[i + 1] = 1;
      candidate[i - begin] = params.peaks ? may_split(p, params, scratch, (*params.peaks)[i])
                                          : may_split(p, params, scratch);
    }
  }
  std::vector<uint32_t>& cand = r.cand;
  std::vector<size_t>& cand_pixels = r.cand_pixels;  // candidate j's pixels start here
  cand.clear();
  cand_pixels.assign(1, 0);
  for (size_t i = begin; i < end; ++i)
    if (candidate[i - begin]) {
      cand.push_back(static_cast<uint32_t>(i));
      cand_pixels.push_back(cand_pixels.back() + det.count(i));
    }
  const size_t m = cand.size();
  const int nthresh = params.nthresh;
  r.prepared = prepared_for(params);
  if (r.prepared) {
    take_prepared(r);
    if (seconds) seconds->emplace_back("deblend plans: levels, trees launched", since(t_start));
    return;
  }
  const size_t batches = m >= 2 ? 2 : 1;
  r.first.resize(batches + 1);  // batch b: candidates [first[b], first[b + 1])
  for (size_t b = 0; b <= batches; ++b) r.first[b] = m * b / batches;
  r.builders.clear();
  r.builders.resize(batches);
  // Few candidates: every tree on the host threads, whose plans then take less than a
  // builder's round trip (DeblendParams::builder_min_candidates); a range is judged by the
  // candidates the whole frame would have at its rate.
  const size_t n = detections.size();
  const bool build_apart = m * n >= params.builder_min_candidates * (end - begin);
  for (size_t b = 0; b < batches && build_apart; ++b) {
    r.builders[b] = params.trees();
    DeblendTreeBuilder* builder = r.builders[b].get();
    if (builder && params.builder_cores && params.builder_children && !params.dgeo)
      builder->ask_children(params.pixel_thresholds);
    if (builder)
      builder->begin(r.first[b + 1] - r.first[b],
                     cand_pixels[r.first[b + 1]] - cand_pixels[r.first[b]], nthresh,
                     std::min(params.minarea, kDeblendMaxMinarea), params.width, params.height);
  }
  // Since the start: the candidates listed and the builders made (a process's first frame
  // makes their streams and page-locked buffers here, and waits for the glibc lists' check,
  // ask_children's, unless glibc_float_math_tables.hpp's check_exception_lists_ahead began it).
  if (seconds && build_apart) seconds->emplace_back("deblend plans: builders made", since(t_start));

  // 2. Each candidate's levels on the host (their pow is the C library's); a builder takes
  // those whose union-find sums are exact in any order (as build_deblend_tree's check) and
  // whose size it accepts. Each batch's trees start as soon as its levels are taken.
  r.route.assign(m, kNoSplit);
  r.thresh.resize(m * static_cast<size_t>(nthresh));
  r.levels.assign(m, CandidateLevels{});
  for (size_t b = 0; b < batches; ++b) {
    DeblendTreeBuilder* builder = r.builders[b].get();
    const size_t first = r.first[b], last = r.first[b + 1];
#pragma omp parallel num_threads(threads)
    {
      DeblendScratch& scratch = mine().scratch;
#pragma omp for schedule(dynamic, 16)
      for (size_t j = first; j < last; ++j) {
        const ObjectView p = parent(cand[j]);
        if (!candidate_levels(p, params, scratch.thresh, r.levels[j])) continue;
        float* t = r.thresh.data() + j * static_cast<size_t>(nthresh);
        std::copy(scratch.thresh.begin(), scratch.thresh.end(), t);
        OrderFreeSum sum;
        const TreeBox box = tree_box_and_sums(p, t, sum);
        r.route[j] = kHost;
        if (builder && !scratch.tree_scratch.chain_sums && sum.exact() &&
            builder->takes(p.size(), box.cells())) {
          r.route[j] = kBuilder;
          builder->add(j - first, cand_pixels[j] - cand_pixels[first], p, t, r.levels[j].value0,
                       box, sum);
        }
      }
    }
    if (builder) builder->launch();
  }
  if (seconds) seconds->emplace_back("deblend plans: levels, trees launched", since(t_start));
}

void DeblendStage::State::collect_with_builder(
    LaunchedPlans& r, const DeblendParams& params, int threads,
    std::vector<std::pair<std::string, double>>* seconds) {
  const ObjectList& det = detections;
  const std::vector<uint32_t>& cand = r.cand;
  const size_t m = cand.size();
  const int nthresh = params.nthresh;
  auto mine = [&]() -> DeblendPlanPool::PerThread& {
    return pool->at(static_cast<size_t>(omp_get_thread_num()));
  };
  // 3. Meanwhile, the other candidates' plans on the host, the largest first.
  const auto t_host = Clock::now();
  std::vector<uint32_t> on_host;
  for (size_t j = 0; j < m; ++j)
    if (r.route[j] == kHost) on_host.push_back(static_cast<uint32_t>(j));
  std::stable_sort(on_host.begin(), on_host.end(),
                   [&](uint32_t a, uint32_t b) { return det.count(cand[a]) > det.count(cand[b]); });
#pragma omp parallel num_threads(threads)
  {
    DeblendPlanPool::PerThread& me = mine();
    size_t& u = used_by(omp_get_thread_num());
#pragma omp for schedule(dynamic, 1)
    for (size_t k = 0; k < on_host.size(); ++k) {
      const size_t i = cand[on_host[k]];
      plan_candidate(parent(i), params, me.scratch, next_plan(me, u));
      keep_plan(i, me, u);
    }
  }
  if (seconds) seconds->emplace_back("deblend plans: the host's trees", since(t_host));

  // 4. The plans from each batch's trees (a tree its builder could not make, on the host).
  double waited = 0, planned_from_trees = 0;
  std::vector<std::pair<std::string, double>> reports;
  if (r.prepared) {
    plan_from_prepared(r, params, threads, seconds);
    return;
  }
  for (size_t b = 0; b < r.builders.size(); ++b) {
    DeblendTreeBuilder* builder = r.builders[b].get();
    if (!builder) continue;
    const size_t first = r.first[b], last = r.first[b + 1];
    const auto t_wait = Clock::now();
    builder->wait();
    waited += since(t_wait);
    std::vector<std::pair<std::string, double>> steps;
    builder->report(steps);
    for (auto& [name, sec] : steps)
      reports.emplace_back("    batch " + std::to_string(b + 1) + ", " + name, sec);
    const auto t_plans = Clock::now();
#pragma omp parallel num_threads(threads)
    {
      DeblendPlanPool::PerThread& me = mine();
      size_t& u = used_by(omp_get_thread_num());
#pragma omp for schedule(dynamic, 8)
      for (size_t j = first; j < last; ++j) {
        if (r.route[j] != kBuilder) continue;
        const size_t i = cand[j];
        const ObjectView p = parent(i);
        DeblendPlan& plan = next_plan(me, u);
        if (params.builder_cores && builder->cores(j - first, me.scratch.built)) {
          reset_plan(p, plan);
          plan_from_cores(p, params, r.levels[j], me.scratch.built, plan);
        } else if (builder->tree(j - first, me.scratch.tree)) {
          reset_plan(p, plan);
          const float* t = r.thresh.data() + j * static_cast<size_t>(nthresh);
          me.scratch.thresh.assign(t, t + nthresh);
          plan_from_tree(p, params, r.levels[j], false, me.scratch, plan);
        } else {
          plan_candidate(p, params, me.scratch, plan);
        }
        keep_plan(i, me, u);
      }
    }
    planned_from_trees += since(t_plans);
  }
  r.builders.clear();
  if (seconds) {
    seconds->emplace_back("deblend plans: wait for the builders' trees", waited);
    seconds->insert(seconds->end(), reports.begin(), reports.end());
    seconds->emplace_back("deblend plans: from the builders' trees", planned_from_trees);
  }
}

DeblendTreeBuilder* DeblendStage::State::prepared_for(const DeblendParams& params) const {
  DeblendTreeBuilder* b = params.prepared;
  const PreparedTrees* p = b ? b->prepared() : nullptr;
  // Levels exponential from the detection threshold (no DETECT_TYPE PHOTO, no pixel
  // thresholds), with the stage's own parameters and detections.
  if (!p || params.photo || params.pixel_thresholds || p->detections != detections.size() ||
      p->nthresh != params.nthresh || p->mincont != params.mincont ||
      p->minarea != std::min(params.minarea, kDeblendMaxMinarea) || p->t0 != params.detect_thresh ||
      p->width != params.width || p->height != params.height)
    return nullptr;
  return b;
}

void DeblendStage::State::take_prepared(LaunchedPlans& r) const {
  const size_t m = r.cand.size();
  // The tests' chain sums: every tree on the host, as for a builder given its candidates.
  const bool chain_sums = pool->at(0).scratch.tree_scratch.chain_sums;
  r.builders.clear();
  r.first.assign({0, m});
  r.route.assign(m, kHost);
  r.slot.assign(m, -1);
  for (size_t j = 0; j < m; ++j) {
    const int32_t slot = r.prepared->slot(r.cand[j]);
    if (slot < 0 || chain_sums) continue;
    r.route[j] = kBuilder;
    r.slot[j] = slot;
  }
}

void DeblendStage::State::plan_from_prepared(LaunchedPlans& r, const DeblendParams& params,
                                             int threads,
                                             std::vector<std::pair<std::string, double>>* seconds) {
  DeblendTreeBuilder* builder = r.prepared;
  const auto t_wait = Clock::now();
  builder->wait();
  const double waited = since(t_wait);
  std::vector<std::pair<std::string, double>> reports;
  if (!prepared_reported) builder->report(reports);
  prepared_reported = true;
  const auto t_plans = Clock::now();
  const size_t m = r.cand.size();
#pragma omp parallel num_threads(threads)
  {
    DeblendPlanPool::PerThread& me = pool->at(static_cast<size_t>(omp_get_thread_num()));
    size_t& u = used_by(omp_get_thread_num());
#pragma omp for schedule(dynamic, 8)
    for (size_t j = 0; j < m; ++j) {
      if (r.route[j] != kBuilder) continue;
      const size_t i = r.cand[j];
      const size_t slot = static_cast<size_t>(r.slot[j]);
      const ObjectView p = parent(i);
      DeblendPlan& plan = next_plan(me, u);
      DeblendScratch& sc = me.scratch;
      CandidateLevels levels;
      levels.t0 = params.detect_thresh;
      levels.value0 = builder->prepared_levels(slot, sc.thresh);
      if (params.builder_cores && builder->cores(slot, sc.built)) {
        // Its children and draws where the stage asks for them (a prepared builder makes them
        // whenever it can).
        if (!params.builder_children) sc.built.draws = -1;
        reset_plan(p, plan);
        plan_from_cores(p, params, levels, sc.built, plan);
      } else if (builder->tree(slot, sc.tree)) {
        sc.tree.nodes[0].flags = p.flags;  // the root is the detection itself
        reset_plan(p, plan);
        plan_from_tree(p, params, levels, false, sc, plan);
      } else {
        plan_candidate(p, params, sc, plan);
      }
      keep_plan(i, me, u);
    }
  }
  if (seconds) {
    seconds->emplace_back("deblend plans: wait for the builders' trees", waited);
    for (auto& [name, sec] : reports) seconds->emplace_back("    prepared, " + name, sec);
    seconds->emplace_back("deblend plans: from the builders' trees", since(t_plans));
  }
}

DeblendStage::DeblendStage(ObjectList&& detections, const DeblendParams& params,
                           int64_t rand_offset, int threads,
                           std::vector<std::pair<std::string, double>>* seconds,
                           DeblendPlanPool* pool, bool in_ranges)
    : params_(params), seconds_(seconds), state_(std::make_unique<State>()) {
  State& st = *state_;
  st.detections = std::move(detections);
  const size_t n = st.detections.size();
  if (params.peaks && params.peaks->size() != n)
    throw Error("internal: deblend() given " + std::to_string(params.peaks->size()) +
                " peak counts for " + std::to_string(n) + " detections");
  if (in_ranges && params.children)
    throw Error("internal: a deblending planned in ranges cannot choose its children elsewhere");
  // Per detection: its flags after planning, the objects it becomes, its draws; the plan itself
  // is kept only for those that split.
  st.parent_flags.resize(n);
  st.first_object.assign(n + 1, 0);
  st.first_draw.assign(n + 1, 0);
  st.plans.assign(n, nullptr);
  st.pool = pool ? pool : &st.own;
  st.rand_offset = std::max<int64_t>(rand_offset, 0);
  // The detections' pixel columns become the objects' now: the plans read them there
  // (State::parent), and the children are written over them.
  Deblended& out = st.out;
  ObjectList& objects = out.objects;
  objects.x = std::move(st.detections.x);
  objects.y = std::move(st.detections.y);
  objects.value = std::move(st.detections.value);
  objects.cvalue = std::move(st.detections.cvalue);
  objects.var = std::move(st.detections.var);
  objects.dthresh = std::move(st.detections.dthresh);
  objects.pixel_weights = st.detections.pixel_weights;
  objects.offset.assign(1, 0);
  if (in_ranges) return;
  plan(n, threads);
  if (params.children) {
    const auto t = Clock::now();
    st.choose_elsewhere(params.children, threads, seconds);
    if (seconds) seconds->emplace_back("deblend: children chosen away from the host", since(t));
  }
}

void DeblendStage::launch_plans(size_t end, int threads) {
  State& st = *state_;
  if (end < st.launched || end > detections())
    throw Error("internal: DeblendStage::launch_plans to detection " + std::to_string(end) +
                " after " + std::to_string(st.launched));
  if (end > st.launched) st.launch_range(end, params_, threads, seconds_);
}

void DeblendStage::plan(size_t end, int threads) {
  State& st = *state_;
  if (end < st.planned || end > detections())
    throw Error("internal: DeblendStage::plan to detection " + std::to_string(end) + " after " +
                std::to_string(st.planned));
  if (end > st.launched) st.launch_range(end, params_, threads, seconds_);
  while (st.planned < end) {
    if (st.launched_ranges.front().end > end)
      throw Error("internal: DeblendStage::plan to detection " + std::to_string(end) +
                  ", inside the range launched to " +
                  std::to_string(st.launched_ranges.front().end));
    st.collect_range(params_, threads, seconds_);
  }
}

void DeblendStage::State::launch_range(size_t end, const DeblendParams& params, int threads,
                                       std::vector<std::pair<std::string, double>>* seconds) {
  const auto t = Clock::now();
  reserve_threads(threads);
  LaunchedPlans& r = launched_ranges.emplace_back();
  r.begin = launched;
  r.end = end;
  if (params.trees) launch_with_builder(r, params, threads, seconds);
  launched = end;
  r.launch_seconds = since(t);
}

// The first launched range's plans, then its draws and its objects' columns.
void DeblendStage::State::collect_range(const DeblendParams& params, int threads,
                                        std::vector<std::pair<std::string, double>>* seconds) {
  const auto t_start = Clock::now();
  LaunchedPlans& r = launched_ranges.front();
  const size_t begin = r.begin, end = r.end;
  reserve_threads(threads);
  if (params.trees) {
    collect_with_builder(r, params, threads, seconds);
  } else {
    const PlanOrder order = plan_order(detections, begin, end, threads);
#pragma omp parallel num_threads(threads)
    {
      DeblendPlanPool::PerThread& mine = pool->at(static_cast<size_t>(omp_get_thread_num()));
      DeblendScratch& scratch = mine.scratch;
      size_t& u = used_by(omp_get_thread_num());
      auto plan_one = [&](size_t i) {
        const ObjectView p = parent(i);
        parent_flags[i] = p.flags;
        first_object[i + 1] = 1;
        // Most detections of a crowded field are single stars: answered without a plan.
        if (!(params.peaks ? may_split(p, params, scratch, (*params.peaks)[i])
                           : may_split(p, params, scratch)))
          return;
        plan_candidate(p, params, scratch, next_plan(mine, u));
        keep_plan(i, mine, u);
      };
#pragma omp for schedule(dynamic, 1) nowait
      for (size_t k = 0; k < order.big; ++k) plan_one(order.order[k]);
#pragma omp for schedule(dynamic, 8)
      for (size_t k = order.big; k < order.order.size(); ++k) plan_one(order.order[k]);
    }
  }
  for (size_t i = begin; i < end; ++i) {
    first_object[i + 1] += first_object[i];
    first_draw[i + 1] += first_draw[i];
  }
  planned = end;
  // The launch's own time and this collection's: the work, not the wall time between them.
  const double plans_seconds = r.launch_seconds + since(t_start);
  launched_ranges.pop_front();
  if (seconds) seconds->emplace_back("deblend: plans", plans_seconds);
  // The range's draws, the stream's numbers after those of the detections before it (and the
  // first rand_offset, jumped over: glibc_rand.hpp).
  const auto t_draws = Clock::now();
  const size_t drawn = stream.size();
  stream.resize(first_draw[end]);
  glibc_rand_stream(static_cast<uint64_t>(rand_offset) + drawn, stream.data() + drawn,
                    stream.size() - drawn, threads);
  if (seconds) seconds->emplace_back("deblend: draws", since(t_draws));
  // The per-object columns of the objects so far (finish() fills them).
  out.draws = static_cast<int64_t>(first_draw[end]);
  ObjectList& objects = out.objects;
  const size_t nobj = first_object[end];
  objects.offset.resize(nobj + 1);
  objects.flags.resize(nobj);
  objects.fixed_centre.resize(nobj);
  objects.cx.resize(nobj);
  objects.cy.resize(nobj);
  out.parent.resize(nobj);
}

DeblendStage::~DeblendStage() = default;

size_t DeblendStage::detections() const {
  return state_->first_object.size() - 1;
}

size_t DeblendStage::first_object(size_t detection) const {
  return state_->first_object[detection];
}

Deblended& DeblendStage::result() {
  return state_->out;
}

size_t DeblendStage::planned() const {
  return state_->planned;
}

void DeblendStage::finish(size_t begin, size_t end, int threads) {
  State& st = *state_;
  if (begin > end || end > st.planned)
    throw Error("internal: DeblendStage::finish of detections " + std::to_string(begin) + " .. " +
                std::to_string(end) + " with " + std::to_string(st.planned) + " planned");
  const ObjectList& detections = st.detections;
  Deblended& out = st.out;
  ObjectList& objects = out.objects;
  st.pool->reserve(threads);
#pragma omp parallel num_threads(threads)
  {
    DeblendFinishScratch& scratch = st.pool->at(static_cast<size_t>(omp_get_thread_num())).finish;
#pragma omp for schedule(dynamic, 64)
    for (size_t i = begin; i < end; ++i) {
      const size_t o = st.first_object[i];
      for (size_t k = o; k < st.first_object[i + 1]; ++k) out.parent[k] = static_cast<int64_t>(i);
      if (st.plans[i]) {
        if (!st.chosen_at.empty() && st.chosen_at[i] >= 0)
          place_children(*st.plans[i], st.chosen.data() + st.chosen_at[i], objects,
                         detections.offset[i], detections.count(i), o, scratch);
        else
          finish_deblend(*st.plans[i], st.stream.data() + st.first_draw[i], objects,
                         detections.offset[i], detections.count(i), o, scratch);
        continue;
      }
      objects.offset[o + 1] = detections.offset[i + 1];
      objects.flags[o] = st.parent_flags[i];
      objects.fixed_centre[o] = detections.fixed_centre[i];
      objects.cx[o] = detections.cx[i];
      objects.cy[o] = detections.cy[i];
    }
  }
}

Deblended DeblendStage::take() {
  return std::move(state_->out);
}

Deblended deblend(ObjectList&& detections, const DeblendParams& params, int64_t rand_offset,
                  int threads, std::vector<std::pair<std::string, double>>* seconds,
                  DeblendPlanPool* pool) {
  DeblendStage stage(std::move(detections), params, rand_offset, threads, seconds, pool);
  const auto t = Clock::now();
  stage.finish(0, stage.detections(), threads);
  if (seconds) seconds->emplace_back("deblend: finish", since(t));
  return stage.take();
}

}  // namespace celeris::extract
