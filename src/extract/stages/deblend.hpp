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
// (deblend_tree.hpp), or elsewhere by a tree builder (DeblendParams::trees: the GPU's); only
// the cores' pixel chains are scanned.
//
// A detection's children hold exactly its pixels, so the stage writes them over the
// detection's own range of the pixel columns, which it takes over from the detections: the
// pixels of detections that do not split (most of them) are never copied.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "celeris/extract.hpp"
#include "extract/objects.hpp"
#include "extract/stages/deblend_profile.hpp"
#include "extract/stages/deblend_tree.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {

class DeblendTreeBuilder;
struct DeblendChildrenJob;
// Makes a DeblendChildrenJob's choices (below): fills `chosen` and `done`, and may add its steps'
// seconds.
using DeblendChildrenChooser = std::function<void(
    const DeblendChildrenJob& job, std::vector<int32_t>& chosen, std::vector<uint8_t>& done,
    std::vector<std::pair<std::string, double>>* seconds)>;

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
  // A differential-geometry map (dgeo_map.hpp): the cores' barycentres and moments, hence the
  // pixels' assignment to children, take it (refine.c preanalyse).
  const DgeoMap* dgeo = nullptr;
  // Each detection's peaks, min(2, count_peaks), when the GPU front end counted them
  // (gpu/peak_kernels.hpp; FrontEnd::peaks): deblend() then asks may_split with them instead of
  // counting on the host. Null: counted on the host.
  const std::vector<uint8_t>* peaks = nullptr;
  // Makes builders of the candidates' threshold trees away from the planning threads (the GPU:
  // gpu/deblend_trees_gpu.hpp; deblend_tree_builder.hpp), one per batch of candidates (a null
  // builder: that batch's trees on the host). Empty: every tree on the host.
  std::function<std::unique_ptr<DeblendTreeBuilder>()> trees;
  // With `trees`: a frame with fewer candidates (detections that may split) builds every tree
  // on the host (no builder is made).
  size_t builder_min_candidates = 0;
  // With `trees`: the plans take the builders' cores (their prune and the cores' chains, made
  // where the trees were built) where the builder makes them; false: every plan from the tree.
  bool builder_cores = true;
  // With builder_cores: the plans take the builders' children and draws too where the builder
  // makes them (never with a DGEO map); false: each plan makes its own from the cores.
  bool builder_children = true;
  // With `trees`: a builder already given this frame's candidates and launched where the
  // detections were made (the GPU front end: FrontEnd::prepared_trees,
  // DeblendTreeBuilder::prepared). The stage takes its trees for the candidates it took, if it
  // was prepared with these parameters and detections (else it is not used), and plans the
  // others on the host; null: the stage's builders are given the candidates.
  DeblendTreeBuilder* prepared = nullptr;
  // Makes the split detections' pixel assignments away from the finishing threads (the GPU:
  // gpu/deblend_children_gpu.hpp), once the draws are taken. Empty: on the host, in finish().
  DeblendChildrenChooser children;
};

// A split plan's children as their cores make them: child c's core is the detection's pixels
// core_index[offset[c] .. offset[c + 1]) (DeblendPlan), in SExtractor's order; its flags, and
// its core's barycentre, about which its moments are taken (a fixed centre).
struct DeblendCores {
  std::vector<int64_t> offset = {0};
  std::vector<uint16_t> flags;
  std::vector<double> cx, cy;

  size_t size() const { return flags.size(); }
  void clear() {
    offset.assign(1, 0);
    flags.clear();
    cx.clear();
    cy.clear();
  }
  // The next child: its core ends at core_index entry `end`.
  void add(int64_t end, uint16_t child_flags, double centre_x, double centre_y) {
    offset.push_back(end);
    flags.push_back(child_flags);
    cx.push_back(centre_x);
    cy.push_back(centre_y);
  }
};

// The tree of one detection and what its pixel assignment needs.
struct DeblendPlan {
  bool split = false;
  uint16_t parent_flags = 0;  // the detection's flags (kFlagDeblendOverflow added here)
  DeblendCores cores;         // each child's core (its pixels: core_index), flags and centre
  // The cores' moments (a plan that made its children itself; empty where a tree builder made
  // them: BuiltCores::children).
  std::vector<Shape> child_shapes;
  // What the pixel assignment reads of each child: its core's moments again, as floats, and
  // its Gaussian profile's amplitude.
  std::vector<DeblendChild> children;
  std::vector<uint8_t> in_core;     // per parent pixel: already in a child core
  std::vector<int32_t> core_index;  // the cores' pixels (indexes in the detection's), in order
  size_t draws = 0;                 // rand() calls the pixel assignment will make
};

