// The GPU's tree builder (deblend_trees_gpu.hpp): staging, launches and the trees' return.
#include "extract/gpu/deblend_trees_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/device_exception_lists.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/read_back.hpp"
#include "core/cuda/scratch_pool.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/deblend_core_kernels.hpp"
#include "extract/gpu/deblend_prepare_kernels.hpp"
#include "extract/gpu/deblend_tree_kernels.hpp"
#include "extract/stages/shape_finish.hpp"

namespace celeris::extract::gpu {

static_assert(sizeof(TreeNode) == sizeof(DeblendNode) &&
                  offsetof(TreeNode, fdflux) == offsetof(DeblendNode, fdflux) &&
                  offsetof(TreeNode, npix) == offsetof(DeblendNode, npix) &&
                  offsetof(TreeNode, flags) == offsetof(DeblendNode, flags) &&
                  offsetof(TreeNode, seed) == offsetof(DeblendNode, seed) &&
                  offsetof(TreeNode, first_son) == offsetof(DeblendNode, first_son) &&
                  offsetof(TreeNode, sons) == offsetof(DeblendNode, sons),
              "TreeNode is DeblendNode's layout");
static_assert(kTreeTruncatedFlag == kFlagTruncated, "the kernel's border flag is FLAGS' own");
static_assert(kTreeMaxPixels <= 256, "the cores' pixel indexes are bytes (CoreArgs::pixels)");

namespace {

// A launch per size class: candidates of up to `pixels` pixels, trees of up to `node_cap` nodes
// (a larger tree is built on the host), `threads` a block.
struct SizeClass {
  int pixels, node_cap, threads;
};
constexpr SizeClass kClasses[] = {{64, 192, 64}, {static_cast<int>(kTreeMaxPixels), 384, 128}};
constexpr int kNumClasses = sizeof(kClasses) / sizeof(kClasses[0]);
static_assert(kPrepareClasses == kNumClasses, "the preparation's counts: one per class");
static_assert(kClasses[kNumClasses - 1].node_cap <= kTreeNsonmax,
              "a tree's levels must show its NSONMAX overflow (deblend_tree_kernels.hpp)");

// Counters the kernels take places with: nodes, core entries, core pixels.
constexpr size_t kUsed = 3;

// Timer marks: each class's kernel ends at kLaunched + 1 + its index (on its own stream). A
// prepared builder's kUploaded is its candidates' preparation ended.
enum Mark {
  kStart,
  kUploaded,
  kLaunched,
  kBack = kLaunched + kNumClasses + 1,
  kNodesAsked,
  kNodesBack,
  kMarks
};

// A stream and its buffers, reused from frame to frame (grown, never shrunk). A frame's
// deblending takes two (its two batches) and a stream's back workers (eight by default with
// --device cuda on 16 cores, run_frames.cpp) run theirs at once: the pool keeps every context
// given back (core/cuda/context_pool.hpp), so that none is freed between frames. (It kept four
// until stop 49: a stream of four workers could make and free up to four a round, and freeing
// device memory waits for the whole device; the stream's rate did not move measurably, 90.6-99.6
// against 91.8-98.0 frames/s.)
struct Context {
  cuda::Stream stream;
  // Each size class's launch on a stream of its own, so that they run side by side: the
  // classes of larger candidates are few blocks, each long.
  cuda::Stream launches[kNumClasses];
  cuda::OrderEvent uploaded, built[kNumClasses];
  cuda::EventTimer timer{kMarks};
  cuda::DeviceBuffer<unsigned char> in, out;
  cuda::DeviceBuffer<TreeNode> nodes;
  cuda::DeviceBuffer<unsigned long long> used;  // nodes, core entries, core pixels taken
  cuda::PinnedBuffer<unsigned char> staged_in, staged_out;
  cuda::PinnedBuffer<TreeNode> staged_nodes;
  // The cores (deblend_core_kernels.hpp): compact, each candidate's place taken by the kernel.
  cuda::DeviceBuffer<CoreEntry> entries;
  cuda::DeviceBuffer<uint8_t> core_pixels;
  cuda::PinnedBuffer<CoreEntry> staged_entries;
  cuda::PinnedBuffer<uint8_t> staged_core_pixels;
  // Each core's child, beside its entry (CoreArgs::children).
  cuda::DeviceBuffer<DeblendChild> children;
  cuda::PinnedBuffer<DeblendChild> staged_children;
  // A prepared builder's (prepare_trees): the front end's detections gathered, then its
  // candidates' counts and each detection's slot read back into published (prepared); their
  // levels and value0 come back into staged_levels.
  cuda::OrderEvent gathered, prepared;
  cuda::MappedValues<int32_t> published;
  cuda::PinnedBuffer<unsigned char> staged_levels;
};

// A launch's inputs on the device, staged by the host (launch) or prepared there (prepare).
struct DeviceInputs {
  const TreeCandidate* candidates = nullptr;
  const double* value0 = nullptr;
  const float* thresh = nullptr;
  const int32_t* cell = nullptr;
  const float* cvalue = nullptr;
  const float* value = nullptr;  // with children
  const int32_t* launch[kNumClasses] = {};
  int64_t launched[kNumClasses] = {};
  int max_pixels[kNumClasses] = {}, max_cells[kNumClasses] = {};
};

cuda::ContextPool<Context>& contexts() {
  static auto* pool = new cuda::ContextPool<Context>;
  return *pool;
}

class Builder final : public DeblendTreeBuilder {
 public:
  Builder() : c_(contexts().take()) {}
  // Not before the stream is idle: the context's buffers go back to the pool for the next.
  ~Builder() override { cudaStreamSynchronize(c_->stream.get()); }

