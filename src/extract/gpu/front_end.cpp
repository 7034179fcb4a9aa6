// The GPU front end's driver (front_end.hpp): the contexts (a stream and buffers reused from
// frame to frame, two frames at once at most), the order of the kernels on its stream, the small
// CPU steps between them (the mesh grid's finish, the CPU path's own functions, on the host
// beside the device's copy of it: gpu/background_finish.hpp) and the gathering of the detections'
// pixel values on the host.
#include "extract/gpu/front_end.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "celeris/error.hpp"
#include "core/cuda/buffer_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/stored_pixels.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/background_rows.hpp"
#include "extract/gpu/chain_kernels.hpp"
#include "extract/gpu/deblend_trees_gpu.hpp"
#include "extract/gpu/detections_from_chains.hpp"
#include "extract/gpu/device_memory_plan.hpp"
#include "extract/gpu/kernels.hpp"
#include "extract/gpu/peak_kernels.hpp"
#include "extract/stages/detect.hpp"

namespace celeris::extract::gpu {

namespace {

enum Mark {
  kStart,
  kUploaded,
  kMeshKernels,
  kMeshes,
  kMapReady,
  kSubtracted,
  kFiltered,
  kLabelled,
  kSorted,
  kChained,
  kMarks
};

// Strips of a host frame's upload. H200, crowded 4096^2 (stop 35): the whole upload, then the
// mesh kernels, took 1.3 + 1.6 ms; in four strips the kernels add 1.2 ms after the upload (a
// strip's kernels are slower than a fourth of the frame's, and they are the longer chain).
constexpr int kUploadStrips = 4;

// A frame's two images, on the device and (page-locked, so that the download runs at the bus's
// speed) on the host. Allocating them costs more than a frame's work, so they are pooled: a
// FrontEnd holds one set and gives it back when its last copy goes (possibly on another
// thread, after the CPU stages, which may read the device images too: the GPU's blanking and
// photometry).
struct FrameImages {
  cuda::DeviceBuffer<float> image;  // the frame as uploaded, then the detection image
  cuda::DeviceBuffer<float> value;  // the background-subtracted image
  cuda::PinnedBuffer<float> host_value, host_filtered;
  // Recorded after the host copies' download; waited for before the buffers are used again
  // (a frame whose download was left running, front_end's defer_host_images).
  cuda::OrderEvent downloaded;

