// The GPU's blanking codes (blanking_gpu.hpp): the objects' codes packed on the host threads
// into page-locked memory, one upload, two kernels; the codes' host copy made on demand.
#include "extract/gpu/blanking_gpu.hpp"

#include <atomic>
#include <mutex>

#include "core/cuda/buffer_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/blanking_kernels.hpp"

namespace celeris::extract::gpu {

namespace {

// One frame's codes, on the device and (once asked) on the host; pooled, since a stream of
// frames has several in flight.
struct CodeImages {
  cuda::DeviceBuffer<int32_t> device;
  cuda::PinnedBuffer<int32_t> host;
};

// Process-wide, never destroyed (its CUDA resources would outlive the runtime's teardown).
struct Context {
  std::mutex busy;  // the build: `stream`, `owned`, `staged`
  cuda::Stream stream;
  cuda::Stream copies;  // the host copies, any frame's, beside the builds
  cuda::DeviceBuffer<OwnedCode> owned;
  cuda::PinnedBuffer<OwnedCode> staged;
  cuda::BufferPool<CodeImages> codes{6};
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
  mutable cuda::Event copied_{false};
  mutable std::atomic<bool> copying_{false};
  mutable std::atomic<const int32_t*> ready_{nullptr};
};

}  // namespace

std::shared_ptr<const DeviceCodes> blanking_codes(const float* value, const float* cvalue,
                                                  int64_t width, int64_t height, float threshold,
                                                  const ObjectList& objects,
                                                  const std::vector<CleanVictim>& removed,
                                                  int blank_lag, int threads) {
  cuda::cuda_require_device("--device cuda");
  Context& c = context();
  const size_t n = static_cast<size_t>(width * height);
  std::shared_ptr<CodeImages> images =
      c.codes.take([&](const CodeImages& im) { return im.device.size() >= n; },
                   [&] {
                     auto im = std::make_unique<CodeImages>();
                     im->device.reset(n);
                     return im;
                   });
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
                 images->device.data(), s);
  c.stream.synchronize();
  return std::make_shared<GpuCodes>(std::move(images), n);
}

}  // namespace celeris::extract::gpu
