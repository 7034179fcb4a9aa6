// The extraction, stage by stage (each stage lives in stages/<name>.cpp):
//   background -> filter -> detect -> deblend -> isophotal measurement -> clean -> measure
// Objects travel between stages as flat arrays (objects.hpp). What SExtractor's single pass
// over the image adds to the result (when objects are written out, what is blanked when) is
// asked of sextractor/scan_order.hpp. Check images are made at the end from the stages'
// products (output/check_images.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "core/deferred_thread.hpp"
#include "core/fits_pixels.hpp"
#include "core/glibc_float_math_tables.hpp"
#include "extract/back_end.hpp"
#include "extract/gpu/blanking_gpu.hpp"
#include "extract/gpu/clean_zones_gpu.hpp"
#include "extract/gpu/deblend_children_gpu.hpp"
#include "extract/gpu/deblend_trees_gpu.hpp"
#include "extract/gpu/device_memory_plan.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/gpu/shapes_gpu.hpp"
#include "extract/output/check_images.hpp"
#include "extract/pipeline.hpp"
#include "extract/settings/threads.hpp"
#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/catalog_beside_pass.hpp"
#include "extract/stages/clean.hpp"
#include "extract/stages/deblend.hpp"
#include "extract/stages/detect.hpp"
#include "extract/stages/dual_image.hpp"
#include "extract/stages/filter.hpp"
#include "extract/stages/isophotal.hpp"
#include "extract/stages/local_background.hpp"
#include "extract/stages/measure.hpp"
#include "extract/stages/measure_beside_pass.hpp"
#include "extract/stages/measure_flag_maps.hpp"
#include "extract/stages/measure_weight_flags.hpp"
#include "extract/stages/moments.hpp"
#include "extract/stages/weights_front_end.hpp"

namespace celeris::extract {

namespace {

class StageTimer {
 public:
  explicit StageTimer(RunInfo& info) : info_(info), t0_(std::chrono::steady_clock::now()) {}
  // The next lap starts now (stages timed by other means in between).
  void restart() { t0_ = std::chrono::steady_clock::now(); }
  void lap(const char* name) {
    const auto t = std::chrono::steady_clock::now();
    info_.stage_seconds.emplace_back(name, std::chrono::duration<double>(t - t0_).count());
    t0_ = t;
  }

 private:
  RunInfo& info_;
  std::chrono::steady_clock::time_point t0_;
};

// Each thread's shapes and isophotal columns, kept from one frame to the next: a crowded
// 4096^2 frame's are 9 MB, whose construction on one thread (1.4-2.5 ms on the H200's host) lay
// on the GPU path's critical path; and the deblending's buffers and plans (deblend.hpp,
// DeblendPlanPool). A stream's back workers each keep their own.
struct ColumnPool {
  std::vector<Shape> shapes;
  std::vector<Iso> isos;
  DeblendPlanPool deblend_plans;  // the deblending's per-thread buffers and split plans
  BackEndColumns back_end;        // the clean pass's profiles and rows, the done lines
};
thread_local ColumnPool column_pool;

// Threads of the weighted front end's map copy beside the clean pass (extract_back).
constexpr int kHostMapThreads = 2;

// Stage lines of one name (one per range or chunk) as one line, their seconds summed, in the
// order of their first.
std::vector<std::pair<std::string, double>> summed_by_name(
    std::vector<std::pair<std::string, double>> lines) {
  std::vector<std::pair<std::string, double>> out;
  for (auto& line : lines) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == line.first; });
    if (it == out.end())
      out.push_back(std::move(line));
    else
      it->second += line.second;
  }
  return out;
}

void validate_config(const Config& c) {
  if (c.back_end_chunk_objects < 0)
    throw Error("back_end_chunk_objects must be >= 0 (0: one chunk)");
  if (c.back_end_first_chunk_objects < 0)
    throw Error("back_end_first_chunk_objects must be >= 0 (0: a quarter of a chunk)");
  if (!(c.back_end_chunk_growth >= 1.0)) throw Error("back_end_chunk_growth must be >= 1");
  if (c.back_end_stage_threads < 0) throw Error("back_end_stage_threads must be >= 0 (0: picked)");
  if (c.deblend_plan_ranges < 1)
    throw Error("deblend_plan_ranges must be >= 1 (1: every detection's plans at once)");
  if (c.deblend_plan_ranges > 1 && c.gpu_deblend_children)
    throw Error("deblend_plan_ranges > 1 cannot be combined with gpu_deblend_children");
  if (c.photometry_batch_rows < 0)
    throw Error("photometry_batch_rows must be >= 0 (0: the photometry after the clean pass)");
  if (c.catalog_rows_beside_min_objects < 0)
    throw Error("catalog_rows_beside_min_objects must be >= 0 (0: the rows after the pass)");
  if (c.gpu_band_rows < 0)
    throw Error("gpu_band_rows must be >= 0 (0: the frame's detection at once)");
  if (c.gpu_memory_bytes < 0) throw Error("gpu_memory_bytes must be >= 0 (0: the device's)");
  if (c.detect_minarea < 1) throw Error("DETECT_MINAREA must be >= 1");
  if (c.deblend_nthresh < 1) throw Error("DEBLEND_NTHRESH must be >= 1");
  if (c.back_width < 1 || c.back_height < 1) throw Error("BACK_SIZE must be >= 1");
  if (c.memory_pixstack < 0) throw Error("MEMORY_PIXSTACK must be >= 0 (0: no limit)");
  if (c.filter && !c.filter_kernel.empty() &&
      static_cast<int>(c.filter_kernel.size()) != c.filter_width * c.filter_height)
    throw Error("filter kernel size does not match filter_width x filter_height");
}

// `count_on_device`: the GPU front end counts the valid pixels after its upload (front_end.cpp),
// so the host's pass over the frame is left out.
void validate(ImageView<const float> image, const Config& c, bool count_on_device = false) {
  if (image.width <= 0 || image.height <= 0) throw Error("empty image: no pixels to extract from");
  if (!count_on_device) {
    size_t valid = 0;
    const int nt = worker_threads(c, image.size());
#pragma omp parallel for reduction(+ : valid) schedule(static) num_threads(nt)
    for (int64_t i = 0; i < image.size(); ++i) valid += !std::isnan(image.data[i]);
    if (valid == 0) throw Error("all pixels are masked (NaN or BLANK): nothing to extract");
  }
  validate_config(c);
}