  bool fits(size_t n) const {
    return image.size() >= n && value.size() >= n && host_value.size() >= n;
  }
};

// Everything one frame after another reuses: a stream, its buffers and their page-locked
// host copies. Not destroyed at exit (its CUDA resources would outlive the runtime's
// teardown); front_end() holds one for the whole of a frame (contexts()).
struct Context {
  cuda::Stream stream;
  cuda::Stream copies;  // the images' download, beside the labelling
  cuda::OrderEvent filtered;
  cuda::EventTimer timer{kMarks};
  BackgroundRows rows;  // rows.back receives the mesh statistics' modes
  cuda::DeviceBuffer<float> sigma, kernel, gathered;
  cuda::DeviceBuffer<unsigned char> mesh_scratch, comp_scratch;
  cuda::DeviceBuffer<int32_t> parent, count, last, pixels, keys, chained, offsets;
  cuda::DeviceBuffer<uint8_t> peaks;
  ChainWork chains;
  cuda::MappedValues<int64_t> readback{1};  // the kept pixels' count
  cuda::DeviceBuffer<unsigned long long> counter;
  cuda::PinnedBuffer<unsigned long long> host_counter;
  // A host frame's upload in strips, the meshes' kernels on a stream of their own.
  cuda::Stream meshes;
  cuda::OrderEvent strip_up[kUploadStrips];
  cuda::OrderEvent meshes_done;
  // The meshes' statistics (modes, then sigmas) as they come back for the host's finish.
  cuda::PinnedBuffer<float> staged_meshes;
  cuda::OrderEvent meshes_down;
  // The detections as they come back (their pixels in DetectionPixels): the components' ends
  // and offsets, the peaks.
  cuda::PinnedBuffer<int32_t> host_ends, host_offsets;
  cuda::PinnedBuffer<uint8_t> host_peaks;
  // A frame in bands: the least first row of the components on a band's last row.
  cuda::DeviceBuffer<int32_t> top;
  cuda::PinnedBuffer<int32_t> host_top;
};

// Rows [y0, y0 + rows) of the frame's images (`value` and `cvalue` point at row y0; a frame at
// once is one such band): labelled, their components of DETECT_MINAREA pixels or more selected
// in completion order and chained in SExtractor's order (chain_order.hpp), on c's stream, the
// timer's kLabelled, kSorted and kChained marked; with `top`, the least first row of the
// components on the rows' last row into it (last_row_top). Waits for the counts.
struct Chained {
  int64_t pixels = 0, components = 0;
};

Chained chain_rows(Context& c, const float* value, const float* cvalue, float thresh, int w,
                   int rows, int minarea, int32_t* top) {
  const cudaStream_t s = c.stream.get();
  const int64_t n = static_cast<int64_t>(w) * rows;
  const size_t nz = static_cast<size_t>(n);
  label(value, cvalue, thresh, w, rows, c.parent.grow(nz), c.count.grow(nz), c.last.grow(nz), s);
  c.timer.mark(kLabelled, s);
  if (top) last_row_top(c.parent.data(), w, rows, top, s);
  c.comp_scratch.grow(component_scratch_bytes(n));
  // count's and last's roles end in sorted_components; parent is read there too.
  const int64_t kept =
      sorted_components(c.parent.data(), c.count.data(), c.last.data(), n, minarea,
                        c.comp_scratch.data(), c.pixels.grow(nz), c.keys.grow(nz), c.readback, s);
  c.timer.mark(kSorted, s);
  const int64_t ncomp = chain_components(c.pixels.data(), c.keys.data(), kept, w, c.chains,
                                         c.chained.grow(static_cast<size_t>(kept)),
                                         c.offsets.grow(static_cast<size_t>(kept) + 1), s);
  c.timer.mark(kChained, s);
  return {kept, ncomp};
}

// The chained pixels of chain_rows' rows: their values and coordinates, each component's end
// (frame rows, from y0 of a frame of h rows) and peaks made on the device. The labels' buffers
// are free since sorted_components and each holds a word per pixel of the rows: enough for the
// pixels' x (count), y (last) and the components' ends (parent). Returns them as the deblending's
// candidates are prepared from them (deblend_trees_gpu.hpp).
DeviceDetections gather_chained(Context& c, const float* value, const float* cvalue, float thresh,
                                int w, int rows, int y0, int h, Chained chained) {
  const cudaStream_t s = c.stream.get();
  const size_t m = static_cast<size_t>(chained.pixels),
               nc = static_cast<size_t>(chained.components);
  float* gathered = c.gathered.grow(2 * m);
  gather_values(c.chained.data(), chained.pixels, value, cvalue, w, gathered, gathered + m,
                c.count.data(), c.last.data(), s);
  component_ends(c.chained.data(), c.offsets.data(), chained.components, w, h, c.parent.data(), s,
                 y0);
  count_peaks(c.chained.data(), c.offsets.data(), chained.components, value, cvalue, thresh, w,
              rows, c.peaks.grow(nc), s);
  return {c.count.data(),   c.last.data(),  gathered, gathered + m,
          c.offsets.data(), c.peaks.data(), nc,       m};
}

// gather_chained's results' downloads queued: x and the rows' y to xy and xy + y_stride, the two
// images' values to `values` and values + chained.pixels, the ends, offsets and peaks to c's host
// buffers.
void download_chained(Context& c, Chained chained, int32_t* xy, size_t y_stride, float* values) {
  const cudaStream_t s = c.stream.get();
  const size_t m = static_cast<size_t>(chained.pixels),
               nc = static_cast<size_t>(chained.components);
  c.count.download_async(xy, m, s);
  c.last.download_async(xy + y_stride, m, s);
  c.parent.download_async(c.host_ends.grow(nc), nc, s);
  c.offsets.download_async(c.host_offsets.grow(nc + 1), nc + 1, s);
  c.gathered.download_async(values, 2 * m, s);
  if (nc) c.peaks.download_async(c.host_peaks.grow(nc), nc, s);
}

// The detections of a frame in bands of `band_rows` rows (Config::gpu_band_rows), its images
// (value, detection) whole on the device: each band [y0, y1) labelled alone, its components
// chained and gathered as a frame's at once are, and those it completes kept. Band k keeps the
// components that do not touch its last row (all of them in the last band) and, for k > 0, end
// on band k - 1's last row or below; band k + 1 starts at the first row of the highest component
// on band k's last row. Then every component of the frame is kept once, whole, and the bands'
// components, each in completion order, follow one another in the frame's (docs/architecture.md,
// "Frames larger than the device"). Fills out.detections, done_lines, peaks and, with
// `stack_bound`, pixel_stack_bound; returns its steps' seconds (the page-locked return buffer
// taken, the host's appends). Throws GpuBandsTooSmall when a component spans a whole band.
struct BandSeconds {
  double buffer = 0, appends = 0;
};

BandSeconds detect_in_bands(Context& c, const float* d_value, const float* d_cvalue, int w, int h,
                            int band_rows, const Config& config, bool stack_bound, int host_threads,
                            FrontEnd& out) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const cudaStream_t s = c.stream.get();
  const float thresh = out.detect_thresh;
  if (stack_bound) stack_rows_lit(d_cvalue, w, h, thresh, c.chains, s);
  const size_t nb = static_cast<size_t>(static_cast<int64_t>(w) * band_rows);
  int32_t* d_top = c.top.grow(1);
  int32_t* h_top = c.host_top.grow(1);
  BandSeconds seconds;
  // One page-locked return buffer for every band (a band keeps at most its pixels): the pool's
  // allocations cost milliseconds each.
  const auto t_buffer = Clock::now();
  const std::shared_ptr<DetectionPixels> pixels = take_detection_pixels(nb, 2);
  seconds.buffer = since(t_buffer);
  int32_t* xy = pixels->xy.data();
  float* values = pixels->values.data();
  int y0 = 0, prev_y1 = 0;
  for (int band = 0;; ++band) {
    const int y1 = static_cast<int>(std::min<int64_t>(h, int64_t{y0} + band_rows));
    const int hb = y1 - y0;
    const bool last_band = y1 == h;
    const float* value = d_value + static_cast<int64_t>(y0) * w;
    const float* cvalue = d_cvalue + static_cast<int64_t>(y0) * w;
    const Chained chained = chain_rows(c, value, cvalue, thresh, w, hb, config.detect_minarea,
                                       last_band ? nullptr : d_top);
    // This band's own components: their last rows (band rows) in [lo, hi].
    const int lo = band > 0 ? prev_y1 - 1 - y0 : 0, hi = last_band ? hb - 1 : hb - 2;
    if (stack_bound)
      stack_rows_freed(c.keys.data(), c.offsets.data(), chained.components, w, y0, lo, hi, h,
                       c.chains, s);
    gather_chained(c, value, cvalue, thresh, w, hb, y0, h, chained);
    download_chained(c, chained, xy, nb, values);
    if (!last_band) c.top.download_async(h_top, 1, s);
    c.stream.synchronize();
    const size_t m = static_cast<size_t>(chained.pixels),
                 nc = static_cast<size_t>(chained.components);
    const int32_t* ends = c.host_ends.data();
    // Completion order is by the last pixel: the band's own components are one run of them.
    auto last_row = [&](size_t k) { return (ends[k] < 0 ? ~ends[k] : ends[k]) - 1 - y0; };
    size_t c0 = 0;
    while (c0 < nc && last_row(c0) < lo) ++c0;
    size_t c1 = c0;
    while (c1 < nc && last_row(c1) <= hi) ++c1;
    const auto t_append = Clock::now();
    append_band_detections(out.detections, out.done_lines, xy, xy + nb, c.host_offsets.data(), ends,
                           c0, c1, values, values + m, y0, host_threads);
    out.peaks.insert(out.peaks.end(), c.host_peaks.data() + c0, c.host_peaks.data() + c1);
    seconds.appends += since(t_append);
    if (last_band) break;
    const int next = y0 + *h_top;
    if (next <= y0)
      throw GpuBandsTooSmall("a detection spans a whole band of " + std::to_string(band_rows) +
                             " rows (from row " + std::to_string(y0 + 1) + ")");
    prev_y1 = y1;
    y0 = next;
  }
  if (stack_bound) out.pixel_stack_bound = stack_rows_bound(w, h, c.chains, s);
  return seconds;
}

// Frames in the front end at once, each with a context of its own. Two, so that in a stream
// of frames one frame's upload and host steps (the mesh grid's finish, the waits for the
// downloads, the gather) run while the other's kernels do; the kernels of one frame fill the
// GPU, so a third brings nothing (a third caller waits). Contexts are made when first needed (a
// single-frame run makes one) and kept: the pool frees them only when a stream asks
// (release_idle_buffers; its limit is what it keeps) and is itself never destroyed.
// (device_memory_plan.hpp kFrontContexts: a stream's plan counts these.)
constexpr size_t kContexts = kFrontContexts;

cuda::BufferPool<Context>& contexts() {
  static auto* pool = new cuda::BufferPool<Context>(kContexts, kContexts);
  return *pool;
}

// Frames whose images are in use (device_memory_plan.hpp kPooledFrames kept).
cuda::BufferPool<FrameImages>& frame_images() {
  static auto* pool = new cuda::BufferPool<FrameImages>(kPooledFrames);
  return *pool;
}

}  // namespace

