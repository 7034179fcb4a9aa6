// The GPU's weighted front end (weighted_front_end_gpu.hpp): the order of the kernels on one
// stream, the host steps between them (the mesh grid's finish, the map's scale, the list of the
// rows to interpolate) and the images' way back. The host's version, step for step:
// stages/weights_front_end.cpp (background_with, then weighted_front_end's one-image branch).
#include "extract/gpu/weighted_front_end_gpu.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "celeris/error.hpp"
#include "core/cuda/buffer_pool.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/staged_upload.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/background_rows.hpp"
#include "extract/gpu/detect_weighted_gpu.hpp"
#include "extract/gpu/device_memory_plan.hpp"
#include "extract/gpu/kernels.hpp"
#include "extract/gpu/weight_kernels.hpp"
#include "extract/sextractor/pixel_stack.hpp"
#include "extract/stages/detect.hpp"

namespace celeris::extract::gpu {

namespace {

// A frame's buffers: its six images on the device (the frame, the map as read, the variances,
// the subtracted image, the filtered image, the filtered variances then the thresholds), the
// four that come back, page-locked, and the steps' own. Held by the FrontEnd (its storage)
// until the frame's last stage: the photometry reads the value and variance images here.
struct Context {
  cuda::Stream stream;
  cuda::StagedUpload staging;
  cuda::DeviceBuffer<float> image, map, var, value, cvalue, cvar, sigma, kernel;
  BackgroundRows rows;
  cuda::DeviceBuffer<unsigned char> mesh_scratch;
  cuda::DeviceBuffer<uint8_t> row_bad;
  cuda::DeviceBuffer<int32_t> bad_rows, sources;
  cuda::PinnedBuffer<uint8_t> host_row_bad;
  cuda::PinnedBuffer<int32_t> host_bad_rows;
  cuda::PinnedBuffer<float> host_value, host_cvalue, host_var, host_thresh;
};

// One weighted frame at a time per context, as many as the GPU front end holds (the weighted
// frames of a run go one after another). Never destroyed (see front_end.cpp).
cuda::BufferPool<Context>& contexts() {
  static auto* pool = new cuda::BufferPool<Context>(kFrontContexts, kFrontContexts);
  return *pool;
}

}  // namespace

bool weighted_front_end_fits(const Config& config, bool dual_image) {
  const WeightType t = config.measure_weight.type;
  return !dual_image && !config.separate_weights && config.detect_weight.type == t &&
         (t == WeightType::MapRms || t == WeightType::MapVar || t == WeightType::MapWeight);
}

int64_t weighted_frame_device_bytes(int64_t pixels) {
  // The detection's own buffers (the GPU front end's plan, its two images among them) and this
  // context's six images: three frames' pairs (a sum that saturates).
  return stream_device_bytes(frame_device_bytes(pixels), frame_image_bytes(pixels), 1, 3);
}

FrontEnd weighted_front_end_gpu(ImageView<const float> image, ImageView<const float> map,
                                const Config& config, const FilterParams& filter, int threads,
                                WeightMaps& maps, bool host_filtered) {
  cuda::cuda_require_device("--device cuda");
  if (!weighted_front_end_fits(config, false))
    throw Error("internal: weighted_front_end_gpu given weights it does not take");
  require_map_size(map, image);
  const int64_t n = image.width * image.height;
  if (n > kMaxGpuPixels)
    throw Error("--device cuda: frames of 2^31 pixels or more are not supported yet");
  using Clock = std::chrono::steady_clock;
  FrontEnd out;
  auto t_step = Clock::now();
  auto lap = [&](const char* step) {
    const auto now = Clock::now();
    out.stage_seconds.emplace_back(step, std::chrono::duration<double>(now - t_step).count());
    t_step = now;
  };
  const WeightParams& mw = config.measure_weight;
  maps.measure = maps.detect = true;
  maps.wthresh = variance_threshold(mw);
  maps.dwthresh = variance_threshold(config.detect_weight);
  const MapKind kind = map_kind(mw.type);
  const int nt = std::max(1, threads);
  const int w = static_cast<int>(image.width), h = static_cast<int>(image.height);
  const size_t nz = static_cast<size_t>(n);

  const std::shared_ptr<Context> held = contexts().take([](const Context&) { return true; },
                                                        [] { return std::make_unique<Context>(); });
  Context& c = *held;
  const cudaStream_t s = c.stream.get();
  float* d_image = c.image.grow(nz);
  float* d_map = c.map.grow(nz);
  float* d_var = c.var.grow(nz);
  float* d_value = c.value.grow(nz);
  c.staging.upload(d_image, image.data, nz * sizeof(float), s, nt);
  c.staging.upload(d_map, map.data, nz * sizeof(float), s, nt);
  lap("gpu weighted: uploads");

  // 1. The background without the map's bad pixels (the masked image in the value buffer, free
  // until the subtraction), its meshes' statistics on the GPU, finished on the host.
  map_to_variance(d_map, kind, 1.0f, d_var, n, s);
  mask_bad_pixels(d_image, d_var, maps.wthresh, d_value, n, s);
  BackgroundMap& bkg = out.background;
  bkg = mesh_layout(w, h, config);
  const MeshGeometry g{w, h, bkg.mesh_w, bkg.mesh_h, bkg.nx, bkg.ny};
  const size_t meshes = bkg.back.size();
  c.mesh_scratch.grow(mesh_scratch_bytes(g));
  mesh_statistics(d_value, g, c.mesh_scratch.data(), c.rows.back.grow(meshes), c.sigma.grow(meshes),
                  s);
  c.rows.back.download_async(bkg.back.data(), meshes, s);
  c.sigma.download_async(bkg.sigma.data(), meshes, s);
  c.stream.synchronize();
  finish_background(bkg, config);
  lap("gpu weighted: background meshes");
  // MAP_VAR and MAP_WEIGHT: the map's scale to the image noise, from its own meshes (the
  // host's, on the frame as read), applied to the variances or to the global RMS.
  if (kind != MapKind::Rms) {
    const float sigfac = weight_scale_of_map(image, map, kind, maps.wthresh, bkg, config, threads);
    if (mw.rescale)
      map_to_variance(d_map, kind, sigfac * sigfac, d_var, n, s);
    else
      bkg.global_rms /= sigfac;  // back.c: field->backsig /= sigfac
    lap("host weighted: the map's scale");
  }

  // 2. The subtraction and the bad pixels' interpolation, on the rows that hold one.
  const XWeights xw = upload_background_rows(bkg, g, c.rows, s);
  subtract_background(d_image, c.rows.node.data(), c.rows.dnode.data(), xw, g, bkg.manual,
                      bkg.manual_value, d_value, s);
  if (mw.interpolate) {
    uint8_t* row_bad = c.row_bad.grow(static_cast<size_t>(h));
    mark_bad_rows(d_var, maps.wthresh, w, h, row_bad, s);
    uint8_t* host_row_bad = c.host_row_bad.grow(static_cast<size_t>(h));
    c.row_bad.download_async(host_row_bad, static_cast<size_t>(h), s);
    c.stream.synchronize();
    int32_t* list = c.host_bad_rows.grow(static_cast<size_t>(h));
    int nbad = 0;
    for (int y = 0; y < h; ++y)
      if (host_row_bad[y]) list[nbad++] = y;
    if (nbad) {
      c.bad_rows.grow(static_cast<size_t>(nbad));
      c.bad_rows.upload_async(list, static_cast<size_t>(nbad), s);
      interpolate_bad_rows(config.interp_image ? d_value : nullptr, d_var, maps.wthresh, w,
                           c.bad_rows.data(), nbad, mw.xlag, mw.ylag,
                           c.sources.grow(static_cast<size_t>(nbad) * w), s);
    }
  }
  // 3. The filter, and each pixel's threshold: DETECT_THRESH sigma of its variance, filtered as
  // the image is; a constant with THRESH_TYPE ABSOLUTE.
  const Thresholds t = detection_thresholds(config, bkg.global_rms);
  out.detect_thresh = t.detect;
  out.analysis_thresh = t.analysis;
  const float* d_cvalue = d_value;
  const float* d_thresh = nullptr;
  const bool relative = config.thresh_type == ThreshType::Relative;
  if (config.filter) {
    c.kernel.grow(filter.kernel.size());
    c.kernel.upload_async(filter.kernel.data(), filter.kernel.size(), s);
    gpu::filter(d_value, c.kernel.data(), filter.width, filter.height, w, h, c.cvalue.grow(nz), s);
    d_cvalue = c.cvalue.data();
  }
  if (relative) {
    float* cvar = c.cvar.grow(nz);
    if (config.filter)
      gpu::filter(d_var, c.kernel.data(), filter.width, filter.height, w, h, cvar, s, false);
    relative_thresholds(config.filter ? cvar : d_var, static_cast<float>(config.detect_thresh),
                        cvar, n, s);
    d_thresh = cvar;
  }
  c.stream.synchronize();
  lap("gpu weighted: subtract, interpolate, filter, thresholds");

  // 4. The detection (on its own context's stream), then the images' way back, which the host
  // stages before the measurement do not wait for: queued after the detection's lists (on the
  // copy engine, 256 MB of images ahead of them had held the lists back 3 ms), they come down
  // beside the deblending and cleaning (FrontEnd::host_images_pending).
  WeightedDetections d =
      detect_weighted_on_device(d_value, d_cvalue, d_thresh, d_var, w, h, t.detect, config, nt);
  for (auto& step : d.stage_seconds) out.stage_seconds.push_back(std::move(step));
  t_step = Clock::now();
  // The detection image and the thresholds come back only where the host reads them (and for
  // the host's detection, where SExtractor's pixel stack could overflow).
  const bool may_overflow =
      config.memory_pixstack > 0 && d.pixel_stack_bound >= config.memory_pixstack - 1;
  const bool host_detection_image = host_filtered || may_overflow;
  float* host_value = c.host_value.grow(nz);
  float* host_var = c.host_var.grow(nz);
  c.value.download_async(host_value, nz, s);
  c.var.download_async(host_var, nz, s);
  const bool filtered_down = config.filter && host_detection_image;
  const bool thresh_down = relative && host_detection_image;
  if (filtered_down) c.cvalue.download_async(c.host_cvalue.grow(nz), nz, s);
  if (thresh_down) c.cvar.download_async(c.host_thresh.grow(nz), nz, s);
  out.value = {host_value, w, h};
  if (filtered_down) out.filtered = {c.host_cvalue.data(), w, h};
  out.host_images_pending = [held] { held->stream.synchronize(); };
  // The variance and threshold maps are the frame's WeightMaps (which move with its FrontStage):
  // filled from the page-locked copies once these are down, by the caller (fill_weight_maps).
  const float detect = t.detect;
  out.fill_weight_maps = [held, w, h, nz, relative, detect, host_detection_image](
                             WeightMaps& filled, int nt) {
    held->stream.synchronize();
    filled.var = Image<float>::uninitialized(w, h);
    cuda::copy_in_slices(filled.var.data(), held->host_var.data(), nz * sizeof(float), nt);
    if (!host_detection_image) return;
    filled.thresh = Image<float>::uninitialized(w, h);
    if (relative) {
      cuda::copy_in_slices(filled.thresh.data(), held->host_thresh.data(), nz * sizeof(float), nt);
    } else {
      float* th = filled.thresh.data();
      const int64_t n = static_cast<int64_t>(nz);
#pragma omp parallel for schedule(static) num_threads(nt)
      for (int64_t i = 0; i < n; ++i) th[i] = detect;
    }
  };
  lap("gpu weighted: downloads queued");

  out.device_value = d_value;
  out.device_cvalue = d_cvalue;
  out.device_var = d_var;
  out.device_thresh = d_thresh;
  out.pixel_stack_bound = d.pixel_stack_bound;
  if (!may_overflow) {
    out.detections = std::move(d.detections);
    out.done_lines = std::move(d.done_lines);
  } else {
    // SExtractor's pixel stack could overflow: the host's detection, which models it.
    out.wait_for_host_images();
    out.fill_weight_maps(maps, nt);
    std::vector<PixelStackOverflow> overflows;
    out.detections =
        detect_weighted(out.value, out.detection_image(), maps.thresh.view(), maps.var.view(),
                        {t.detect, config.detect_minarea, config.memory_pixstack}, &overflows);
    for (const PixelStackOverflow& o : overflows) out.warnings.push_back(pixel_stack_warning(o));
    lap("host detection (MEMORY_PIXSTACK may overflow)");
  }
  out.storage = held;  // the views and device images above are this context's
  return out;
}

}  // namespace celeris::extract::gpu