// DGEO_TYPE PIXEL: a map of the image's size. On either device: the map enters the CPU stages
// only (deblending, shapes, isophotal, windowed and DGEO columns); the apertures the GPU
// measures are placed from those shapes.
void check_dgeo(int64_t width, int64_t height, const MeasureRequest& r) {
  if (!r.dgeo_x.data && !r.dgeo_y.data) return;
  for (const ImageView<const float>& m : {r.dgeo_x, r.dgeo_y})
    if (m.width != width || m.height != height)
      throw Error("DGEO_IMAGE is " + std::to_string(m.width) + "x" + std::to_string(m.height) +
                  ", the image " + std::to_string(width) + "x" + std::to_string(height) +
                  ": they must have the same size");
}

// SExtractor's cleanmargin: from the apertures the catalog actually asks for (none when no
// *_APER column is requested); it sets when objects are written, hence their NUMBER.
int clean_margin(const std::vector<double>& apertures, int n_apertures) {
  int margin = 0;
  for (int i = 0; i < n_apertures; ++i)
    margin = std::max(margin, static_cast<int>((apertures[i] + 1) / 2) + 1);
  return margin;
}

// Stages 1-3 on the CPU: the background map and the image less it, the detection image, the
// detections.
FrontEnd cpu_front_end(ImageView<const float> image, Image<float>* reuse, const Config& config,
                       const FilterParams& filter, int threads, StageTimer& timer) {
  struct HostImages {
    Image<float> value, filtered;
  };
  auto images = std::make_shared<HostImages>();
  FrontEnd out;
  out.background = background_map(image, config);
  timer.lap("background");
  images->value = subtract_background(image, out.background, reuse, threads);
  out.value = images->value.view();
  timer.lap("subtract");
  const Thresholds t = detection_thresholds(config, out.background.global_rms);
  out.detect_thresh = t.detect;
  out.analysis_thresh = t.analysis;
  FilterParams filter_params = filter;
  filter_params.threads = threads;
  if (config.filter) {
    images->filtered = detection_image(out.value, filter_params);
    out.filtered = images->filtered.view();
  }
  timer.lap("filter");
  std::vector<PixelStackOverflow> overflows;
  out.detections =
      detect(out.value, out.detection_image(),
             {out.detect_thresh, config.detect_minarea, config.memory_pixstack}, &overflows);
  for (const PixelStackOverflow& o : overflows) out.warnings.push_back(pixel_stack_warning(o));
  timer.lap("detect");
  out.storage = std::move(images);
  return out;
}

// Where a frame with --device cuda runs: `on_cpu`, why it is extracted on the CPU instead
// (empty: it is not), or `band_rows`, the rows of the bands its detection runs in (0: at once).
// A frame whose planned device memory is more than the device (or Config::gpu_memory_bytes)
// allows has its detection in bands where that plan fits (`can_band`: a frame whose front end
// would be the GPU's unweighted one) and goes to the CPU otherwise, as does a frame the GPU
// cannot index (gpu/device_memory_plan.hpp, front_end.hpp detection_band_rows). Without a
// usable device the GPU path's own error stands.
struct GpuPlacement {
  std::string on_cpu;
  int64_t band_rows = 0;
};

GpuPlacement gpu_placement(int64_t width, int64_t height, const Config& config,
                           const GpuStreamLoad& load, bool can_band) {
  if (config.device != Backend::Cuda) return {};
  if (!gpu::available()) return {};
  const int64_t device = gpu::device_memory_limit(config);
  const int64_t pixels = width * height;
  const int64_t fronts = static_cast<int64_t>(std::max<size_t>(load.fronts, 1));
  const int64_t back = static_cast<int64_t>(load.back_frames);
  const int64_t needed = gpu::stream_device_bytes(gpu::frame_device_bytes(pixels),
                                                  gpu::frame_image_bytes(pixels), fronts, back);
  const std::string what = fronts == 1 && back == 0
                               ? "the frame"
                               : "the stream's frames on the device (" + std::to_string(fronts) +
                                     " in the front stages, " + std::to_string(back) +
                                     " keeping their images for the back stages)";
  GpuPlacement p;
  p.on_cpu = gpu::gpu_frame_refusal(width, height, needed, device, what);
  if (!p.on_cpu.empty() && can_band &&
      (p.band_rows = gpu::detection_band_rows(width, height, fronts, back, device)) > 0)
    p.on_cpu.clear();
  return p;
}

// The warning's reason when a frame's detection in bands met a detection taller than a band.
std::string bands_too_small(const gpu::GpuBandsTooSmall& e) {
  return std::string("the frame's detection in bands of rows: ") + e.what();
}

Config cpu_config(const Config& config) {
  Config c = config;
  c.device = Backend::Cpu;
  return c;
}

std::string cpu_warning(const std::string& why) {
  return "--device cuda: " + why + ": the frame is extracted on the CPU (the same catalog)";
}

// Stages 1-3 on either device; `run` makes the FrontEnd from the resolved configuration.
template <class Run>
FrontStage front_stage(const Config& user_config, int64_t width, int64_t height, Run&& run,
                       bool host_front = false) {
  FrontStage stage;
  Config& config = stage.config;
  config = user_config;
  const FilterParams filter = FilterParams::of(config, 1);
  if (config.filter) {
    config.filter_kernel = filter.kernel;
    config.filter_width = filter.width;
    config.filter_height = filter.height;
  }
  RunInfo& info = stage.info;
  StageTimer timer(info);
  stage.width = static_cast<int>(width);
  stage.height = static_cast<int>(height);
  info.threads = worker_threads(config, width * height);
  stage.front = run(config, filter, info.threads, timer, stage);
  for (auto& st : stage.front.stage_seconds) info.stage_seconds.push_back(st);
  if (config.device == Backend::Cuda && !host_front) timer.lap("gpu stages, total");
  const FrontEnd& front = stage.front;
  info.global_back = config.back_manual ? config.back_value : front.background.global_back;
  info.global_rms = front.background.global_rms;
  info.detect_thresh = front.detect_thresh;
  info.analysis_thresh = front.analysis_thresh;
  info.n_detections = front.detections.size();
  info.warnings.insert(info.warnings.end(), front.warnings.begin(), front.warnings.end());
  if (stage.measure.dual) {  // the measurement image's background and analysis threshold
    const BackgroundMap& m = stage.measure.background;
    info.global_back = config.back_manual ? config.back_value : m.global_back;
    info.global_rms = m.global_rms;
    info.analysis_thresh = stage.measure.analysis_thresh;
  }
  return stage;
}

}  // namespace

