// The GPU's blanking codes (blanking_gpu.hpp): the objects' codes packed on the host threads
// into page-locked memory, one upload, two kernels; the codes' host copy made on demand.
#include "extract/gpu/blanking_gpu.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "celeris/error.hpp"
#include "core/cuda/buffer_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/blanking_draft.hpp"
#include "extract/gpu/blanking_kernels.hpp"

namespace celeris::extract::gpu {

// One frame's codes, on the device and (once asked) on the host; pooled, since a stream of
// frames has several in flight.
struct CodeImages {
  cuda::DeviceBuffer<int32_t> device;
  cuda::PinnedBuffer<int32_t> host;
};

// CodesBesidePass's stream and buffers, pooled: the merged objects' pixels and codes, packed
// one merge() after another (each merge() its own stretch, so that none is rewritten while
// its copy may still be crossing).
struct MergeBuffers {
  cuda::Stream stream;
  cuda::OrderEvent merged;
  cuda::PinnedBuffer<OwnedCode> staged;
  cuda::DeviceBuffer<OwnedCode> owned;
};

namespace {

// Process-wide, never destroyed (its CUDA resources would outlive the runtime's teardown).
struct Context {
  std::mutex busy;  // the build: `stream`, `owned`, `staged`
  cuda::Stream stream;
  cuda::Stream copies;  // the host copies, any frame's, beside the builds
  cuda::DeviceBuffer<OwnedCode> owned;
  cuda::PinnedBuffer<OwnedCode> staged;
  cuda::BufferPool<CodeImages> codes{6};
  cuda::BufferPool<MergeBuffers> merges{4};
};

Context& context() {
  static Context* c = new Context;
  return *c;
}

class GpuCodes final : public DeviceCodes {
 public:
  GpuCodes(std::shared_ptr<CodeImages> images, size_t n) : images_(std::move(images)), n_(n) {}

  const int32_t* device() const override { return images_->device.data(); }

  void prefetch() const override {
    std::call_once(started_, [&] {
      CodeImages& im = *images_;
      const cudaStream_t s = context().copies.get();
      im.device.download_async(im.host.grow(n_), n_, s);
      copied_.record(s);
      copying_.store(true, std::memory_order_release);
    });
  }

  const int32_t* host() const override {
    if (const int32_t* h = ready_.load(std::memory_order_acquire)) return h;
    prefetch();
    copied_.synchronize();
    ready_.store(images_->host.data(), std::memory_order_release);
    return images_->host.data();
  }

  ~GpuCodes() override {
    // The pool may hand the buffers to another frame: the copy must be done with them.
    if (copying_.load(std::memory_order_acquire)) copied_.synchronize();
  }