  // The children where glibc's log and expf can be reproduced on the device (their exception
  // lists describe this process's glibc).
  void ask_children(bool weighted) override {
    const cuda::DeviceExceptionLists& exceptions = cuda::device_exception_lists();
    children_ = exceptions.log && exceptions.expf;
    weighted_ = weighted;
  }

  bool takes(size_t pixels, int64_t cells) const override {
    return pixels <= kTreeMaxPixels && cells <= kTreeMaxCells;
  }

  void begin(size_t candidates, size_t pixels, int nthresh, int minarea, int width,
             int height) override {
    m_ = candidates;
    pixels_ = pixels;
    nthresh_ = nthresh;
    minarea_ = minarea;
    width_ = width;
    height_ = height;
    in_ = {};
    in_.add<TreeCandidate>(m_);
    in_.add<double>(m_);
    in_.add<float>(m_ * static_cast<size_t>(nthresh_));
    in_.add<int32_t>(pixels_);
    in_.add<float>(pixels_);
    in_.add<int32_t>(m_);
    if (children_) in_.add<float>(pixels_);
    cuda::Carve cut(c_->staged_in.grow(std::max<size_t>(in_.bytes(), 1)));
    cand_ = cut.take<TreeCandidate>(m_);
    value0_ = cut.take<double>(m_);
    thresh_ = cut.take<float>(m_ * static_cast<size_t>(nthresh_));
    cell_ = cut.take<int32_t>(pixels_);
    cvalue_ = cut.take<float>(pixels_);
    launch_ = cut.take<int32_t>(m_);
    value_ = children_ ? cut.take<float>(pixels_) : nullptr;
    flags_.assign(m_, 0);
    for (size_t j = 0; j < m_; ++j) cand_[j].pixels = 0;  // 0: not added
  }

  void add(size_t j, size_t pixel_begin, const ObjectView& parent, const float* thresh,
           double value0, const TreeBox& box, const OrderFreeSum& sums) override {
    TreeCandidate& c = cand_[j];
    value0_[j] = value0;
    c.ulp_exponent = sums.ulp_exponent();
    c.pixel_begin = static_cast<int64_t>(pixel_begin);
    c.pixels = static_cast<int32_t>(parent.size());
    c.x0 = box.x0;
    c.y0 = box.y0;
    c.bw = box.x1 - box.x0 + 3;
    c.bh = box.y1 - box.y0 + 3;
    flags_[j] = parent.flags;
    std::copy(thresh, thresh + nthresh_, thresh_ + j * static_cast<size_t>(nthresh_));
    int32_t* cell = cell_ + pixel_begin;
    float* cv = cvalue_ + pixel_begin;
    for (size_t p = 0; p < parent.size(); ++p) {
      cell[p] = (parent.y[p] - box.y0 + 1) * c.bw + (parent.x[p] - box.x0 + 1);
      cv[p] = parent.cvalue[p];
    }
    if (value_) std::copy(parent.value, parent.value + parent.size(), value_ + pixel_begin);
  }

