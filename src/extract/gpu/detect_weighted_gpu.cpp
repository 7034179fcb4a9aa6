// Detection with weight maps on the GPU (detect_weighted_gpu.hpp): the host's images go up, the
// front end's kernels (label, sorted_components, chain_components, the gathers) run on them with
// each pixel's threshold, and the detections come back with each pixel's variance and threshold.
#include "extract/gpu/detect_weighted_gpu.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "core/cuda/buffer_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/read_back.hpp"
#include "core/cuda/staged_upload.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/chain_kernels.hpp"
#include "extract/gpu/detections_from_chains.hpp"
#include "extract/gpu/device_memory_plan.hpp"
#include "extract/gpu/kernels.hpp"

namespace celeris::extract::gpu {

namespace {

// A stream and the buffers one weighted frame after another reuses (grown as frames need).
struct Context {
  cuda::Stream stream;
  cuda::DeviceBuffer<float> value, cvalue, thresh, var, gathered;
  cuda::DeviceBuffer<unsigned char> comp_scratch;
  cuda::DeviceBuffer<int32_t> parent, count, last, pixels, keys, chained, offsets;
  ChainWork chains;
  cuda::MappedValues<int64_t> readback{1};              // the kept pixels' count
  cuda::PinnedBuffer<int32_t> host_ends, host_offsets;  // the pixels: DetectionPixels
  cuda::StagedUpload staging;                           // the host's images, from pageable memory
};

// As many frames at once as the GPU front end holds (device_memory_plan.hpp kFrontContexts: a
// stream's plan counts that many frames in the front stages). Never destroyed (see front_end.cpp).
cuda::BufferPool<Context>& contexts() {
  static auto* pool = new cuda::BufferPool<Context>(kFrontContexts, kFrontContexts);
  return *pool;
}

std::shared_ptr<Context> take_context() {
  return contexts().take([](const Context&) { return true; },
                         [] { return std::make_unique<Context>(); });
}

const float* upload(Context& c, cuda::DeviceBuffer<float>& d, ImageView<const float> image,
                    size_t n, cudaStream_t s, int threads) {
  if (!image.data) return nullptr;
  float* p = d.grow(n);
  c.staging.upload(p, image.data, n * sizeof(float), s, threads);
  return p;
}

// The detection on images on the device (`value` ... `var` as detect_weighted_gpu's, device
// pointers), on the context's stream.
WeightedDetections detect_on_device(Context& c, const float* d_value, const float* d_cvalue,
                                    const float* d_thresh, const float* d_var, int w, int h,
                                    float threshold, const Config& config, int host_threads) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  WeightedDetections out;
  const cudaStream_t s = c.stream.get();
  const int64_t n = int64_t{w} * h;
  const size_t nz = static_cast<size_t>(n);
  label(d_value, d_cvalue, threshold, w, h, c.parent.grow(nz), c.count.grow(nz), c.last.grow(nz), s,
        d_thresh);
  c.comp_scratch.grow(component_scratch_bytes(n));
  const int64_t kept =
      sorted_components(c.parent.data(), c.count.data(), c.last.data(), n, config.detect_minarea,
                        c.comp_scratch.data(), c.pixels.grow(nz), c.keys.grow(nz), c.readback, s);
  const int64_t ncomp = chain_components(c.pixels.data(), c.keys.data(), kept, w, c.chains,
                                         c.chained.grow(static_cast<size_t>(kept)),
                                         c.offsets.grow(static_cast<size_t>(kept) + 1), s);
  // SExtractor's pixel stack, as the GPU front end bounds it, with each pixel's threshold.
  if (config.memory_pixstack > 0 && n >= config.memory_pixstack - 1)
    out.pixel_stack_bound = pixel_stack_bound(d_cvalue, w, h, threshold, c.keys.data(),
                                              c.offsets.data(), ncomp, c.chains, s, d_thresh);

