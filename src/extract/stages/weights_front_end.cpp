#include "extract/stages/weights_front_end.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "celeris/error.hpp"
#include "extract/gpu/detect_weighted_gpu.hpp"
#include "extract/gpu/device_memory_plan.hpp"
#include "extract/gpu/weighted_front_end_gpu.hpp"
#include "extract/stages/detect.hpp"
#include "extract/stages/dual_image.hpp"

namespace celeris::extract {

namespace {

Image<float> copy_of(ImageView<const float> v, int threads) {
  Image<float> out = Image<float>::uninitialized(v.width, v.height);
  float* o = out.data();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < v.size(); ++i) o[i] = v.data[i];
  return out;
}

bool reads_map(WeightType t) {
  return t == WeightType::MapRms || t == WeightType::MapVar || t == WeightType::MapWeight;
}

// SExtractor's makeback with one weight map: the image's background without the map's bad
// pixels and, for MAP_VAR / MAP_WEIGHT, the map's scale, applied to the variances
// (RESCALE_WEIGHTS Y) or to the global RMS (N). `var` receives the variance map (not for
// BACKGROUND, whose variance comes from the final background).
BackgroundMap background_with(ImageView<const float> image, const WeightParams& p,
                              ImageView<const float> raw, float wthresh, const Config& config,
                              Image<float>& var, int threads) {
  if (!reads_map(p.type)) return background_map(image, config);
  require_map_size(raw, image);
  Image<float> var1 = copy_of(raw, threads);
  to_variance(p.type, 1.0f, var1.data(), var1.size(), threads);
  // Bad pixels are left out of the background meshes, as masked (NaN) pixels are.
  Image<float> masked = copy_of(image, threads);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < masked.size(); ++i)
    if (var1.data()[i] >= wthresh) masked.data()[i] = std::numeric_limits<float>::quiet_NaN();
  BackgroundMap bkg = background_map(masked.view(), config);
  if (p.type == WeightType::MapRms) {
    var = std::move(var1);
    return bkg;
  }
  const float sigfac = weight_scale(masked.view(), var1.view(), wthresh, bkg, config, threads);
  if (p.rescale) {
    var = copy_of(raw, threads);
    to_variance(p.type, sigfac, var.data(), var.size(), threads);
  } else {
    var = std::move(var1);
    bkg.global_rms /= sigfac;  // back.c: field->backsig /= sigfac
  }
  return bkg;
}

Image<float> background_variance(const BackgroundMap& bkg) {
  Image<float> var = Image<float>::uninitialized(bkg.width, bkg.height);
  for (int y = 0; y < bkg.height; ++y) bkg.rms_line(y, var.view().row(y));
  to_variance(WeightType::Background, 1.0f, var.data(), var.size());
  return var;
}

}  // namespace

// Dual-image mode (dual_image.hpp; makeit.c, scan.c): each image's background without the bad
// pixels of its map; one map serves both (its scale measured on the measurement image, then on
// the detection image, which sets the variances) or each image has its own. The measurement
// variance is interpolated with the measurement image (INTERP_TYPE ALL as second element), a
// separate detection variance with the detection image (ALL as first element).
void dual_weighted_background(ImageView<const float> image, const MeasureRequest& request,
                              const Config& config, int threads, WeightMaps& maps, FrontEnd& out,
                              Image<float>& value, MeasureImage& measure) {
  const WeightParams &mw = config.measure_weight, &dw = config.detect_weight;
  const ImageView<const float> mimage = request.measure_image;
  measure.dual = true;
  if (!config.separate_weights) {
    Image<float> unused;
    measure.background =
        background_with(mimage, mw, request.weight_map, maps.wthresh, config, unused, threads);
    out.background =
        background_with(image, dw, request.weight_map, maps.wthresh, config, maps.var, threads);
    if (mw.type == WeightType::Background) maps.var = background_variance(out.background);
  } else {
    measure.background =
        background_with(mimage, mw, request.weight_map, maps.wthresh, config, maps.var, threads);
    if (mw.type == WeightType::Background) maps.var = background_variance(measure.background);
    out.background = background_with(image, dw, request.detect_weight_map, maps.dwthresh, config,
                                     maps.own_dvar, threads);
    if (dw.type == WeightType::Background) maps.own_dvar = background_variance(out.background);
  }
  value = subtract_background(image, out.background, nullptr, threads);
  measure.value = subtract_background(mimage, measure.background, nullptr, threads);
  measure.analysis_thresh = detection_thresholds(config, measure.background.global_rms).analysis;
  if (maps.measure && mw.interpolate)
    interpolate_bad_pixels(config.interp_measure_image ? measure.value.view() : ImageView<float>{},
                           maps.var.view(), maps.wthresh, mw.xlag, mw.ylag, threads);
  if (config.separate_weights && maps.detect && dw.interpolate)
    interpolate_bad_pixels(config.interp_image ? value.view() : ImageView<float>{},
                           maps.own_dvar.view(), maps.dwthresh, dw.xlag, dw.ylag, threads);
}