  void launch() override {
    if (is_prepared_) return launch_prepared();
    Context& c = *c_;
    const cudaStream_t s = c.stream.get();
    // The candidates by size class, each class's together in launch_.
    std::vector<int64_t> first(kNumClasses + 1, 0);
    std::vector<int> klass(m_, -1);
    size_t added = 0;
    for (size_t j = 0; j < m_; ++j) {
      if (cand_[j].pixels == 0) continue;
      int k = 0;
      while (cand_[j].pixels > kClasses[k].pixels) ++k;
      klass[j] = k;
      ++first[k + 1];
      ++added;
    }
    for (int k = 0; k < kNumClasses; ++k) first[k + 1] += first[k];
    std::vector<int64_t> fill(first.begin(), first.end() - 1);
    std::vector<int> max_pixels(kNumClasses, 0), max_cells(kNumClasses, 0);
    for (size_t j = 0; j < m_; ++j) {
      if (klass[j] < 0) continue;
      const int k = klass[j];
      launch_[fill[k]++] = static_cast<int32_t>(j);
      max_pixels[k] = std::max(max_pixels[k], cand_[j].pixels);
      max_cells[k] = std::max(max_cells[k], cand_[j].bw * cand_[j].bh);
    }
    added_ = added;
    if (added == 0) return;
    unsigned char* din = c.in.grow(in_.bytes());
    c.timer.mark(kStart, s);
    CELERIS_CUDA_CHECK(
        cudaMemcpyAsync(din, c.staged_in.data(), in_.bytes(), cudaMemcpyHostToDevice, s));
    c.timer.mark(kUploaded, s);
    cuda::Carve dcut(din);
    DeviceInputs d;
    d.candidates = dcut.take<TreeCandidate>(m_);
    d.value0 = dcut.take<double>(m_);
    d.thresh = dcut.take<float>(m_ * static_cast<size_t>(nthresh_));
    d.cell = dcut.take<int32_t>(pixels_);
    d.cvalue = dcut.take<float>(pixels_);
    const int32_t* launch = dcut.take<int32_t>(m_);
    d.value = children_ ? dcut.take<float>(pixels_) : nullptr;
    for (int k = 0; k < kNumClasses; ++k) {
      d.launch[k] = launch + first[k];
      d.launched[k] = first[k + 1] - first[k];
      d.max_pixels[k] = max_pixels[k];
      d.max_cells[k] = max_cells[k];
    }
    launch_kernels(d);
  }

  void wait() override {
    if (waited_) return;
    waited_ = true;
    not_built_ = 0;
    if (added_ == 0) return;
    Context& c = *c_;
    c.stream.synchronize();
    const size_t used = static_cast<size_t>(used_[0]);
    nodes_ = c.staged_nodes.grow(std::max<size_t>(used, 1));
    c.timer.mark(kNodesAsked, c.stream.get());
    c.nodes.download_async(nodes_, used, c.stream.get());
    // The cores (the kernel leaves a candidate whose place would not fit to the host: the
    // counts may pass the arrays' sizes).
    const size_t entries = std::min<size_t>(static_cast<size_t>(used_[1]), pixels_);
    const size_t pixels = std::min<size_t>(static_cast<size_t>(used_[2]), pixels_);
    entries_ = c.staged_entries.grow(std::max<size_t>(entries, 1));
    core_pixels_ = c.staged_core_pixels.grow(std::max<size_t>(pixels, 1));
    c.entries.download_async(entries_, entries, c.stream.get());
    c.core_pixels.download_async(core_pixels_, pixels, c.stream.get());
    if (children_) {
      children_out_ = c.staged_children.grow(std::max<size_t>(entries, 1));
      c.children.download_async(children_out_, entries, c.stream.get());
    }
    c.timer.mark(kNodesBack, c.stream.get());
    c.stream.synchronize();
    for (size_t j = 0; j < m_; ++j) not_built_ += given(j) && results_[j].status == kTreeNotBuilt;
  }