 private:
  std::shared_ptr<CodeImages> images_;
  size_t n_;
  mutable std::once_flag started_;
  mutable cuda::OrderEvent copied_;
  mutable std::atomic<bool> copying_{false};
  mutable std::atomic<const int32_t*> ready_{nullptr};
};

// Victim v's pixels with their codes (OwnedCodes::victim_code) from `out` on; returns the end.
OwnedCode* pack_victim(const ObjectList& objects, const CleanVictim& v, int64_t width,
                       const OwnedCodes& owned, OwnedCode* out) {
  for (int64_t i = objects.offset[v.object]; i < objects.offset[v.object + 1]; ++i)
    *out++ = {static_cast<int32_t>(int64_t(objects.y[i]) * width + objects.x[i]),
              owned.victim_code(v, objects.y[i])};
  return out;
}

// A frame's code images of n pixels, from the pool.
std::shared_ptr<CodeImages> take_images(size_t n) {
  return context().codes.take([&](const CodeImages& im) { return im.device.size() >= n; },
                              [&] {
                                auto im = std::make_unique<CodeImages>();
                                im->device.reset(n);
                                return im;
                              });
}

}  // namespace

BlankingDraft::BlankingDraft(std::shared_ptr<CodeImages> images, const float* value,
                             const float* cvalue, int64_t pixels, float threshold,
                             const float* pixel_threshold)
    : images_(std::move(images)),
      value_(value),
      cvalue_(cvalue),
      pixels_(pixels),
      threshold_(threshold),
      pixel_threshold_(pixel_threshold) {}

BlankingDraft::~BlankingDraft() {
  // Kernels may still write the images, which go back to the pool with this draft.
  if (added_ && images_) last_.synchronize();
}

void BlankingDraft::add(cudaStream_t stream, const int32_t* index, const int64_t* offset,
                        size_t first, size_t n) {
  if (first != added_)
    throw Error("internal: BlankingDraft::add given objects from " + std::to_string(first) +
                ", expected " + std::to_string(added_));
  if (added_ == 0) {
    detected_codes(value_, cvalue_, threshold_, pixels_, images_->device.data(), stream,
                   pixel_threshold_);
  } else {
    // The adds before (perhaps on another stream) first: the detected pixels' pass leads.
    CELERIS_CUDA_CHECK(cudaStreamWaitEvent(stream, last_.get(), 0));
  }
  object_codes(index, offset, static_cast<int64_t>(n), static_cast<int64_t>(first),
               images_->device.data(), stream);
  last_.record(stream);
  added_ += n;
}

int32_t* BlankingDraft::device() const {
  return images_ ? images_->device.data() : nullptr;
}

void BlankingDraft::wait_on(cudaStream_t stream) const {
  CELERIS_CUDA_CHECK(cudaStreamWaitEvent(stream, last_.get(), 0));
}

std::shared_ptr<CodeImages> BlankingDraft::finish(cudaStream_t stream) {
  if (added_) CELERIS_CUDA_CHECK(cudaStreamWaitEvent(stream, last_.get(), 0));
  added_ = 0;  // the images are the caller's now
  return std::move(images_);
}

std::shared_ptr<BlankingDraft> blanking_draft(const float* value, const float* cvalue,
                                              int64_t width, int64_t height, float threshold,
                                              const float* pixel_threshold) {
  cuda::cuda_require_device("--device cuda");
  const size_t n = static_cast<size_t>(width * height);
  return std::make_shared<BlankingDraft>(take_images(n), value, cvalue, static_cast<int64_t>(n),
                                         threshold, pixel_threshold);
}

std::shared_ptr<const DeviceCodes> blanking_codes(const std::shared_ptr<BlankingDraft>& draft,
                                                  int64_t width, const ObjectList& objects,
                                                  const std::vector<CleanVictim>& removed,
                                                  int blank_lag, int threads) {
  if (!draft) throw Error("internal: blanking_codes given no draft");
  if (draft->added() != objects.size() || objects.size() == 0)  // not every object's codes drafted
    return blanking_codes(draft->value(), draft->cvalue(), width, draft->pixels() / width,
                          draft->threshold(), objects, removed, blank_lag, threads,
                          draft->pixel_threshold());
  Context& c = context();
  const OwnedCodes owned(objects, removed, blank_lag, false);
  // The objects merged away, each once (an object's last entry), and where their pixels go.
  const std::vector<int64_t>& victim_of = owned.victim_of();
  std::vector<size_t> merged;
  std::vector<int64_t> at(1, 0);
  for (size_t v = 0; v < removed.size(); ++v) {
    const size_t k = removed[v].object;
    if (victim_of[k] != static_cast<int64_t>(v)) continue;
    merged.push_back(k);
    at.push_back(at.back() + static_cast<int64_t>(objects.count(k)));
  }
  const int64_t m = at.back();
  const int64_t pixels = draft->pixels();
  std::lock_guard<std::mutex> lock(c.busy);
  OwnedCode* staged = c.staged.grow(static_cast<size_t>(m));
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (size_t j = 0; j < merged.size(); ++j) {
    pack_victim(objects, removed[static_cast<size_t>(victim_of[merged[j]])], width, owned,
                staged + at[j]);
  }
  const cudaStream_t s = c.stream.get();
  std::shared_ptr<CodeImages> images = draft->finish(s);
  OwnedCode* d_owned = c.owned.grow(static_cast<size_t>(m));
  c.owned.upload_async(staged, static_cast<size_t>(m), s);
  owned_codes(d_owned, m, images->device.data(), s);
  c.stream.synchronize();
  return std::make_shared<GpuCodes>(std::move(images), static_cast<size_t>(pixels));
}

struct CodesBesidePass::State {
  // The draft until finish(), its images after: objects may still be added to it while the pass
  // runs (the back end in chunks), each merge waiting for the adds made before it.
  std::shared_ptr<BlankingDraft> draft;
  int32_t* device = nullptr;
  std::shared_ptr<CodeImages> images;
  std::shared_ptr<MergeBuffers> buffers;
  int64_t width;
  int64_t pixels;
  // victim_code's answers, which read only their arguments and blank_lag (not the objects or
  // merges it was made with).
  std::vector<CleanVictim> none;
  OwnedCodes owned;
  int64_t packed = 0;  // of buffers' OwnedCodes, used by the merges so far