FrontStage extract_front(ImageView<const float> image, Image<float>* reuse, const Config& config) {
  return extract_front(image, reuse, config, MeasureRequest{});
}

FrontStage extract_front(ImageView<const float> image, Image<float>* reuse, const Config& config,
                         const MeasureRequest& request) {
  return extract_front(image, reuse, config, request, GpuStreamLoad{});
}

namespace {

// extract_front's body. `stored` (with `stored_memory`, the pixels' writable view): the pixels
// are as the file stores them until the GPU front end, or convert_stored_in_place here, finishes
// them.
FrontStage front_of_host_frame(ImageView<const float> image, Image<float>* reuse,
                               const Config& config, const MeasureRequest& request,
                               const GpuStreamLoad& load, StoredPixels& stored,
                               ImageView<float> stored_memory) {
  if (config.device == Backend::Cuda) glibcmath::check_exception_lists_ahead();
  // Weight maps (weights_front_end.hpp) and dual-image mode (dual_image.hpp): their stages 1-3
  // run on the CPU on either device (with --device cuda the measurement's GPU part still runs on
  // the GPU, and the run's warnings say where the detection ran).
  const bool weighted = config.detect_weight.type != WeightType::None ||
                        config.measure_weight.type != WeightType::None;
  const bool host_front = weighted || request.measure_image.data;
  // A frame the GPU cannot hold whole has its detection in bands of rows, or if even that does
  // not fit (or a detection spans a whole band), goes to the CPU whole (the same catalog), with
  // a warning.
  const GpuPlacement place = gpu_placement(image.width, image.height, config, load, !host_front);
  std::string on_cpu = place.on_cpu;
  Config run_config = on_cpu.empty() ? config : cpu_config(config);
  if (place.band_rows > 0) run_config.gpu_band_rows = place.band_rows;
  const bool gpu_front = run_config.device == Backend::Cuda && !host_front;
  if (!gpu_front) convert_stored_in_place(stored_memory, stored);
  validate(image, run_config, gpu_front);
  check_dual_image(image, run_config, request);
  check_dgeo(image.width, image.height, request);
  auto run_front = [&](const Config& stage_config, bool on_gpu) {
    return front_stage(
        stage_config, image.width, image.height,
        [&](const Config& c, const FilterParams& f, int nt, StageTimer& timer, FrontStage& stage) {
          if (on_gpu)
            return gpu::front_end(image, c, f, nt, host_reads_detection_image(c, request), true,
                                  stored);
          if (weighted)
            return weighted_front_end(image, request, c, f, nt, stage.weights, stage.measure);
          FrontEnd front = cpu_front_end(image, reuse, c, f, nt, timer);
          stage.measure = measure_image(request.measure_image, c, nt);
          return front;
        },
        host_front);
  };
  FrontStage stage;
  try {
    stage = run_front(run_config, gpu_front);
  } catch (const gpu::GpuBandsTooSmall& e) {
    on_cpu = bands_too_small(e);
    run_config = cpu_config(config);
    convert_stored_in_place(stored_memory, stored);  // the GPU left the host's pixels as read
    stage = run_front(run_config, false);
  }
  if (!on_cpu.empty()) stage.info.warnings.push_back(cpu_warning(on_cpu));
  // (With weight maps the weighted front end says where its stages ran.)
  if (host_front && !weighted && run_config.device == Backend::Cuda)
    stage.info.warnings.push_back(
        "--device cuda with dual-image mode: background, filtering and detection run on the CPU, "
        "the photometry on the GPU");
  return stage;
}

}  // namespace

FrontStage extract_front(ImageView<const float> image, Image<float>* reuse, const Config& config,
                         const MeasureRequest& request, const GpuStreamLoad& load) {
  StoredPixels converted;
  return front_of_host_frame(image, reuse, config, request, load, converted, {});
}

FrontStage extract_front(ImageView<float> pixels, StoredPixels& stored, const Config& config,
                         const MeasureRequest& request, const GpuStreamLoad& load) {
  return front_of_host_frame(pixels, nullptr, config, request, load, stored, pixels);
}

FrontStage extract_front(const DeviceImage& image, const Config& config,
                         const MeasureRequest& request) {
  if (image.empty()) throw Error("empty image: no pixels to extract from");
  if (config.device == Backend::Cuda) glibcmath::check_exception_lists_ahead();
  const GpuPlacement place =
      gpu_placement(image.width(), image.height(), config, GpuStreamLoad{}, true);
  std::string on_cpu = place.on_cpu;
  if (config.device == Backend::Cuda && on_cpu.empty()) {
    validate_config(config);
    Config run_config = config;
    if (place.band_rows > 0) run_config.gpu_band_rows = place.band_rows;
    try {
      return front_stage(
          run_config, image.width(), image.height(),
          [&](const Config& c, const FilterParams& f, int nt, StageTimer&, FrontStage&) {
            return gpu::front_end(image, c, f, nt, host_reads_detection_image(c, request), true);
          });
    } catch (const gpu::GpuBandsTooSmall& e) {
      on_cpu = bands_too_small(e);
    }
  }
  // The CPU path on a host copy (whose memory becomes the subtracted image).
  Image<float> host = image.download();
  FrontStage stage =
      extract_front(host.view(), &host, on_cpu.empty() ? config : cpu_config(config), request);
  if (!on_cpu.empty()) stage.info.warnings.push_back(cpu_warning(on_cpu));
  return stage;
}