  const PreparedTrees* prepared() const override { return is_prepared_ ? &prepared_ : nullptr; }
  int32_t slot(size_t detection) const override {
    return is_prepared_ && detection < prepared_.detections ? slots_[detection] : -1;
  }
  double prepared_levels(size_t j, std::vector<float>& thresh) const override {
    const float* t = thresh_ + j * static_cast<size_t>(nthresh_);
    thresh.assign(t, t + nthresh_);
    return value0_[j];
  }

  // Prepared mode (prepare_trees): the candidates of `d` made on the device after what `front`
  // holds so far, on the builder's stream (beside the work queued on `front` next: the
  // detections' download), each detection's slot and the counts brought back.
  void prepare(const DeviceDetections& d, const PreparedTrees& p, cudaStream_t front) {
    Context& c = *c_;
    const cudaStream_t s = c.stream.get();
    c.gathered.record(front);
    CELERIS_CUDA_CHECK(cudaStreamWaitEvent(s, c.gathered.get(), 0));
    is_prepared_ = true;
    prepared_ = p;
    const cuda::DeviceExceptionLists& exceptions = cuda::device_exception_lists();
    children_ = exceptions.log && exceptions.expf;
    weighted_ = false;
    nthresh_ = p.nthresh;
    minarea_ = p.minarea;
    width_ = p.width;
    height_ = p.height;
    pixels_ = d.pixels;
    const size_t n = p.detections;
    in_ = {};
    in_.add<TreeCandidate>(n);
    in_.add<double>(n);
    in_.add<float>(n * static_cast<size_t>(nthresh_));
    in_.add<int32_t>(pixels_);
    in_.add<float>(pixels_);
    in_.add<int32_t>(kPrepareClasses * n);
    if (children_) in_.add<float>(pixels_);
    in_.add<int32_t>(kPrepareCounts + n);
    cuda::Carve dcut(c.in.grow(std::max<size_t>(in_.bytes(), 1)));
    PrepareArgs a;
    a.x = d.x;
    a.y = d.y;
    a.value = d.value;
    a.cvalue = d.cvalue;
    a.offsets = d.offsets;
    a.peaks = d.peaks;
    a.detections = static_cast<int64_t>(n);
    a.nthresh = nthresh_;
    a.mincont = p.mincont;
    a.t0 = p.t0;
    for (int k = 0; k < kNumClasses; ++k) a.class_pixels[k] = kClasses[k].pixels;
    a.max_cells = static_cast<int>(kTreeMaxCells);
    dev_.candidates = a.candidates = dcut.take<TreeCandidate>(n);
    dev_.value0 = a.value0 = dcut.take<double>(n);
    dev_.thresh = a.thresh = dcut.take<float>(n * static_cast<size_t>(nthresh_));
    dev_.cell = a.cell = dcut.take<int32_t>(pixels_);
    dev_.cvalue = a.cell_cvalue = dcut.take<float>(pixels_);
    a.launch = dcut.take<int32_t>(kPrepareClasses * n);
    for (int k = 0; k < kNumClasses; ++k) dev_.launch[k] = a.launch + k * n;
    dev_.value = a.cell_value = children_ ? dcut.take<float>(pixels_) : nullptr;
    // The counts, then each detection's slot: read back together by a kernel into mapped
    // memory, not by a copy engine, where they would wait behind the front end's downloads
    // (about 1.3 ms of a crowded 4096^2 frame's, H200, stop 64).
    a.counts = dcut.take<int32_t>(kPrepareCounts + n);
    a.slot = a.counts + kPrepareCounts;
    c.published.grow(kPrepareCounts + n);
    counts_ = c.published.host();
    slots_ = counts_ + kPrepareCounts;
    c.timer.mark(kStart, s);
    CELERIS_CUDA_CHECK(cudaMemsetAsync(a.counts, 0, kPrepareCounts * sizeof(int32_t), s));
    prepare_candidates(a, s);
    cuda::read_back_bytes(a.counts, c.published.device(), (kPrepareCounts + n) * sizeof(int32_t),
                          s);
    c.timer.mark(kUploaded, s);
    c.prepared.record(s);
  }