// The rand() draws finish_deblend makes for a split plan (cores, shapes, amplitudes and in_core
// filled): one per pixel outside the cores whose summed profile weight is above 1e-31. The exp
// is taken only where the answer is not certain without it (see deblend.cpp).
size_t count_deblend_draws(const ObjectView& parent, const DeblendPlan& plan);

// Buffers plan_deblend reuses from one detection to the next (one per thread).
struct DeblendScratch {
  DeblendTreeScratch tree_scratch;
  DeblendTree tree;
  std::vector<float> thresh;  // the levels' thresholds
  BuiltCoresScratch cores;    // built_cores' (deblend_tree.hpp)
  BuiltCores built;  // a plan's cores, the host's or a builder's (deblend_tree_builder.hpp)
  // Tests: build the tree even for a detection of one peak (count_peaks).
  bool every_tree = false;
};

// The exponentially spaced levels (refine.c): thresh[0] = t0 and, for k = 1 .. nthresh - 1,
// thresh[k] = (float)(t0 * pow(peak / t0, k / nthresh)) bit for bit, from one pow: t0 q^k
// with q = pow(peak / t0, 1 / nthresh) lies within a relative ~1e-15 of t0 pow(...), so its
// float is the same unless it lies that close to a float rounding boundary, where the level is
// taken by pow (about one level in 10^5). Returns how many levels were taken by pow.
// `tolerance`: the error bound's unit (tests force the pow path with a large one).
int exponential_levels(float t0, float peak, int nthresh, float* thresh, double tolerance = 1e-14);

// A candidate's levels as the stage takes them (thresh, params.nthresh of them: exponential, or
// linear with DETECT_TYPE PHOTO), its detection threshold t0 and the contrast its branches must
// pass (value0, DEBLEND_MINCONT of its flux); false when a level is NaN (no pixel is above it:
// nothing splits).
struct CandidateLevels {
  float t0 = 0;
  double value0 = 0;
};
bool candidate_levels(const ObjectView& parent, const DeblendParams& params,
                      std::vector<float>& thresh, CandidateLevels& out);

// Whether the detection can split at all: false (the detection stays as it is, its flags
// unchanged, no draws) without DEBLEND_NTHRESH >= 2, for a detection that lost pixels to a
// pixel-stack overflow, and for one of fewer than two peaks (count_peaks). plan_deblend asks it
// first; the stage asks it before making a plan, for most detections the only question.
bool may_split(const ObjectView& parent, const DeblendParams& params, DeblendScratch& scratch);
// The same with the detection's peaks already counted (`peaks`: min(2, count_peaks)).
bool may_split(const ObjectView& parent, const DeblendParams& params, DeblendScratch& scratch,
               int peaks);

DeblendPlan plan_deblend(const ObjectView& parent, const DeblendParams& params,
                         DeblendScratch& scratch);
DeblendPlan plan_deblend(const ObjectView& parent, const DeblendParams& params);
// The plan of a candidate from its cores (built_cores', or a tree builder's with its children
// and draws where it made them), as the stage makes it; t0 its detection threshold
// (CandidateLevels::t0). For tests.
DeblendPlan plan_from_built_cores(const ObjectView& parent, const DeblendParams& params, float t0,
                                  const BuiltCores& cores);
// Buffers finish_deblend reuses from one detection to the next (one per thread).
struct DeblendFinishScratch {
  std::vector<float> p;
  std::vector<int32_t> chosen, order;
  std::vector<size_t> given;
  std::vector<int32_t> perm, tmp_int;
  std::vector<float> tmp_float;
};

// Writes the children of a split detection over its own pixels: `out`'s pixel columns at
// [pixel_base, pixel_base + n) hold the detection's n pixels (in chain order) and receive the
// children's, one after the other, each its core then the pixels it was given in the parent's
// order; the children's per-object entries go to out.offset[object_base + 1 ...], out.flags
// [object_base ...] etc. (already sized). `random` points to plan.draws consecutive values of
// the rand() stream.
void finish_deblend(const DeblendPlan& plan, const int32_t* random, ObjectList& out,
                    int64_t pixel_base, size_t n, size_t object_base,
                    DeblendFinishScratch& scratch);
// finish_deblend's two halves. choose_children: per pixel of `parent` (the split detection),
// the child it goes to (-1 for a core's pixel), the draws taken from `random` in pixel order
// (deblend_profile.hpp's arithmetic; `p` is scratch). place_children: the children written
// over the detection's pixels from those choices (made here or elsewhere: the GPU's).
void choose_children(const DeblendPlan& plan, const int32_t* random, const ObjectView& parent,
                     std::vector<float>& p, int32_t* chosen);
void place_children(const DeblendPlan& plan, const int32_t* chosen, ObjectList& out,
                    int64_t pixel_base, size_t n, size_t object_base,
                    DeblendFinishScratch& scratch);