bool available() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

void release_idle_buffers() {
  // A pending download still writes a frame's page-locked images, and a context's streams may
  // still carry one: each waits for its own before it is freed.
  frame_images().drop_idle([](FrameImages& f) { f.downloaded.synchronize(); });
  release_idle_detection_pixels();
  contexts().drop_idle([](Context& c) {
    c.stream.synchronize();
    c.copies.synchronize();
    c.meshes.synchronize();
  });
}

int64_t frame_image_bytes(int64_t pixels) {
  return 2 * int64_t{sizeof(float)} * std::max<int64_t>(pixels, 0);
}

int64_t frame_device_bytes(int64_t pixels) {
  return banded_frame_device_bytes(pixels, pixels);
}

int64_t banded_frame_device_bytes(int64_t pixels, int64_t band_pixels) {
  // Beyond the kernels' 32-bit indexes a frame cannot be planned (nor CUB's scratch asked for).
  if (pixels > kMaxGpuPixels) return std::numeric_limits<int64_t>::max();
  const int64_t n = std::max<int64_t>(pixels, 0), b = std::clamp<int64_t>(band_pixels, 0, n);
  const int64_t words = 4 * n, band_words = 4 * b;           // a 4-byte word per pixel
  return frame_image_bytes(n)                                // the frame's two images
         + 3 * band_words                                    // labels: parent, count, last
         + 2 * band_words                                    // the components' pixels and keys
         + static_cast<int64_t>(component_scratch_bytes(b))  // their selection and sort
         + 2 * band_words + 4                                // the chains and their offsets
         + 2 * band_words                                    // the gathered values (two a pixel)
         + b                                                 // the peaks (a byte per detection)
         + words + 2 * words;  // the blanking codes and the owned pixels' (pixel, code) pairs
}