  // Whether candidate j's tree was built and is the host's: with a level at NSONMAX, as
  // build_deblend_tree meets it, the host builds the tree again and finds it.
  bool built(size_t j) const {
    if (!given(j) || results_[j].status == kTreeNotBuilt) return false;
    const int32_t* level = levels_ + j * static_cast<size_t>(nthresh_ + 1);
    for (int k = 1; k < nthresh_; ++k) {
      const int32_t nodes = level[k + 1] - level[k];
      if ((k < nthresh_ - 1 && nodes >= kTreeNsonmax) || nodes > kTreeNsonmax) return false;
    }
    return true;
  }

  bool tree(size_t j, DeblendTree& tree) const override {
    if (!built(j)) return false;
    const TreeResult& r = results_[j];
    tree.overflow = false;
    const int32_t* level = levels_ + j * static_cast<size_t>(nthresh_ + 1);
    tree.level.assign(level, level + nthresh_ + 1);
    tree.nodes.resize(static_cast<size_t>(r.nodes));
    std::memcpy(static_cast<void*>(tree.nodes.data()), nodes_ + r.first,
                static_cast<size_t>(r.nodes) * sizeof(TreeNode));
    // The root is the detection itself (a prepared builder's: the stage sets its flags).
    if (!is_prepared_) tree.nodes[0].flags = flags_[j];
    return true;
  }

  bool cores(size_t j, BuiltCores& out) const override {
    if (!built(j)) return false;
    const CoreResult& r = core_results_[j];
    if (r.cores < 0) return false;
    out.count = r.cores;
    out.level.resize(static_cast<size_t>(r.cores));
    out.length.resize(static_cast<size_t>(r.cores));
    out.thresh.resize(static_cast<size_t>(r.cores));
    out.flags.resize(static_cast<size_t>(r.cores));
    size_t pixels = 0;
    for (int32_t q = 0; q < r.cores; ++q) {
      const CoreEntry& e = entries_[static_cast<size_t>(r.first_entry) + q];
      out.level[q] = e.level;
      out.length[q] = e.length;
      out.thresh[q] = thresh_[j * static_cast<size_t>(nthresh_) + static_cast<size_t>(e.level)];
      out.flags[q] = e.flags;
      pixels += static_cast<size_t>(e.length);
    }
    out.pixels.resize(pixels);
    const uint8_t* from = core_pixels_ + r.first_pixel;
    for (size_t p = 0; p < pixels; ++p) out.pixels[p] = from[p];
    out.draws = children_ && r.cores > 0 ? r.draws : -1;
    if (out.draws >= 0)
      out.children.assign(children_out_ + r.first_entry, children_out_ + r.first_entry + r.cores);
    else
      out.children.clear();
    return true;
  }

  size_t not_built() const override { return not_built_; }

  void report(std::vector<std::pair<std::string, double>>& seconds) const override {
    if (added_ == 0) return;
    const cuda::EventTimer& t = c_->timer;
    // (names without counts: a stream of frames sums its steps by name)
    seconds.emplace_back(
        is_prepared_ ? "gpu trees: candidates prepared on the device" : "gpu trees: upload",
        t.seconds(kStart, kUploaded));
    for (int k = 0; k < kNumClasses; ++k)
      seconds.emplace_back(
          "gpu trees and cores: kernels, up to " + std::to_string(kClasses[k].pixels) + " pixels",
          t.seconds(kLaunched, kLaunched + k + 1));
    double built = 0;
    for (int k = 0; k < kNumClasses; ++k)
      built = std::max(built, t.seconds(kLaunched, kLaunched + k + 1));
    seconds.emplace_back("gpu trees: results back", t.seconds(kLaunched, kBack) - built);
    seconds.emplace_back("gpu trees: nodes and cores back", t.seconds(kNodesAsked, kNodesBack));
  }