Result extract_back(FrontStage&& stage, const MeasureRequest& request) {
  Result result;
  result.info = std::move(stage.info);
  RunInfo& info = result.info;
  StageTimer timer(info);
  const Config& config = stage.config;
  const FrontEnd& front = stage.front;
  const int w = stage.width, h = stage.height, nt = info.threads;
  check_dgeo(w, h, request);
  // Detection weights make each pixel's threshold its own; measurement weights its variance.
  const WeightMaps& wmaps = stage.weights;
  const bool dweighted = wmaps.detect, mweighted = wmaps.measure;
  // Dual-image mode (dual_image.hpp): the measurement image's own background; the objects keep
  // the detection image's pixels, the measurements read the measurement image.
  const MeasureImage& measure = stage.measure;
  const BackgroundMap& bkg = measure.dual ? measure.background : front.background;
  const ImageView<const float> dvalue = front.value;
  const ImageView<const float> value = measure.dual ? measure.value.view() : dvalue;
  // The detection image on the host (not there when the GPU front end left it on the device:
  // then nothing below reads it, host_reads_detection_image).
  const ImageView<const float> cvalue =
      front.filtered_on_device_only() ? ImageView<const float>{} : front.detection_image();
  const ObjectList& detections = front.detections;
  const float dthresh = front.detect_thresh;
  const float athresh = measure.dual ? measure.analysis_thresh : front.analysis_thresh;
  // DGEO_TYPE PIXEL: every stage that takes a position takes each pixel's less its shift.
  const DgeoMap dgeo_map{request.dgeo_x, request.dgeo_y};
  const DgeoMap* dgeo = dgeo_map.get();

  // 4. Deblending.
  DeblendParams dp{config.deblend_nthresh,
                   config.deblend_mincont,
                   config.detect_minarea,
                   dthresh,
                   dweighted,
                   w,
                   h,
                   config.photo,
                   dgeo,
                   nullptr,
                   {},
                   0,
                   true,
                   true,
                   nullptr,
                   {}};
  // The GPU front end counted each detection's peaks (the deblender's first question).
  if (!front.peaks.empty()) dp.peaks = &front.peaks;
  // With --device cuda the candidates' threshold trees are built on the GPU (the host's
  // results: gpu/deblend_trees_gpu.hpp), and, when asked for (Config::gpu_deblend_children),
  // the split detections' pixels given to their children there (gpu/deblend_children_gpu.hpp).
  if (config.device == Backend::Cuda) {
    dp.trees = gpu::make_tree_builder;
    // A sparse frame's few candidates are planned on the host threads
    // (gpu::kTreeMinCandidatesPerThread, deblend_trees_gpu.hpp).
    dp.builder_min_candidates = gpu::kTreeMinCandidatesPerThread * static_cast<size_t>(nt);
    // The front end prepared the candidates and launched their trees (FrontEnd::prepared_trees).
    dp.prepared = front.prepared_trees.get();
    if (config.gpu_deblend_children) dp.children = gpu::choose_deblend_children;
  }
  // 5. Shapes and isophotal measurements, then cleaning (sequential, in detection order, as
  // SExtractor), which writes objects out in SExtractor's order: with stage 4's pixel
  // assignment, chunk by chunk, the pass on a thread of its own (back_end.hpp).
  IsoParams iso_params;
  iso_params.background = &bkg;
  iso_params.backsig = bkg.global_rms;
  iso_params.gain = config.gain;
  iso_params.detect_thresh = dthresh;
  iso_params.analysis_thresh = athresh;
  iso_params.satur_level = config.satur_level;
  iso_params.clean = config.clean;
  iso_params.minarea = config.detect_minarea;
  iso_params.ngamma = config.photo_ngamma();  // DETECT_TYPE PHOTO
  if (measure.dual) {
    iso_params.measure = value;
    iso_params.dbacksig = front.background.global_rms;
  }
  iso_params.weighted = mweighted;
  iso_params.weight_gain = config.weight_gain;
  iso_params.pixel_thresholds = dweighted;
  iso_params.dgeo = dgeo;
  const int naper = static_cast<int>(config.phot_apertures.size());
  const int nfrac = static_cast<int>(config.phot_fluxfrac.size());
  MeasureParams mp;
  mp.detect_thresh = dthresh;
  mp.analysis_thresh = athresh;
  mp.satur_level = config.satur_level;
  mp.apertures = config.phot_apertures;
  mp.fluxfrac = config.phot_fluxfrac;
  mp.n_apertures = request.n_apertures < 0 ? naper : std::min(request.n_apertures, naper);
  mp.n_fluxfrac = request.n_fluxfrac < 0 ? nfrac : std::min(request.n_fluxfrac, nfrac);
  mp.compute_win = request.windowed;
  mp.compute_iso = request.iso_areas;
  mp.compute_isocor = request.isocor;
  mp.photo = config.photo;
  mp.compute_auto = request.auto_flux || mp.n_fluxfrac > 0 || mp.compute_win;
  mp.autoparams = {config.kron_fact, config.kron_minradius, config.autoaper_search,
                   config.autoaper_flux};
  mp.buffer = LineBuffer::of(config, h);
  mp.threads = nt;
  if (measure.dual) mp.measure = value;
  // APER, AUTO, FLUX_RADIUS on the GPU (measure_gpu.hpp); with DETECT_TYPE PHOTO on the CPU,
  // since each pixel's flux is then an exp, whose device version is not the C library's.
  if (config.device == Backend::Cuda && !config.photo) {
    mp.gpu = true;
    mp.gpu_seconds = &info.stage_seconds;
  } else if (config.device == Backend::Cuda) {
    info.warnings.push_back(
        "--device cuda with DETECT_TYPE PHOTO: APER, AUTO and FLUX_RADIUS are measured on the "
        "CPU (the GPU's exp is not the C library's)");
  }
  // --- hook: Petrosian photometry, growth curve, VIGNET (measure_petro/growth/vignet.hpp)
  mp.compute_petro = request.petro;
  mp.petroparams = {config.petro_fact, config.petro_minradius, config.autoaper_search,
                    config.autoaper_flux};
  mp.compute_growth = request.growth;
  mp.vignet_width = request.vignet_width;
  mp.vignet_height = request.vignet_height;
  mp.vignet_shift_width = request.vignet_shift_width;
  mp.vignet_shift_height = request.vignet_shift_height;
  mp.time_objects = request.duration_analysis;
  mp.dgeo = dgeo;  // DGEO*_IMAGE, VIGNET_DGEOX/Y (measure_dgeo.hpp)
  mp.vignet_dgeox_width = request.vignet_dgeox_width;
  mp.vignet_dgeox_height = request.vignet_dgeox_height;
  mp.vignet_dgeoy_width = request.vignet_dgeoy_width;
  mp.vignet_dgeoy_height = request.vignet_dgeoy_height;
  // SExtractor's cleanmargin also covers half the VIGNET height, and half the VIGNET_SHIFT
  // height plus 3 (its interpolation mask's reach) (prefs.c).
  const int margin =
      std::max({clean_margin(mp.apertures, mp.n_apertures),
                mp.vignet_width > 0 ? (mp.vignet_height + 1) / 2 : 0,
                mp.vignet_shift_width > 0 ? (mp.vignet_shift_height + 1) / 2 + 3 : 0});
  // --- end
  const CleanParams clean_params{config.clean, config.clean_param,     dthresh, margin,
                                 mp.buffer,    config.memory_objstack, nt};
  // Each detection's done line (its own index as parent), then each object's. The
  // detections' pixel columns become the objects' (deblend.hpp).
  const auto t_deblend = std::chrono::steady_clock::now();
  std::vector<int64_t> detection_done = std::move(stage.front.done_lines);  // the GPU's gather's
  if (detection_done.size() != detections.size()) {
    std::vector<int64_t> detection_index(detections.size());
    for (size_t d = 0; d < detection_index.size(); ++d)
      detection_index[d] = static_cast<int64_t>(d);
    detection_done = done_lines(detections, detection_index, nt);
  }
  std::vector<std::pair<std::string, double>> steps;
  steps.emplace_back(
      "deblend: done lines",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_deblend).count());
  const size_t plan_ranges = static_cast<size_t>(config.deblend_plan_ranges);
  DeblendStage deblend_stage(std::move(stage.front.detections), dp, config.deblend_rand_offset, nt,
                             &steps, &column_pool.deblend_plans, plan_ranges > 1);
  if (plan_ranges > 1) {
    // Range after range, each as long in detections, the next one's trees launched before this
    // one's plans are collected; the steps' times summed over them, and the first range's wall
    // time, which is what a back end in detection order would wait for.
    const size_t nd = deblend_stage.detections();
    const auto t_first = std::chrono::steady_clock::now();
    deblend_stage.launch_plans(nd / plan_ranges, nt);
    for (size_t k = 0; k < plan_ranges; ++k) {
      if (k + 1 < plan_ranges) deblend_stage.launch_plans(nd * (k + 2) / plan_ranges, nt);
      deblend_stage.plan(nd * (k + 1) / plan_ranges, nt);
      if (k == 0)
        steps.emplace_back(
            "deblend: plans, the first range's (of " + std::to_string(plan_ranges) + ")",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t_first).count());
    }
    steps = summed_by_name(std::move(steps));
  }
  // Every detection is planned: the prepared trees' buffers go back to their pool for the next
  // frame (the stage reads them only while planning).
  stage.front.prepared_trees.reset();
  const double deblend_planned =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_deblend).count();
  // One pass: each object's pixels are read for its shape and again, still in cache, for its
  // isophotal values. With the GPU front end's images still on the device, the per-pixel sums
  // run there (gpu/shapes_gpu.hpp), the finish on the host: the same shapes and values.
  // The columns' storage is the last frame's on this thread (ColumnPool).
  std::vector<Shape> shapes = std::move(column_pool.shapes);
  std::vector<Iso> isos = std::move(column_pool.isos);
  // With weights, the GPU's weighted front end left their images on the device too.
  const gpu::DeviceWeights device_weights{front.device_var, front.device_thresh};
  const bool gpu_shapes =
      front.device_value && gpu::shapes_supported(iso_params, front.device_var != nullptr);
  // The blanking codes are made on the device from its images (below, after cleaning); with the
  // GPU shapes, which upload every object's pixel indexes, their draft is made from those while
  // the host runs the clean pass, and only the merged objects' pixels are left for after it.
  // BACKPHOTO_TYPE LOCAL needs the shapes as detected (cleaning merges some) and the host's
  // blanking, as seen at each detection.
  const bool local_back = config.backphoto_type == BackPhotoType::Local;
  const bool codes_on_device = front.device_value && !local_back;
  const std::shared_ptr<gpu::BlankingDraft> blanking_draft =
      codes_on_device && gpu_shapes ? gpu::blanking_draft(front.device_value, front.device_cvalue,
                                                          w, h, dthresh, front.device_thresh)
                                    : nullptr;
  std::vector<std::pair<std::string, double>> shape_steps;  // the GPU shapes' steps
  // The clean zones (and CLEAN_PARAM 1's decisions) found on the device right after the GPU
  // shapes, from their columns there (gpu/zones_after_shapes.hpp), when one chunk takes every
  // object; else (or with too many large objects) the zones step below makes them.
  ChunkSizes chunk_sizes;
  chunk_sizes.objects = static_cast<size_t>(std::max<int64_t>(config.back_end_chunk_objects, 0));
  chunk_sizes.first =
      static_cast<size_t>(std::max<int64_t>(config.back_end_first_chunk_objects, 0));
  chunk_sizes.growth = config.back_end_chunk_growth;
  const bool one_chunk = back_end_chunks(deblend_stage, chunk_sizes, nt) == 1;
  const bool zones_after_shapes = gpu_shapes && config.device == Backend::Cuda &&
                                  config.gpu_zones_after_shapes && clean_params.enabled &&
                                  one_chunk && gpu::finish_on_gpu();
  const std::shared_ptr<gpu::ZonesAfterShapes> device_zones =
      zones_after_shapes
          ? gpu::zones_after_shapes(w, h, config.clean_param, config.clean_param == 1.0)
          : nullptr;
  BackEndSteps back_steps;
  back_steps.shapes = [&](const ObjectList& objects, size_t first, size_t last, int threads) {
    if (gpu_shapes) {
      gpu::shapes_and_isophotal(objects, first, last, front.device_value, front.device_cvalue, w,
                                iso_params, threads, shapes, isos, &shape_steps,
                                blanking_draft.get(), device_weights, device_zones.get());
      return;
    }
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
    for (size_t i = first; i < last; ++i) {
      shapes[i] = compute_shape(objects[i], object_dthresh(objects[i], dthresh, dweighted),
                                dweighted, dgeo);
      isos[i] = isophotal(objects[i], shapes[i], iso_params);
    }
  };
  // The zones on the GPU with --device cuda (gpu/clean_zones_gpu.hpp), the frame's or a
  // chunk's, unless the objects so far include too many large ones for it: the same pairs.
  // With CLEAN_PARAM 1 (the default: no pow in the profiles) the pairs' decisions are made
  // there too, on the lists before they come back; those a pow must decide, on the host.
  std::vector<std::pair<std::string, double>> zone_steps;  // the GPU zones' steps
  // This frame's key for the GPU zones' chunks (clean_zones_gpu's `frame`), never another's.
  static std::atomic<uint64_t> frames{0};
  const uint64_t zones_frame = ++frames;
  back_steps.zones = [&](size_t first, size_t last, int threads,
                         const std::vector<CleanProfile>& profile, CleanPairs& pairs) {
    CleanZones zones;
    const bool decide = config.clean_param == 1.0;
    gpu::ZonePairCodes codes;
    auto pairs_from_codes = [&] {
      const auto t = std::chrono::steady_clock::now();
      pairs = clean_pairs_from_codes(shapes, isos, zones, config.clean_param, threads, profile,
                                     std::move(codes.codes), &codes.flags);
      zone_steps.emplace_back(
          "gpu zones: pairs from the codes",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    };
    if (device_zones && first == 0 && last == shapes.size() &&
        gpu::collect_zones(*device_zones, last, zones, decide ? &codes : nullptr, &zone_steps)) {
      if (decide) pairs_from_codes();
      return zones;
    }
    if (config.device == Backend::Cuda) {
      gpu::ZonePairsRequest request;
      request.beta = config.clean_param;
      request.inputs = [&](size_t from, size_t to, CleanPairInput* out, int nthreads) {
#pragma omp parallel for schedule(static) num_threads(nthreads)
        for (size_t i = from; i < to; ++i)
          out[i - from] = clean_pair_input(shapes[i], isos[i], profile[i]);
      };
      if (gpu::clean_zones_gpu(shapes, first, last, w, h, threads, zones, &zone_steps,
                               decide ? &request : nullptr, &codes, zones_frame)) {
        if (decide) pairs_from_codes();
        return zones;
      }
    }
    return clean_zones(shapes, first, last, threads);
  };
  // The photometry's field, but for its blanking (made after cleaning) and weights.
  PhotometryField field;
  field.value = value;
  if (!measure.dual) field.value_on_device = front.device_value;
  field.var_on_device = front.device_var;
  field.backsig = bkg.global_rms;
  field.gain = config.gain;
  field.mask_type = config.mask_type;
  field.ngamma = config.photo_ngamma();  // DETECT_TYPE PHOTO
  // With the codes drafted on the device and the image there, the GPU photometry of the rows the
  // pass writes out starts while it runs (stages/measure_beside_pass.hpp). Weighted frames too
  // where the GPU's weighted front end left the map's variances on the device (one map for
  // detection and measurement, weighted_front_end_fits).
  const bool weights_on_device =
      (!mweighted && !dweighted) || (mweighted && dweighted && front.device_var);
  std::optional<PhotometryBesidePass> beside_pass;
  if (mp.gpu && blanking_draft && field.value_on_device && !measure.dual && weights_on_device &&
      config.photometry_batch_rows > 0) {
    PhotometryBesidePass::Inputs in;
    in.objects = &deblend_stage.result().objects;
    in.shapes = &shapes;
    in.isos = &isos;
    in.params = &mp;
    in.field = field;
    if (mweighted) {  // the maps' host images come down after the pass; their thresholds now
      in.field.wthresh = wmaps.wthresh;
      in.field.weight_gain = config.weight_gain;
      in.field.dwthresh = wmaps.dwthresh;
      in.dvar_on_device = front.device_var;
    }
    in.draft = blanking_draft;
    in.batch_rows = static_cast<size_t>(config.photometry_batch_rows);
    beside_pass.emplace(std::move(in));
    beside_pass->prepare();  // its thread started beside the stages before the pass
    back_steps.pass_ends = [&] { beside_pass->end(); };
  }
  // Where the photometry goes beside the pass, on frames of many objects, the catalog's rows are
  // begun there too, their columns from the shapes (stages/catalog_beside_pass.hpp). Not with a
  // DGEO map (its own columns), nor with LOCAL background, which remakes every isophotal value
  // after the pass (the photometry is not beside it then either: no blanking draft).
  std::optional<CatalogBesidePass> rows_beside;
  const size_t nobj_planned = deblend_stage.result().objects.size();
  const int64_t rows_beside_from = config.catalog_rows_beside_min_objects;
  if (beside_pass && rows_beside_from > 0 &&
      nobj_planned >= static_cast<size_t>(rows_beside_from) && !mp.dgeo && !local_back &&
      PhotometryBesidePass::goes(nobj_planned, static_cast<size_t>(config.photometry_batch_rows))) {
    CatalogBesidePass::Inputs in;
    in.shapes = &shapes;
    in.isos = &isos;
    in.objects = nobj_planned;
    in.n_aper = mp.apertures.size();
    in.n_frac = mp.fluxfrac.size();
    rows_beside.emplace(in);
    rows_beside->prepare();
    back_steps.pass_ends = [&] {
      beside_pass->end();
      rows_beside->end();
    };
  }
  // The GPU's weighted front end: the variance map's copy out of its page-locked download into
  // the frame's WeightMaps (64 MB for a 4096^2 frame; 1.9 ms on the H200's 16 threads after the
  // pass, stop 55 call 9), which nothing before the measurement reads, made beside the pass on
  // kHostMapThreads threads (more would crowd the pass's core: stop 46).
  std::optional<DeferredThread> host_maps;
  if (front.host_images_pending && front.fill_weight_maps)
    host_maps.emplace([&] {
      front.wait_for_host_images();
      front.fill_weight_maps(stage.weights, kHostMapThreads);
    });
  if (beside_pass || host_maps)
    back_steps.pass_begins = [&](const CleanPass& pass) {
      if (host_maps) host_maps->go();
      if (beside_pass) beside_pass->begin(pass);
      if (rows_beside) rows_beside->begin(pass);
    };
  BackEndOptions back_options;
  back_options.threads = nt;
  back_options.pass_alone = config.serial_pass_alone;
  back_options.chunks = chunk_sizes;
  back_options.zone_thread = config.back_end_zone_thread;
  back_options.stage_threads = config.back_end_stage_threads;
  back_options.keep_detected_shapes = local_back;
  back_options.reuse = &column_pool.back_end;
  back_options.census = config.census_pass_neighbours;
  CleanedObjects back = deblend_and_clean(deblend_stage, detection_done, clean_params, back_steps,
                                          back_options, shapes, isos);
  Deblended& deblended = back.deblended;
  const std::vector<int64_t>& done_line = back.done_line;
  const CleanResult& cleaned = back.cleaned;
  const std::vector<Shape>& detected_shapes = back.detected_shapes;
  ObjectList& objects = deblended.objects;
  info.n_deblended = objects.size();
  info.rand_draws = deblended.draws;
  // The stages' times: deblending's own steps and its pixel assignment (summed over the
  // chunks), then the stages after it, the GPU shapes' steps summed over the chunks too.
  const BackEndTimes& t = back.seconds;
  std::vector<std::pair<std::string, double>>& lines = info.stage_seconds;
  lines.insert(lines.end(), steps.begin(), steps.end());
  lines.emplace_back("deblend: finish", t.finish);
  lines.emplace_back("deblend", deblend_planned + t.finish);
  lines.emplace_back("back end: columns sized, clean pass made", t.setup);
  // Steps of the same name (one per chunk) summed.
  auto add_summed = [&](const std::vector<std::pair<std::string, double>>& more) {
    const size_t first = lines.size();
    for (const auto& step : more) {
      auto it = std::find_if(lines.begin() + static_cast<std::ptrdiff_t>(first), lines.end(),
                             [&](const auto& e) { return e.first == step.first; });
      if (it == lines.end())
        lines.push_back(step);
      else
        it->second += step.second;
    }
  };
  add_summed(shape_steps);
  lines.emplace_back("shapes, isophotal", t.shapes);
  // With chunks, the zones and pairs are a thread's beside the shapes of the next chunks.
  add_summed(zone_steps);
  lines.emplace_back("clean zones", t.zones);
  lines.emplace_back("clean pairs", t.pairs);
  lines.emplace_back(back.chunks > 1 ? "clean: pass, beside the stages before" : "clean: pass",
                     t.pass);
  if (back.chunks > 1) {
    lines.emplace_back("clean: the pass's start, from the back end's", t.pass_start);
    lines.emplace_back("clean: the pass's waits for later chunks", t.pass_waits);
  }
  // What the pass's thread got of its CPU while it took (the rest: other threads ran there), and
  // with the timeline its page faults (a count, not seconds: printed in the times' column).
  lines.emplace_back("clean: the pass's CPU time", t.pass_cpu);
  if (config.back_end_timeline)
    lines.emplace_back("clean: the pass's minor page faults (a count)",
                       static_cast<double>(t.pass_faults) * 1e-3);
  lines.emplace_back("clean: the pass's finish", t.pass_finish);
  lines.emplace_back("clean", t.clean);
  if (config.back_end_timeline && back.chunks > 1)
    for (size_t k = 0; k < t.chunk_marks.size(); ++k) {
      const BackEndTimes::ChunkMarks& c = t.chunk_marks[k];
      const std::string chunk = "back end, chunk " + std::to_string(k + 1) + " of " +
                                std::to_string(back.chunks) + " (" + std::to_string(c.objects) +
                                " objects): ";
      lines.emplace_back(chunk + "shapes done", c.shaped);
      lines.emplace_back(chunk + "pairs done", c.paired);
      lines.emplace_back(chunk + "the pass begins", c.pass_begins);
      lines.emplace_back(chunk + "the pass ends", c.pass_ends);
    }
  if (beside_pass && beside_pass->started()) {
    lines.emplace_back("clean: the GPU photometry's start and end beside it",
                       beside_pass->start_seconds());
    const PhotometryBesidePass::FeederSeconds f = beside_pass->feeder_seconds();
    lines.emplace_back("gpu measure beside the pass: the thread's setup", f.setup);
    lines.emplace_back("gpu measure beside the pass: the batches' host work", f.batches);
    lines.emplace_back("gpu measure beside the pass: the thread's CPU time", f.cpu);
  }
  if (!t.census.empty()) {
    // The threads that ran beside the pass, the busiest first (by rank: their ids change).
    lines.emplace_back("pass census: from the first census to the second", t.census_seconds);
    double others = 0;
    int rank = 0;
    for (const ThreadCpu& c : t.census) {
      const double sec = static_cast<double>(c.ns) * 1e-9;
      if (c.id == t.census_pass_thread) {
        lines.emplace_back("pass census: the pass's thread", sec);
        continue;
      }
      others += sec;
      if (rank < 6 && sec >= 1e-5)
        lines.emplace_back(
            "pass census: other thread " + std::to_string(++rank) + " (" + c.name + ")", sec);
    }
    lines.emplace_back("pass census: all other threads", others);
  }
  timer.restart();

  // 6. Measurement, each object as SExtractor saw the image when it wrote the object out. The
  // GPU front end's images are still on the device: the blanking codes are made there (LOCAL's
  // blanking, as seen at each detection, is the host's alone; with detection weights each pixel
  // is tested against its own threshold, which the GPU's weighted front end left there too).
  // Dual-image mode and separate weights run the front end on the host, which leaves no device
  // images.
  // The GPU front end's host images came down beside the stages so far (none of them read
  // them); every stage from here may.
  if (front.host_images_pending) {
    if (host_maps) host_maps->join();
    if (host_maps && host_maps->error()) std::rethrow_exception(host_maps->error());
    if (!host_maps || !host_maps->ran()) {  // the pass did not begin (no objects)
      front.wait_for_host_images();
      if (front.fill_weight_maps) front.fill_weight_maps(stage.weights, nt);
    }
    timer.lap("wait for the host images");
  }
  const bool under_way = beside_pass && beside_pass->started();
  const Blanking blanking =
      codes_on_device
          ? Blanking(under_way ? beside_pass->codes(objects, cleaned)
                     : blanking_draft
                         ? gpu::blanking_codes(blanking_draft, w, objects, cleaned.removed,
                                               mp.buffer.blank_lag, nt)
                         : gpu::blanking_codes(front.device_value, front.device_cvalue, w, h,
                                               dthresh, objects, cleaned.removed,
                                               mp.buffer.blank_lag, nt, front.device_thresh),
                     w, mp.buffer.blank_lag, cleaned.stack_full_lines)
          : Blanking(dvalue, cvalue, dthresh, objects, cleaned.removed, mp.buffer.blank_lag,
                     local_back, nt, dweighted ? wmaps.thresh.view() : ImageView<const float>{},
                     false, cleaned.stack_full_lines);
  // Dual-image mode: SExtractor blanks the measurement image's detected pixels as it scans them
  // and the detection image's blank_lag rows behind (scan.c); Kron's and the Petrosian radius
  // passes read the detection image, everything else the measurement image.
  std::optional<Blanking> measure_blanking;
  if (measure.dual && config.mask_type != MaskType::None)
    measure_blanking.emplace(dvalue, cvalue, dthresh, objects, cleaned.removed, mp.buffer.blank_lag,
                             false, nt, dweighted ? wmaps.thresh.view() : ImageView<const float>{},
                             true, cleaned.stack_full_lines);
  timer.lap("blanking");
  field.blanking = measure_blanking ? &*measure_blanking : &blanking;
  if (measure_blanking) field.dblanking = &blanking;
  if (measure.dual) field.dvalue = dvalue;
  if (mweighted) {
    field.var = wmaps.var.view();
    field.wthresh = wmaps.wthresh;
    field.weight_gain = config.weight_gain;
  }
  if (dweighted) {  // Kron's first pass reads the detection variance (photom.c)
    field.dvar = wmaps.dvar();
    field.dwthresh = wmaps.dwthresh;
  }
  if (local_back) {
    // SExtractor measures the local background when each object is detected, before cleaning;
    // FLUX_ISO, FLUX_MAX, the FWHM and BACKGROUND take it in there, and cleaning merges those
    // values. Cleaning's decisions do not depend on it, so it is measured now, on the image as
    // blanked at each object's detection, and the isophotal values remade and merged again.
    const LocalBackgroundParams lp{config.backphoto_thick, mp.buffer};
#pragma omp parallel num_threads(nt)
    {
      LocalBackgroundScratch scratch;
#pragma omp for schedule(dynamic, 64)
      for (size_t i = 0; i < objects.size(); ++i) {
        const float dbkg =
            local_background(i, detected_shapes[i], done_line[i], field, lp, scratch);
        isos[i] = isophotal(objects[i], detected_shapes[i], iso_params, dbkg);
      }
    }
    for (const CleanVictim& v : cleaned.removed) merge_iso(isos[v.master], isos[v.object]);
  }
  mp.buffer_at = &cleaned.buffer_at;
  mp.moment_at = &cleaned.written_moment;
  if (under_way) {
    mp.photometry_under_way = [&](std::vector<ApertureShape>& aps,
                                  const std::function<void()>& meanwhile) {
      return beside_pass->columns(objects, cleaned, aps, meanwhile);
    };
    if (rows_beside && rows_beside->started())
      mp.rows_under_way = [&] { return rows_beside->take(); };
  }
  result.objects =
      measure_objects(objects, shapes, isos, cleaned.order, cleaned.written_at, field, mp);
  if (under_way)
    info.stage_seconds.emplace_back("gpu measure beside the pass: the last batch's host work",
                                    beside_pass->last_batch_seconds());
  if (rows_beside && rows_beside->started())
    info.stage_seconds.emplace_back("catalog rows beside the pass: the thread's time",
                                    rows_beside->thread_seconds());
  // ID_PARENT: the detection each written object (a master keeps its own) came from.
  result.objects.id_parent.resize(cleaned.order.size());
  for (size_t j = 0; j < cleaned.order.size(); ++j)
    result.objects.id_parent[j] =
        static_cast<int32_t>(config.id_parent_offset + deblended.parent[cleaned.order[j]] + 1);
  // Flag maps (IMAFLAGS_ISO): on the objects as detected, merged as cleaning merged them.
  if (!request.flag_maps.empty()) {
    std::vector<size_t> victims, masters;
    for (const CleanVictim& v : cleaned.removed)
      victims.push_back(v.object), masters.push_back(v.master);
    image_flags(objects, victims, masters, cleaned.order, request.flag_maps, request.flag_types,
                result.objects);
  }
  // --- hook: FLAGS_WEIGHT (measure_weight_flags.hpp), with detection and measurement weights,
  // on the detection variance as the scan read it (filtered with FILTER Y).
  if (request.weight_flags) {
    if (dweighted && mweighted) {
      Image<float> filtered;
      if (config.filter) {
        filtered = Image<float>::uninitialized(w, h);
        convolve(wmaps.dvar(), FilterParams::of(config, nt), filtered.view());
      }
      weight_flags(objects, cleaned.order, wmaps.var.view(), wmaps.wthresh,
                   config.filter ? filtered.view() : wmaps.dvar(),
                   capped_detection_wthresh(wmaps.dwthresh), result.objects);
    } else {
      const size_t n = result.objects.size();
      result.objects.flags_weight.assign(n, 0);
      result.objects.nlowweight.assign(n, 0);
      result.objects.nlowdweight.assign(n, 0);
    }
  }
  timer.lap("measure");

  // 7. Check images, from the stages' products.
  CheckImageSources checks;
  checks.background = &bkg;
  checks.threads = config.threads;
  checks.value = value;
  checks.filtered = cvalue;
  checks.objects = &objects;
  checks.cleaned = &cleaned;
  checks.field = &field;
  checks.catalog = &result.objects;
  checks.aperture_diameters.assign(mp.apertures.begin(), mp.apertures.begin() + mp.n_apertures);
  checks.kron = mp.compute_auto;
  checks.overlay = static_cast<float>(30 * static_cast<float>(bkg.global_rms));
  result.check_images = make_check_images(request.check_images, checks);
  column_pool.shapes = std::move(shapes);
  column_pool.isos = std::move(isos);
  column_pool.back_end.done_line = std::move(back.done_line);
  return result;
}

// `reuse`, when given, holds the image's own pixels: the background is subtracted in place.
Result extract_pixels(ImageView<const float> image, Image<float>* reuse, const Config& config,
                      const MeasureRequest& request) {
  return extract_back(extract_front(image, reuse, config, request), request);
}

Result extract(ImageView<const float> image, const Config& config, const MeasureRequest& request) {
  return extract_pixels(image, nullptr, config, request);
}

Result extract(const DeviceImage& image, const Config& config, const MeasureRequest& request) {
  check_dgeo(image.width(), image.height(), request);
  if (config.detect_weight.type != WeightType::None ||
      config.measure_weight.type != WeightType::None || request.measure_image.data) {
    // Weight maps and dual-image mode run on the CPU front end.
    Image<float> host = image.download();
    return extract_back(extract_front(host.view(), &host, config, request), request);
  }
  return extract_back(extract_front(image, config, request), request);
}

Result extract(Image<float>&& image, const Config& config, const MeasureRequest& request) {
  Image<float> pixels = std::move(image);
  return extract_pixels(pixels.view(), &pixels, config, request);
}

}  // namespace celeris::extract
