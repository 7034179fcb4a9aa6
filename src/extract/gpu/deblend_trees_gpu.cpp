// The GPU's tree builder (deblend_trees_gpu.hpp): staging, launches and the trees' return.
#include "extract/gpu/deblend_trees_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "core/cuda/context_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/device_exception_lists.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/scratch_pool.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/deblend_core_kernels.hpp"
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
static_assert(kNumClasses == 2, "Context's events: one per class");
static_assert(kClasses[kNumClasses - 1].node_cap <= kTreeNsonmax,
              "a tree's levels must show its NSONMAX overflow (deblend_tree_kernels.hpp)");

// Counters the kernels take places with: nodes, core entries, core pixels.
constexpr size_t kUsed = 3;

// Timer marks: each class's kernel ends at kUploaded + 1 + its index (on its own stream).
enum Mark {
  kStart,
  kUploaded,
  kBack = kUploaded + kNumClasses + 1,
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
  cuda::Event uploaded{false}, built[kNumClasses] = {cuda::Event(false), cuda::Event(false)};
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
    cuda::Carve dcut(din);
    TreeArgs a;
    a.candidates = dcut.take<TreeCandidate>(m_);
    const double* value0 = dcut.take<double>(m_);
    a.thresh = dcut.take<float>(m_ * static_cast<size_t>(nthresh_));
    a.cell = dcut.take<int32_t>(pixels_);
    a.cvalue = dcut.take<float>(pixels_);
    const int32_t* launch = dcut.take<int32_t>(m_);
    const float* value = children_ ? dcut.take<float>(pixels_) : nullptr;
    a.nthresh = nthresh_;
    a.minarea = minarea_;
    a.width = width_;
    a.height = height_;
    // Room for the nodes: a crowded field's trees hold about 60 each; a launch that runs out
    // leaves its trees to the host.
    const size_t space = 96 * added + pixels_;
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
    ca.value0 = value0;
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
      ca.value = value;
      ca.children = c.children.grow(pixels_);
      ca.lists = cuda::device_exception_lists().lists;
      ca.log_cap = std::log(shape_finish::kRatioCap);  // the host's (finish_shape)
      ca.weighted = weighted_;
    }
    c.timer.mark(kUploaded, s);
    c.uploaded.record(s);
    for (int k = 0; k < kNumClasses; ++k) {
      const cudaStream_t ks = c.launches[k].get();
      CELERIS_CUDA_CHECK(cudaStreamWaitEvent(ks, c.uploaded.get(), 0));
      a.launch = launch + first[k];
      a.launched = first[k + 1] - first[k];
      a.max_pixels = max_pixels[k];
      a.max_cells = max_cells[k];
      a.node_cap = kClasses[k].node_cap;
      build_trees(a, kClasses[k].threads, ks);
      ca.launch = a.launch;
      ca.launched = a.launched;
      ca.max_pixels = a.max_pixels;
      ca.max_cells = a.max_cells;
      ca.max_nodes = a.node_cap + 1;
      build_cores(ca, ks);
      c.timer.mark(kUploaded + 1 + k, ks);
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

  void wait() override {
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
    for (size_t j = 0; j < m_; ++j)
      not_built_ += cand_[j].pixels > 0 && results_[j].status == kTreeNotBuilt;
  }

  // Whether candidate j's tree was built and is the host's: with a level at NSONMAX, as
  // build_deblend_tree meets it, the host builds the tree again and finds it.
  bool built(size_t j) const {
    if (cand_[j].pixels == 0 || results_[j].status == kTreeNotBuilt) return false;
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
    tree.nodes[0].flags = flags_[j];  // the root is the detection itself
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
    seconds.emplace_back("gpu trees: upload", t.seconds(kStart, kUploaded));
    for (int k = 0; k < kNumClasses; ++k)
      seconds.emplace_back(
          "gpu trees and cores: kernels, up to " + std::to_string(kClasses[k].pixels) + " pixels",
          t.seconds(kUploaded, kUploaded + k + 1));
    double built = 0;
    for (int k = 0; k < kNumClasses; ++k)
      built = std::max(built, t.seconds(kUploaded, kUploaded + k + 1));
    seconds.emplace_back("gpu trees: results back", t.seconds(kUploaded, kBack) - built);
    seconds.emplace_back("gpu trees: nodes and cores back", t.seconds(kNodesAsked, kNodesBack));
  }

 private:
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
  bool children_ = false, weighted_ = false;
  std::vector<uint16_t> flags_;
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

}  // namespace celeris::extract::gpu