 private:
  // Whether candidate j was given (a prepared builder's every slot was).
  bool given(size_t j) const { return is_prepared_ || cand_[j].pixels != 0; }

  // A prepared builder's launch, once its counts are back (and the preparation has read the
  // detections).
  void launch_prepared() {
    Context& c = *c_;
    const cudaStream_t s = c.stream.get();
    c.prepared.synchronize();
    m_ = static_cast<size_t>(counts_[kPrepared]);
    added_ = m_;
    if (m_ == 0) return;
    for (int k = 0; k < kNumClasses; ++k) {
      dev_.launched[k] = counts_[kClassCount + k];
      dev_.max_pixels[k] = counts_[kClassPixels + k];
      dev_.max_cells[k] = counts_[kClassCells + k];
    }
    launch_kernels(dev_);
    // The slots' levels and value0 for the stage's plans (prepared_levels), after the kernels'
    // launch: a copy queued before them would hold them behind the front end's downloads on the
    // copy engine (about 1 ms of a crowded 4096^2 frame's, H200, stop 64).
    cuda::Carve hcut(c.staged_levels.grow(cuda::Carve::kAlign * 2 + m_ * sizeof(double) +
                                          m_ * static_cast<size_t>(nthresh_) * sizeof(float)));
    value0_ = hcut.take<double>(m_);
    thresh_ = hcut.take<float>(m_ * static_cast<size_t>(nthresh_));
    CELERIS_CUDA_CHECK(
        cudaMemcpyAsync(value0_, dev_.value0, m_ * sizeof(double), cudaMemcpyDeviceToHost, s));
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(thresh_, dev_.thresh,
                                       m_ * static_cast<size_t>(nthresh_) * sizeof(float),
                                       cudaMemcpyDeviceToHost, s));
  }