  // The chained pixels' coordinates (into count and last, free since sorted_components) and the
  // four images' values there; each component's end (into parent).
  const size_t m = static_cast<size_t>(kept), nc = static_cast<size_t>(ncomp);
  float* gathered = c.gathered.grow(4 * m);
  gather_values(c.chained.data(), kept, d_value, d_cvalue, w, gathered, gathered + m,
                c.count.data(), c.last.data(), s);
  if (d_var) gather_image(c.chained.data(), kept, d_var, gathered + 2 * m, s);
  if (d_thresh) gather_image(c.chained.data(), kept, d_thresh, gathered + 3 * m, s);
  component_ends(c.chained.data(), c.offsets.data(), ncomp, w, h, c.parent.data(), s);
  const std::shared_ptr<DetectionPixels> pixels = take_detection_pixels(m, 4);
  int32_t* host_xy = pixels->xy.data();
  int32_t* host_ends = c.host_ends.grow(nc);
  int32_t* host_offsets = c.host_offsets.grow(nc + 1);
  float* host_gathered = pixels->values.data();
  c.count.download_async(host_xy, m, s);
  c.last.download_async(host_xy + m, m, s);
  c.parent.download_async(host_ends, nc, s);
  c.offsets.download_async(host_offsets, nc + 1, s);
  c.gathered.download_async(host_gathered, 4 * m, s);
  c.stream.synchronize();
  out.stage_seconds.emplace_back("gpu weighted detection (labels, chains, downloads)", since(t0));

  const auto t_gather = Clock::now();
  const bool lend = config.gpu_lend_detection_pixels;
  out.detections = detections_from_chains(host_xy, host_xy + m, kept, host_offsets, host_ends, nc,
                                          host_gathered, host_gathered + m, host_threads,
                                          out.done_lines, lend ? pixels : nullptr);
  // Each pixel's variance (0 without a map) and threshold, as detect_weighted() gives them: the
  // gathered ones lent as the other columns are, else filled.
  ObjectList& d = out.detections;
  d.pixel_weights = true;
  float* gvar = host_gathered + 2 * m;
  float* gthresh = host_gathered + 3 * m;
  const bool lend_var = lend && d_var, lend_thresh = lend && d_thresh;
  if (lend_var)
    lend_column(d.var, gvar, m, pixels);
  else
    d.var.resize(m);
  if (lend_thresh)
    lend_column(d.dthresh, gthresh, m, pixels);
  else
    d.dthresh.resize(m);
  if (!lend_var || !lend_thresh) {
#pragma omp parallel for schedule(static) num_threads(host_threads)
    for (size_t i = 0; i < m; ++i) {
      if (!lend_var) d.var[i] = d_var ? gvar[i] : 0.0f;
      if (!lend_thresh) d.dthresh[i] = d_thresh ? gthresh[i] : threshold;
    }
  }
  out.stage_seconds.emplace_back("host gather", since(t_gather));
  return out;
}

}  // namespace

WeightedDetections detect_weighted_gpu(ImageView<const float> value, ImageView<const float> cvalue,
                                       ImageView<const float> thresh, ImageView<const float> var,
                                       float threshold, const Config& config, int host_threads) {
  cuda::cuda_require_device("--device cuda");
  const int64_t n = value.width * value.height;
  if (n > kMaxGpuPixels)
    throw Error("--device cuda: frames of 2^31 pixels or more are not supported yet");
  for (const ImageView<const float>& other : {cvalue, thresh, var})
    if (other.data && (other.width != value.width || other.height != value.height))
      throw Error("internal: detect_weighted_gpu given images of different sizes");
  const auto t0 = std::chrono::steady_clock::now();
  const std::shared_ptr<Context> held = take_context();
  Context& c = *held;
  const cudaStream_t s = c.stream.get();
  const size_t nz = static_cast<size_t>(n);
  const int nt = std::max(1, host_threads);
  const float* d_value = upload(c, c.value, value, nz, s, nt);
  const float* d_cvalue =
      cvalue.data && cvalue.data != value.data ? upload(c, c.cvalue, cvalue, nz, s, nt) : d_value;
  const float* d_thresh = upload(c, c.thresh, thresh, nz, s, nt);
  const float* d_var = upload(c, c.var, var, nz, s, nt);
  const double queued =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  WeightedDetections out =
      detect_on_device(c, d_value, d_cvalue, d_thresh, d_var, static_cast<int>(value.width),
                       static_cast<int>(value.height), threshold, config, host_threads);
  out.stage_seconds.insert(out.stage_seconds.begin(), {"gpu weighted uploads (queued)", queued});
  return out;
}

WeightedDetections detect_weighted_on_device(const float* value, const float* cvalue,
                                             const float* thresh, const float* var, int64_t width,
                                             int64_t height, float threshold, const Config& config,
                                             int host_threads) {
  cuda::cuda_require_device("--device cuda");
  if (width * height > kMaxGpuPixels)
    throw Error("--device cuda: frames of 2^31 pixels or more are not supported yet");
  const std::shared_ptr<Context> held = take_context();
  return detect_on_device(*held, value, cvalue ? cvalue : value, thresh, var,
                          static_cast<int>(width), static_cast<int>(height), threshold, config,
                          host_threads);
}

}  // namespace celeris::extract::gpu