FrontEnd weighted_front_end(ImageView<const float> image, const MeasureRequest& request,
                            const Config& config, const FilterParams& filter, int threads,
                            WeightMaps& maps, MeasureImage& measure) {
  const WeightParams &mw = config.measure_weight, &dw = config.detect_weight;
  maps.measure = mw.type != WeightType::None;
  maps.detect = dw.type != WeightType::None;
  maps.wthresh = variance_threshold(mw);
  maps.dwthresh = variance_threshold(dw);
  // With --device cuda, one image and one map: the whole front end on the GPU, unless the
  // device cannot hold the frame.
  if (config.device == Backend::Cuda && gpu::available() &&
      gpu::weighted_front_end_fits(config, request.measure_image.data != nullptr)) {
    const std::string refusal = gpu::gpu_frame_refusal(
        image.width, image.height, gpu::weighted_frame_device_bytes(image.width * image.height),
        gpu::device_memory_limit(config));
    if (refusal.empty())
      return gpu::weighted_front_end_gpu(image, request.weight_map, config, filter, threads, maps,
                                         host_reads_detection_image(config, request));
  }
  FrontEnd out;
  // Each step's time, as the other front ends list theirs.
  auto t_step = std::chrono::steady_clock::now();
  auto lap = [&](const char* step) {
    const auto now = std::chrono::steady_clock::now();
    out.stage_seconds.emplace_back(step, std::chrono::duration<double>(now - t_step).count());
    t_step = now;
  };
  struct HostImages {
    Image<float> value, filtered;
  };
  auto images = std::make_shared<HostImages>();
  Image<float>& value = images->value;
  if (request.measure_image.data) {
    dual_weighted_background(image, request, config, threads, maps, out, value, measure);
  } else {
    // makeit.c: the background with the measurement map, then, with separate weights, again
    // with the detection map (that second one is the background used).
    out.background =
        background_with(image, mw, request.weight_map, maps.wthresh, config, maps.var, threads);
    if (config.separate_weights && maps.detect)
      out.background = background_with(image, dw, request.detect_weight_map, maps.dwthresh, config,
                                       maps.own_dvar, threads);
    if (mw.type == WeightType::Background) maps.var = background_variance(out.background);
    if (config.separate_weights && dw.type == WeightType::Background)
      maps.own_dvar = background_variance(out.background);
    lap("weights: background and variance maps");
    value = subtract_background(image, out.background, nullptr, threads);
    lap("subtract");
    // Bad pixels interpolated: the measurement variance with the image (INTERP_TYPE ALL), and a
    // separate detection variance on its own.
    if (maps.measure && mw.interpolate)
      interpolate_bad_pixels(config.interp_image ? value.view() : ImageView<float>{},
                             maps.var.view(), maps.wthresh, mw.xlag, mw.ylag, threads);
    if (config.separate_weights && maps.detect && dw.interpolate)
      interpolate_bad_pixels({}, maps.own_dvar.view(), maps.dwthresh, dw.xlag, dw.ylag, threads);
    lap("weights: bad pixels interpolated");
  }

  const Thresholds t = detection_thresholds(config, out.background.global_rms);
  out.detect_thresh = t.detect;
  out.analysis_thresh = t.analysis;
  FilterParams fp = filter;
  fp.threads = threads;
  out.value = value.view();
  if (config.filter) {
    images->filtered = detection_image(out.value, fp);
    out.filtered = images->filtered.view();
  }
  lap("filter");
  const ImageView<const float> cvalue = out.detection_image();
  // Each pixel's threshold: DETECT_THRESH sigma of its own detection variance, filtered as the
  // image is (scan.c); a constant with THRESH_TYPE ABSOLUTE.
  if (maps.detect) {
    const ImageView<const float> dvar = maps.dvar();
    maps.thresh = Image<float>::uninitialized(image.width, image.height);
    if (config.thresh_type == ThreshType::Relative) {
      Image<float> filtered_var;
      if (config.filter) {
        filtered_var = Image<float>::uninitialized(image.width, image.height);
        convolve(dvar, fp, filtered_var.view());
      }
      const float* cvar = config.filter ? filtered_var.data() : dvar.data;
      const float relthresh = static_cast<float>(config.detect_thresh);
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t i = 0; i < maps.thresh.size(); ++i)
        maps.thresh.data()[i] = relative_threshold(relthresh, cvar[i]);
    } else {
      std::fill(maps.thresh.data(), maps.thresh.data() + maps.thresh.size(), t.detect);
    }
  }
  lap("weights: each pixel's threshold");
  const ImageView<const float> thresh = maps.detect ? maps.thresh.view() : ImageView<const float>{};
  const ImageView<const float> var = maps.measure ? maps.var.view() : ImageView<const float>{};
  // With --device cuda the detection runs on the GPU (one image: dual-image mode stays on the
  // host), unless the device cannot hold the frame or SExtractor's pixel stack could overflow.
  std::string where = "on the CPU";
  bool detected = false;
  if (config.device == Backend::Cuda && !request.measure_image.data && gpu::available()) {
    const int64_t device = gpu::device_memory_limit(config);
    // The front end's plan, and the threshold and variance maps beside its two images (a sum
    // that saturates for a frame that cannot be planned).
    const int64_t pixels = image.width * image.height;
    const int64_t needed = gpu::stream_device_bytes(gpu::frame_device_bytes(pixels),
                                                    gpu::frame_image_bytes(pixels), 1, 1);
    const std::string refusal = gpu::gpu_frame_refusal(image.width, image.height, needed, device);
    if (refusal.empty()) {
      gpu::WeightedDetections d =
          gpu::detect_weighted_gpu(out.value, cvalue, thresh, var, t.detect, config, threads);
      for (auto& step : d.stage_seconds) out.stage_seconds.push_back(std::move(step));
      t_step = std::chrono::steady_clock::now();
      const bool may_overflow =
          config.memory_pixstack > 0 && d.pixel_stack_bound >= config.memory_pixstack - 1;
      if (!may_overflow) {
        out.detections = std::move(d.detections);
        out.done_lines = std::move(d.done_lines);
        detected = true;
        where = "on the GPU";
      } else {
        where = "on the CPU (SExtractor's pixel stack could overflow)";
      }
    } else {
      where = "on the CPU (" + refusal + ")";
    }
  }
  if (!detected) {
    std::vector<PixelStackOverflow> overflows;
    out.detections =
        detect_weighted(out.value, cvalue, thresh, var,
                        {t.detect, config.detect_minarea, config.memory_pixstack}, &overflows);
    for (const PixelStackOverflow& o : overflows) out.warnings.push_back(pixel_stack_warning(o));
    lap("detect");
  }
  if (config.device == Backend::Cuda)
    out.warnings.push_back(std::string("--device cuda with weight maps") +
                           (request.measure_image.data ? " in dual-image mode" : "") +
                           ": background and filtering run on the CPU, the detection " + where +
                           ", the photometry on the GPU");
  out.storage = std::move(images);  // the views above point into these images
  return out;
}

}  // namespace celeris::extract