  // The trees' and cores' kernels on `d` (m_ candidates, added_ of them given, pixels_ pixels),
  // each class on its stream after what c_'s stream holds so far, and the results' download.
  void launch_kernels(const DeviceInputs& d) {
    Context& c = *c_;
    const cudaStream_t s = c.stream.get();
    TreeArgs a;
    a.candidates = d.candidates;
    a.thresh = d.thresh;
    a.cell = d.cell;
    a.cvalue = d.cvalue;
    a.nthresh = nthresh_;
    a.minarea = minarea_;
    a.width = width_;
    a.height = height_;
    // Room for the nodes: a crowded field's trees hold about 60 each; a launch that runs out
    // leaves its trees to the host.
    const size_t space = 96 * added_ + pixels_;
    a.nodes = c.nodes.grow(space);
    a.node_space = static_cast<int64_t>(space);
    a.used = c.used.grow(kUsed);
    CELERIS_CUDA_CHECK(cudaMemsetAsync(a.used, 0, kUsed * sizeof(unsigned long long), s));
    out_ = {};
    out_.add<TreeResult>(m_);
    out_.add<int32_t>(m_ * static_cast<size_t>(nthresh_ + 1));
    out_.add<CoreResult>(m_);
    out_.add<unsigned long long>(kUsed);
    unsigned char* dout = c.out.grow(out_.bytes());
    cuda::Carve ocut(dout);
    a.results = ocut.take<TreeResult>(m_);
    a.levels = ocut.take<int32_t>(m_ * static_cast<size_t>(nthresh_ + 1));
    CoreArgs ca;
    ca.results = ocut.take<CoreResult>(m_);
    unsigned long long* used_out = ocut.take<unsigned long long>(kUsed);
    // The cores: a core holds at least one pixel, and no pixel is in two cores.
    ca.candidates = a.candidates;
    ca.cell = a.cell;
    ca.cvalue = a.cvalue;
    ca.thresh = a.thresh;
    ca.value0 = d.value0;
    ca.nthresh = nthresh_;
    ca.trees = a.results;
    ca.levels = a.levels;
    ca.nodes = a.nodes;
    ca.entries = c.entries.grow(pixels_);
    ca.entry_space = static_cast<int64_t>(pixels_);
    ca.pixels = c.core_pixels.grow(pixels_);
    ca.pixel_space = static_cast<int64_t>(pixels_);
    ca.used = a.used + 1;
    if (children_) {
      ca.value = d.value;
      ca.children = c.children.grow(pixels_);
      ca.lists = cuda::device_exception_lists().lists;
      ca.log_cap = std::log(shape_finish::kRatioCap);  // the host's (finish_shape)
      ca.weighted = weighted_;
    }
    c.timer.mark(kLaunched, s);
    c.uploaded.record(s);
    for (int k = 0; k < kNumClasses; ++k) {
      const cudaStream_t ks = c.launches[k].get();
      CELERIS_CUDA_CHECK(cudaStreamWaitEvent(ks, c.uploaded.get(), 0));
      a.launch = d.launch[k];
      a.launched = d.launched[k];
      a.max_pixels = d.max_pixels[k];
      a.max_cells = d.max_cells[k];
      a.node_cap = kClasses[k].node_cap;
      build_trees(a, kClasses[k].threads, ks);
      ca.launch = a.launch;
      ca.launched = a.launched;
      ca.max_pixels = a.max_pixels;
      ca.max_cells = a.max_cells;
      ca.max_nodes = a.node_cap + 1;
      build_cores(ca, ks);
      c.timer.mark(kLaunched + 1 + k, ks);
      c.built[k].record(ks);
      CELERIS_CUDA_CHECK(cudaStreamWaitEvent(s, c.built[k].get(), 0));
    }
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(used_out, a.used, kUsed * sizeof(unsigned long long),
                                       cudaMemcpyDeviceToDevice, s));
    unsigned char* hout = c.staged_out.grow(out_.bytes());
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(hout, dout, out_.bytes(), cudaMemcpyDeviceToHost, s));
    c.timer.mark(kBack, s);
    cuda::Carve hcut(hout);
    results_ = hcut.take<TreeResult>(m_);
    levels_ = hcut.take<int32_t>(m_ * static_cast<size_t>(nthresh_ + 1));
    core_results_ = hcut.take<CoreResult>(m_);
    used_ = hcut.take<unsigned long long>(kUsed);
  }

  std::shared_ptr<Context> c_;
  size_t m_ = 0, pixels_ = 0, added_ = 0, not_built_ = 0;
  int nthresh_ = 0, minarea_ = 1, width_ = 0, height_ = 0;
  cuda::Carve in_, out_;
  TreeCandidate* cand_ = nullptr;
  float* thresh_ = nullptr;
  double* value0_ = nullptr;
  int32_t* cell_ = nullptr;
  float* cvalue_ = nullptr;
  int32_t* launch_ = nullptr;
  float* value_ = nullptr;  // with children_
  bool children_ = false, weighted_ = false, waited_ = false;
  std::vector<uint16_t> flags_;
  // Prepared mode: what it was prepared with, each detection's slot and the kernel's counts
  // (mapped memory, read once c.prepared is reached), the device's inputs.
  bool is_prepared_ = false;
  PreparedTrees prepared_;
  const int32_t* slots_ = nullptr;
  const int32_t* counts_ = nullptr;
  DeviceInputs dev_;
  const TreeResult* results_ = nullptr;
  const int32_t* levels_ = nullptr;
  const unsigned long long* used_ = nullptr;
  TreeNode* nodes_ = nullptr;
  const CoreResult* core_results_ = nullptr;
  CoreEntry* entries_ = nullptr;
  uint8_t* core_pixels_ = nullptr;
  DeblendChild* children_out_ = nullptr;
};

}  // namespace

std::unique_ptr<DeblendTreeBuilder> make_tree_builder() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    return nullptr;
  }
  return std::make_unique<Builder>();
}

std::unique_ptr<DeblendTreeBuilder> prepare_trees(const DeviceDetections& d, const PreparedTrees& p,
                                                  cuda::StreamHandle front) {
  if (p.detections != d.count)
    throw Error("internal: prepare_trees given " + std::to_string(p.detections) +
                " detections' parameters for " + std::to_string(d.count));
  auto builder = std::make_unique<Builder>();
  builder->prepare(d, p, front);
  return builder;
}

}  // namespace celeris::extract::gpu