  State(std::shared_ptr<BlankingDraft> d, std::shared_ptr<MergeBuffers> b, const ObjectList& o,
        int64_t width, int64_t pixels, int blank_lag)
      : draft(std::move(d)),
        device(draft->device()),
        buffers(std::move(b)),
        width(width),
        pixels(pixels),
        owned(o, none, blank_lag, false) {}
};

CodesBesidePass::CodesBesidePass(std::unique_ptr<State> state) : state_(std::move(state)) {}

CodesBesidePass::~CodesBesidePass() {
  // Its copies and kernels may still read the buffers, which go back to the pool.
  if (state_ && state_->buffers) state_->buffers->stream.synchronize();
}

const int32_t* CodesBesidePass::device() const {
  return state_->device;
}

void CodesBesidePass::merge(const ObjectList& objects, const CleanVictim* victims, size_t count,
                            cuda::StreamHandle stream) {
  State& st = *state_;
  MergeBuffers& b = *st.buffers;
  const int64_t first = st.packed;
  for (size_t j = 0; j < count; ++j) st.packed += objects.count(victims[j].object);
  if (st.packed > static_cast<int64_t>(b.staged.size()))
    throw Error("internal: CodesBesidePass given more merged pixels than the objects hold");
  OwnedCode* out = b.staged.data() + first;
  for (size_t j = 0; j < count; ++j)
    out = pack_victim(objects, victims[j], st.width, st.owned, out);
  const int64_t m = st.packed - first;
  // The victims' own codes first (their adds were made before the pass took them); after
  // finish() the draft's adds are all behind this stream already.
  if (st.draft) st.draft->wait_on(b.stream);
  if (m > 0) {
    b.owned.upload_async(b.staged.data() + first, static_cast<size_t>(m), b.stream,
                         static_cast<size_t>(first));
    owned_codes(b.owned.data() + first, m, st.device, b.stream);
  }
  b.merged.record(b.stream);
  CELERIS_CUDA_CHECK(cudaStreamWaitEvent(stream, b.merged.get(), 0));
}

std::shared_ptr<const DeviceCodes> CodesBesidePass::finish(size_t objects) {
  State& st = *state_;
  // Every object's codes drafted (the stages before the pass added them all), or none of this
  // is the frame's blanking.
  if (st.draft->added() != objects)
    throw Error("internal: the blanking draft holds " + std::to_string(st.draft->added()) +
                " objects' codes of " + std::to_string(objects));
  st.images = st.draft->finish(st.buffers->stream);
  st.draft.reset();
  st.buffers->stream.synchronize();
  return std::make_shared<GpuCodes>(st.images, static_cast<size_t>(st.pixels));
}

std::unique_ptr<CodesBesidePass> codes_beside_pass(const std::shared_ptr<BlankingDraft>& draft,
                                                   int64_t width, const ObjectList& objects,
                                                   int blank_lag) {
  cuda::cuda_require_device("--device cuda");
  if (!draft || draft->added() == 0 || objects.size() == 0) return nullptr;
  Context& c = context();
  // Every object's pixels at most (each is merged away at most once): the detections' pixels,
  // which the objects share out (with chunks, objects.offset is filled chunk by chunk and its
  // last entry may still be 0 here).
  const size_t m = objects.pixel_count();
  std::shared_ptr<MergeBuffers> buffers =
      c.merges.take([&](const MergeBuffers& b) { return b.staged.size() >= m; },
                    [] { return std::make_unique<MergeBuffers>(); });
  buffers->staged.grow(m);
  buffers->owned.grow(m);
  const int64_t pixels = draft->pixels();
  return std::make_unique<CodesBesidePass>(std::make_unique<CodesBesidePass::State>(
      draft, std::move(buffers), objects, width, pixels, blank_lag));
}

std::shared_ptr<const DeviceCodes> blanking_codes(const float* value, const float* cvalue,
                                                  int64_t width, int64_t height, float threshold,
                                                  const ObjectList& objects,
                                                  const std::vector<CleanVictim>& removed,
                                                  int blank_lag, int threads,
                                                  const float* pixel_threshold) {
  cuda::cuda_require_device("--device cuda");
  Context& c = context();
  const size_t n = static_cast<size_t>(width * height);
  std::shared_ptr<CodeImages> images = take_images(n);
  const int64_t m = objects.offset.empty() ? 0 : objects.offset.back();
  std::lock_guard<std::mutex> lock(c.busy);
  OwnedCode* staged = c.staged.grow(static_cast<size_t>(m));
  const OwnedCodes owned(objects, removed, blank_lag, false);
  owned.for_each(threads, [&](int64_t i, int32_t code) {
    staged[i] = {static_cast<int32_t>(int64_t(objects.y[i]) * width + objects.x[i]), code};
  });
  const cudaStream_t s = c.stream.get();
  OwnedCode* d_owned = c.owned.grow(static_cast<size_t>(m));
  c.owned.upload_async(staged, static_cast<size_t>(m), s);
  blanking_codes(value, cvalue, threshold, static_cast<int64_t>(n), d_owned, m,
                 images->device.data(), s, pixel_threshold);
  c.stream.synchronize();
  return std::make_shared<GpuCodes>(std::move(images), n);
}

}  // namespace celeris::extract::gpu