// The split detections' pixel assignment (choose_children) handed to another device, all at
// once (DeblendParams::children; the GPU: gpu/deblend_children_gpu.hpp). Detection j of the job
// has pixels parents[j], plan plans[j] and its draws at random[first_draw[j] ...]; its choices
// go to chosen[chosen_begin[j] ...] (one per pixel), and done[j] says whether they were made
// (a detection not done is chosen on the host).
struct DeblendChildrenJob {
  std::vector<ObjectView> parents;
  std::vector<const DeblendPlan*> plans;
  std::vector<size_t> first_draw;
  std::vector<size_t> chosen_begin;  // one more entry: the pixels in all
  const int32_t* random = nullptr;
  size_t draws = 0;
  int threads = 1;  // host threads the packing may use
};

// The deblending stage: every detection's tree in parallel, then the random draws taken from
// one rand() stream in detection order (the first `rand_offset` numbers skipped: see
// Config::deblend_rand_offset), then the pixel assignments in parallel. Objects come out in
// detection order, children in SExtractor's order; parent[k] is object k's detection. The
// detections' pixel columns become the objects' (`detections` keeps its per-object columns
// and offsets, its pixel columns are left empty).
struct Deblended {
  ObjectList objects;
  std::vector<int64_t> parent;
  int64_t draws = 0;  // rand() numbers taken (after the skipped rand_offset)
};
// Storage for the stage's per-thread buffers and for the plans of the detections that split,
// reused from one stage to the next: a caller deblending frame after frame keeps one
// (pipeline.cpp, one per thread that runs extractions), and a frame no larger than an earlier
// one then allocates nothing for its plans and frees nothing (freeing each split detection's
// plan, from another thread than the one that planned it, cost about 1.4 ms of the pixel
// assignment on the H200's 16 threads). One stage at a time uses a pool.
struct DeblendPlanPool {
  struct PerThread {
    std::deque<DeblendPlan> plans;  // a deque: the plans do not move as it grows
    DeblendScratch scratch;
    DeblendFinishScratch finish;
  };
  std::vector<std::unique_ptr<PerThread>> threads;
  PerThread& at(size_t thread) { return *threads[thread]; }
  void reserve(int n) {
    while (threads.size() < static_cast<size_t>(n))
      threads.push_back(std::make_unique<PerThread>());
  }
};

// The same stage in calls, so that a caller can take the objects a range of detections at a
// time (the pipelined back end, back_end.hpp): the constructor plans every detection and takes
// the draws, each finish() writes the objects of detections [begin, end) (the per-object columns
// are sized for all objects at construction: an object's entries never move). Or, `in_ranges`,
// the constructor plans nothing and plan() plans the detections up to a given one, taking their
// draws (the stream continues from the detections before) and sizing the objects' columns for
// them: the plans, draws and objects are the same in any ranges (without params.children,
// which chooses every split detection's pixels at once, and is refused).
class DeblendStage {
 public:
  // `pool` (optional): storage kept by the caller (else the stage's own). `params` is kept, and
  // what it points to (its peaks) is read until the last plan().
  DeblendStage(ObjectList&& detections, const DeblendParams& params, int64_t rand_offset,
               int threads, std::vector<std::pair<std::string, double>>* seconds = nullptr,
               DeblendPlanPool* pool = nullptr, bool in_ranges = false);
  ~DeblendStage();
  DeblendStage(const DeblendStage&) = delete;
  DeblendStage& operator=(const DeblendStage&) = delete;
  size_t detections() const;
  // With in_ranges: plans detections [planned(), end), with `threads` threads (the steps' times
  // are added to the constructor's `seconds` at each call). The objects' columns grow, so
  // references into them taken before are not kept. `end` may not fall inside a range launched
  // by launch_plans.
  void plan(size_t end, int threads);
  // With in_ranges: begins the plans of the detections from the last launched (or planned) one
  // up to `end` (their candidates' levels taken, the tree builders' work launched) without
  // waiting for them, so that their trees are built while plan() collects the ranges before.
  void launch_plans(size_t end, int threads);
  size_t planned() const;
  // The first object of `detection` (a detection up to planned(); planned(): the number of
  // objects so far).
  size_t first_object(size_t detection) const;
  // Detections [begin, end), end no later than planned().
  void finish(size_t begin, size_t end, int threads);
  // The objects and their parents: entries of the detections not yet finished are not set.
  Deblended& result();
  Deblended take();  // after the last finish()

 private:
  struct State;
  DeblendParams params_;
  std::vector<std::pair<std::string, double>>* seconds_;
  std::unique_ptr<State> state_;
};

// `seconds`, when given, receives the phases' times ("deblend: plans", "... draws", "... finish").
Deblended deblend(ObjectList&& detections, const DeblendParams& params, int64_t rand_offset,
                  int threads, std::vector<std::pair<std::string, double>>* seconds = nullptr,
                  DeblendPlanPool* pool = nullptr);

}  // namespace celeris::extract