int64_t detection_band_rows(int64_t width, int64_t height, int64_t fronts, int64_t back_frames,
                            int64_t device_bytes) {
  const int64_t pixels = width * height;
  if (pixels > kMaxGpuPixels || width <= 0 || device_bytes <= 0) return 0;
  auto fits = [&](int64_t rows) {
    const int64_t needed = stream_device_bytes(banded_frame_device_bytes(pixels, width * rows),
                                               frame_image_bytes(pixels), fronts, back_frames);
    return static_cast<double>(needed) <= kUsableShare * static_cast<double>(device_bytes);
  };
  if (height <= kMinBandRows || !fits(kMinBandRows)) return 0;
  int64_t lo = kMinBandRows, hi = height;  // fits(lo); the answer is below hi
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

namespace {

// The current device's memory: {total, free} bytes ({0, 0} without a device).
std::pair<int64_t, int64_t> memory_info() {
  if (!available()) return {0, 0};
  size_t free_bytes = 0, total_bytes = 0;
  CELERIS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {static_cast<int64_t>(total_bytes), static_cast<int64_t>(free_bytes)};
}

}  // namespace

int64_t device_memory_bytes() {
  // Asked once: the process uses one device, whose memory does not change.
  static const int64_t total = memory_info().first;
  return total;
}

int64_t device_memory_in_use() {
  const auto [total, free_bytes] = memory_info();
  return total - free_bytes;
}

namespace {

// The frame's pixels: in host memory (`host`) or already on the device (`device`).
// Host pixels may be as the file stores them (`stored`): finished on the device, strip by strip.
struct Pixels {
  const float* host = nullptr;
  const float* device = nullptr;
  int64_t width = 0, height = 0;
  StoredPixels stored;
};

FrontEnd run(const Pixels& image, const Config& config, const FilterParams& filter,
             int host_threads, bool host_filtered, bool defer_host_images) {
  cuda::cuda_require_device("--device cuda");
  const int w = static_cast<int>(image.width), h = static_cast<int>(image.height);
  const int64_t n = image.width * image.height;
  if (n >= (int64_t{1} << 31))
    throw Error("--device cuda: frames of 2^31 pixels or more are not supported yet");
  FrontEnd out;
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const auto t_setup = Clock::now();
  const std::shared_ptr<Context> held = contexts().take([](const Context&) { return true; },
                                                        [] { return std::make_unique<Context>(); });
  Context& c = *held;
  const cudaStream_t s = c.stream.get();
  cuda::EventTimer& timer = c.timer;
  const size_t nz = static_cast<size_t>(n);
  const bool download_filtered = config.filter && host_filtered;
  std::shared_ptr<FrameImages> frame =
      frame_images().take([&](const FrameImages& f) { return f.fits(nz); },
                          [&] {
                            auto f = std::make_unique<FrameImages>();
                            f->image.reset(nz);
                            f->value.reset(nz);
                            f->host_value.reset(nz);
                            return f;
                          });
  // A frame dropped before its deferred download ended: that download still writes these.
  frame->downloaded.synchronize();
  if (download_filtered) frame->host_filtered.grow(nz);
  float* d_image = frame->image.data();
  float* d_value = frame->value.data();
  const double setup = seconds_since(t_setup);
  BackgroundMap& map = out.background;
  map = mesh_layout(w, h, config);
  const MeshGeometry g{w, h, map.mesh_w, map.mesh_h, map.nx, map.ny};
  const size_t meshes = map.back.size();
  c.mesh_scratch.grow(mesh_scratch_bytes(g));
  float* d_back = c.rows.back.grow(meshes);
  float* d_sigma = c.sigma.grow(meshes);
  timer.mark(kStart, s);
  // 1. Mesh statistics on the GPU.
  if (image.device) {
    // A device-resident frame: copied, since the filter's output reuses this buffer.
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(d_image, image.device,
                                       static_cast<size_t>(n) * sizeof(float),
                                       cudaMemcpyDeviceToDevice, s));
    timer.mark(kUploaded, s);
    mesh_statistics(d_image, g, c.mesh_scratch.data(), d_back, d_sigma, s);
  } else {
    // A host frame goes up in strips of mesh rows, each strip's meshes measured on a second
    // stream as soon as it is there: the kernels of one strip run while the next is copied.
    const int strips = std::max(1, std::min(map.ny, kUploadStrips));
    for (int k = 0; k < strips; ++k) {
      const int row0 = map.ny * k / strips, row1 = map.ny * (k + 1) / strips;
      const int64_t y0 = int64_t(row0) * map.mesh_h;
      const int64_t y1 = k + 1 == strips ? h : std::min<int64_t>(h, int64_t(row1) * map.mesh_h);
      const size_t first = static_cast<size_t>(y0 * w), count = static_cast<size_t>((y1 - y0) * w);
      const size_t bytes = static_cast<size_t>(image.stored.value_bytes());
      // 2-byte stored values go up packed into the value image's memory (free until the
      // subtraction): half the bytes. They are widened into the image on the meshes' stream.
      unsigned char* up = bytes == 4 ? reinterpret_cast<unsigned char*>(d_image)
                                     : reinterpret_cast<unsigned char*>(d_value);
      CELERIS_CUDA_CHECK(cudaMemcpyAsync(
          up + first * bytes, reinterpret_cast<const unsigned char*>(image.host) + first * bytes,
          count * bytes, cudaMemcpyHostToDevice, s));
      c.strip_up[k].record(s);
      c.meshes.wait(c.strip_up[k]);
      cuda::convert_stored(up + first * bytes, d_image + first, count, image.stored,
                           c.meshes.get());
      mesh_statistics(d_image, g, c.mesh_scratch.data(), d_back, d_sigma, c.meshes.get(), row0,
                      row1);
    }
    timer.mark(kUploaded, s);
    c.meshes_done.record(c.meshes.get());
    c.stream.wait(c.meshes_done);
  }
  timer.mark(kMeshKernels, s);
  // The valid pixels are counted here, on the device, for host frames too (extract_front
  // leaves that pass over host memory out when this path runs), and known at the wait below.
  count_valid(d_image, n, c.counter.grow(1), c.host_counter.grow(1), s);
  float* staged = c.staged_meshes.grow(2 * meshes);
  c.rows.back.download_async(staged, meshes, s);
  c.sigma.download_async(staged + meshes, meshes, s);
  c.meshes_down.record(s);
  // The host's finish of the grid (finish_background): the RMS grid, the global values, the
  // thresholds and the host's copy of the map come from it.
  double finish = 0;
  auto finish_on_host = [&] {
    c.meshes_down.synchronize();
    if (*c.host_counter.data() == 0)
      throw Error("all pixels are masked (NaN or BLANK): nothing to extract");
    std::copy(staged, staged + meshes, map.back.begin());
    std::copy(staged + meshes, staged + 2 * meshes, map.sigma.begin());
    const auto t_finish = Clock::now();
    finish_background(map, config);
    finish = seconds_since(t_finish);
  };
  // 2. The map's rows and the subtraction. Where the device finishes the grid of backgrounds
  // too (background_rows_on_device), the subtraction and the filter run while the host finishes
  // its own (about 0.2 ms of host work and the meshes' round trip off the frame's path); else
  // the host's grid goes up after its finish.
  const bool rows_on_device = background_rows_on_device(map, config);
  XWeights xw{};
  if (rows_on_device) {
    timer.mark(kMeshes, s);
    xw = finish_background_rows(map, g, config, c.rows, s);
  } else {
    finish_on_host();
    timer.mark(kMeshes, s);
    xw = upload_background_rows(map, g, c.rows, s);
  }
  timer.mark(kMapReady, s);
  subtract_background(d_image, c.rows.node.data(), c.rows.dnode.data(), xw, g, map.manual,
                      map.manual_value, d_value, s);
  timer.mark(kSubtracted, s);

  // 3. Filter (the subtracted image's buffer d_image is free now: it receives the filtered one).
  const float* d_cvalue = d_value;
  if (config.filter) {
    c.kernel.grow(filter.kernel.size());
    c.kernel.upload_async(filter.kernel.data(), filter.kernel.size(), s);
    gpu::filter(d_value, c.kernel.data(), filter.width, filter.height, w, h, d_image, s);
    d_cvalue = d_image;
  }
  timer.mark(kFiltered, s);
  if (rows_on_device) finish_on_host();  // beside the subtraction and the filter
  const Thresholds t = detection_thresholds(config, map.global_rms);
  out.detect_thresh = t.detect;
  out.analysis_thresh = t.analysis;
  // SExtractor's pixel stack (sextractor/pixel_stack.hpp) depends on the scan order, which the
  // labels do not give: an upper bound of what it holds is taken, and where that might
  // overflow, the frame is detected again on the host with the stack modelled (below).
  const bool stack_may_matter =
      config.memory_pixstack > 0 && static_cast<int64_t>(w) * h >= config.memory_pixstack - 1;
  // Where the bound says the stack may overflow: the frame detected again on the host.
  auto detect_on_host_if_the_stack_overflows = [&] {
    if (!stack_may_matter || out.pixel_stack_bound < config.memory_pixstack - 1) return;
    const auto t_detect = Clock::now();
    frame->downloaded.synchronize();      // the host's detection reads the value image
    if (out.filtered_on_device_only()) {  // the host's detection reads the detection image
      frame->host_filtered.grow(nz);
      frame->image.download(frame->host_filtered.data(), nz);
      out.filtered = {frame->host_filtered.data(), w, h};
    }
    std::vector<PixelStackOverflow> overflows;
    out.peaks.clear();  // counted for the labels' detections, not these
    out.prepared_trees.reset();
    out.done_lines.clear();
    out.detections =
        detect(out.value, out.detection_image(),
               {out.detect_thresh, config.detect_minarea, config.memory_pixstack}, &overflows);
    for (const PixelStackOverflow& o : overflows) out.warnings.push_back(pixel_stack_warning(o));
    out.stage_seconds.emplace_back("host detection (MEMORY_PIXSTACK may overflow)",
                                   seconds_since(t_detect));
  };
  // The images go back on the copy stream, beside the kernels after the filter (none writes
  // them) and after the detections' downloads where those are queued first.
  auto download_images = [&] {
    c.filtered.record(s);
    CELERIS_CUDA_CHECK(cudaStreamWaitEvent(c.copies.get(), c.filtered.get(), 0));
    frame->value.download_async(frame->host_value.data(), nz, c.copies.get());
    if (download_filtered)
      frame->image.download_async(frame->host_filtered.data(), nz, c.copies.get());
    frame->downloaded.record(c.copies.get());
  };
  auto images_out = [&] {
    if (defer_host_images)
      out.host_images_pending = [frame] { frame->downloaded.synchronize(); };
    else
      frame->downloaded.synchronize();
    out.value = {frame->host_value.data(), w, h};
    if (download_filtered) out.filtered = {frame->host_filtered.data(), w, h};
    out.device_value = d_value;
    out.device_cvalue = d_cvalue;
    out.storage = frame;
  };
  auto stages_so_far = [&]() -> std::vector<std::pair<std::string, double>> {
    return {{"gpu setup", setup},
            {image.device ? "gpu copy (device-resident frame)" : "gpu upload",
             timer.seconds(kStart, kUploaded)},
            {"gpu background meshes", timer.seconds(kUploaded, kMeshes)},
            {"  of which mesh kernels", timer.seconds(kUploaded, kMeshKernels)},
            {"host background map (finish_background)", finish},
            {"gpu map upload and rows", timer.seconds(kMeshes, kMapReady)},
            {"gpu subtract", timer.seconds(kMapReady, kSubtracted)},
            {"gpu filter", timer.seconds(kSubtracted, kFiltered)}};
  };

  // 4-6 for a frame in bands of rows (Config::gpu_band_rows): the images are back first.
  if (config.gpu_band_rows > 0 && config.gpu_band_rows < h) {
    download_images();
    const auto t_bands = Clock::now();
    const BandSeconds steps =
        detect_in_bands(c, d_value, d_cvalue, w, h, static_cast<int>(config.gpu_band_rows), config,
                        stack_may_matter, host_threads, out);
    const double bands = seconds_since(t_bands);
    images_out();
    out.stage_seconds = stages_so_far();
    out.stage_seconds.emplace_back(
        "gpu detection in bands of " + std::to_string(config.gpu_band_rows) + " rows", bands);
    out.stage_seconds.emplace_back("  of which the return buffer taken", steps.buffer);
    out.stage_seconds.emplace_back("  of which the host's appends", steps.appends);
    detect_on_host_if_the_stack_overflows();
    return out;
  }

  // 4-5. Labelling, the components in completion order, each one's pixels in SExtractor's chain
  // order (chain_order.hpp), on the device.
  const Chained chained =
      chain_rows(c, d_value, d_cvalue, out.detect_thresh, w, h, config.detect_minarea, nullptr);
  const int64_t kept = chained.pixels, ncomp = chained.components;
  double bound_seconds = 0;
  if (stack_may_matter) {
    const auto t_bound = Clock::now();
    out.pixel_stack_bound = gpu::pixel_stack_bound(d_cvalue, w, h, out.detect_thresh, c.keys.data(),
                                                   c.offsets.data(), ncomp, c.chains, s);
    bound_seconds = seconds_since(t_bound);
  }

  // 6. Back to the host: the chained pixels' coordinates and values, each component's end (the
  // images are on their way).
  const auto t_download = Clock::now();
  const size_t m = static_cast<size_t>(kept), nc = static_cast<size_t>(ncomp);
  const std::shared_ptr<DetectionPixels> pixels = take_detection_pixels(m, 2);
  int32_t* host_xy = pixels->xy.data();
  float* host_gathered = pixels->values.data();
  const DeviceDetections on_device =
      gather_chained(c, d_value, d_cvalue, out.detect_thresh, w, h, 0, h, chained);
  // The deblending's candidates prepared where the detections are, beside their download
  // (deblend_trees_gpu.hpp prepare_trees).
  std::unique_ptr<DeblendTreeBuilder> prepared;
  if (config.gpu_prepare_trees && config.deblend_nthresh >= 2 && !config.photo) {
    PreparedTrees p;
    p.detections = nc;
    p.nthresh = config.deblend_nthresh;
    p.minarea = std::min(config.detect_minarea, kDeblendMaxMinarea);
    p.mincont = config.deblend_mincont;
    p.t0 = out.detect_thresh;
    p.width = w;
    p.height = h;
    prepared = prepare_trees(on_device, p, s);
  }
  download_chained(c, chained, host_xy, m, host_gathered);
  // The images after those downloads: queued first, the image's 64 MB had held the detections'
  // lists behind it on the copy engine (stop 37). With defer_host_images they come down beside
  // the host gather and the stages after the front end.
  download_images();
  // The trees launched as soon as the candidates are prepared, beside the downloads.
  if (prepared) prepared->launch();
  c.stream.synchronize();
  out.prepared_trees = std::move(prepared);
  images_out();
  const double download = seconds_since(t_download);
  out.stage_seconds = stages_so_far();
  out.stage_seconds.insert(out.stage_seconds.end(),
                           {{"gpu label", timer.seconds(kFiltered, kLabelled)},
                            {"gpu components", timer.seconds(kLabelled, kSorted)},
                            {"gpu chains", timer.seconds(kSorted, kChained)}});
  if (stack_may_matter) out.stage_seconds.emplace_back("gpu pixel-stack bound", bound_seconds);
  const auto t_gather = Clock::now();
  out.detections =
      detections_from_chains(host_xy, host_xy + m, kept, c.host_offsets.data(), c.host_ends.data(),
                             nc, host_gathered, host_gathered + m, host_threads, out.done_lines,
                             config.gpu_lend_detection_pixels ? pixels : nullptr);
  if (nc) out.peaks.assign(c.host_peaks.data(), c.host_peaks.data() + nc);
  out.stage_seconds.emplace_back("gpu download wait", download);
  out.stage_seconds.emplace_back("host gather", seconds_since(t_gather));
  detect_on_host_if_the_stack_overflows();
  return out;
}

}  // namespace

FrontEnd front_end(ImageView<const float> image, const Config& config, const FilterParams& filter,
                   int host_threads, bool host_filtered, bool defer_host_images,
                   const StoredPixels& stored) {
  return run({image.data, nullptr, image.width, image.height, stored}, config, filter, host_threads,
             host_filtered, defer_host_images);
}

FrontEnd front_end(const DeviceImage& image, const Config& config, const FilterParams& filter,
                   int host_threads, bool host_filtered, bool defer_host_images) {
  return run(
      {nullptr, reinterpret_cast<const float*>(image.address()), image.width(), image.height(), {}},
      config, filter, host_threads, host_filtered, defer_host_images);
}

}  // namespace celeris::extract::gpu
