// The extraction pipeline on the CPU: background -> subtraction -> filter -> detection ->
// deblending -> cleaning -> measurement. Each stage is a function of plain arrays so that the
// CUDA backend can replace stages one by one and be compared with this path.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "background.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "check_images.hpp"
#include "clean.hpp"
#include "deblend.hpp"
#include "detect.hpp"
#include "filter.hpp"
#include "glibc_rand.hpp"
#include "local_background.hpp"
#include "measure.hpp"
#include "measure_flag_maps.hpp"
#include "moments.hpp"
#include "threads.hpp"

namespace celeris::extract {

namespace {

class StageTimer {
 public:
  explicit StageTimer(RunInfo& info) : info_(info), t0_(std::chrono::steady_clock::now()) {}
  void lap(const char* name) {
    const auto t = std::chrono::steady_clock::now();
    info_.stage_seconds.emplace_back(name, std::chrono::duration<double>(t - t0_).count());
    t0_ = t;
  }

 private:
  RunInfo& info_;
  std::chrono::steady_clock::time_point t0_;
};

void validate(ImageView<const float> image, const Config& c) {
  if (image.width <= 0 || image.height <= 0) throw Error("empty image: no pixels to extract from");
  size_t valid = 0;
  for (int64_t i = 0; i < image.size(); ++i) valid += !std::isnan(image.data[i]);
  if (valid == 0) throw Error("all pixels are masked (NaN or BLANK): nothing to extract");
  if (c.detect_minarea < 1) throw Error("DETECT_MINAREA must be >= 1");
  if (c.deblend_nthresh < 1) throw Error("DEBLEND_NTHRESH must be >= 1");
  if (c.back_width < 1 || c.back_height < 1) throw Error("BACK_SIZE must be >= 1");
  if (c.filter && !c.filter_kernel.empty() &&
      static_cast<int>(c.filter_kernel.size()) != c.filter_width * c.filter_height)
    throw Error("filter kernel size does not match filter_width x filter_height");
}

// Detected-pixel owners for MASK_TYPE: every pixel above the detection threshold is blanked
// for all objects but its own (-1 when it belongs to no catalog object).
Image<int32_t> owner_map(ImageView<const float> value, ImageView<const float> cvalue, float thresh,
                         const std::vector<Detection>& objects) {
  Image<int32_t> owner = Image<int32_t>::uninitialized(value.width, value.height);
  for (int64_t i = 0; i < value.size(); ++i)
    owner.data()[i] = !std::isnan(value.data[i]) && cvalue.data[i] > thresh ? -1 : 0;
  for (size_t k = 0; k < objects.size(); ++k)
    for (const Pixel& p : objects[k].pixels) owner(p.x, p.y) = static_cast<int32_t>(k + 1);
  return owner;
}

}  // namespace

// `reuse`, when given, holds the image's own pixels: the background is subtracted in place.
Result extract_pixels(ImageView<const float> image, Image<float>* reuse, const Config& user_config,
                      const MeasureRequest& request) {
  validate(image, user_config);
  Config config = user_config;
  if (config.filter && config.filter_kernel.empty()) {
    // FILTER Y without a kernel: SExtractor's default.conv (3x3 pyramid, FWHM 2 pixels).
    config.filter_kernel = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    for (float& v : config.filter_kernel) v /= 16.0f;
    config.filter_width = config.filter_height = 3;
  }
  Result result;
  RunInfo& info = result.info;
  StageTimer timer(info);

  // 1. Background map and its subtraction.
  const BackgroundMap bkg =
      config.back_manual ? constant_background(image, config, static_cast<float>(config.back_value))
                         : estimate_background(image, config);
  timer.lap("background");
  const int w = static_cast<int>(image.width), h = static_cast<int>(image.height);
  const int nt = worker_threads(config, image.width * image.height);
  info.threads = nt;
  Image<float> value = reuse ? std::move(*reuse) : Image<float>::uninitialized(w, h);
#pragma omp parallel num_threads(nt)
  {
    std::vector<float> line(w);
#pragma omp for schedule(static)
    for (int y = 0; y < h; ++y) {
      bkg.back_line(y, line.data());
      const float* in = image.row(y);
      float* out = value.view().row(y);
      for (int x = 0; x < w; ++x) out[x] = in[x] - line[x];  // NaN stays NaN
    }
  }
  timer.lap("subtract");
  // Check images are made where their data exist, in the order they were asked for.
  result.check_images.resize(request.check_images.size());
  auto make_checks = [&](auto&& make) {
    for (size_t i = 0; i < request.check_images.size(); ++i)
      if (auto img = make(request.check_images[i])) result.check_images[i] = std::move(*img);
  };
  make_checks([&](CheckImage c) -> std::optional<Image<float>> {
    switch (c) {
      case CheckImage::Background:
        return background_image(bkg, false, config.threads);
      case CheckImage::BackgroundRms:
        return background_image(bkg, true, config.threads);
      case CheckImage::MiniBackground:
        return mesh_image(bkg, false);
      case CheckImage::MiniBackRms:
        return mesh_image(bkg, true);
      case CheckImage::MinusBackground: {
        Image<float> copy = Image<float>::uninitialized(w, h);
        std::copy(value.data(), value.data() + value.size(), copy.data());
        return copy;
      }
      default:
        return std::nullopt;
    }
  });
  info.global_back = config.back_manual ? config.back_value : bkg.global_back;
  info.global_rms = bkg.global_rms;
  const bool relative = config.thresh_type == ThreshType::Relative;
  const float dthresh =
      static_cast<float>(relative ? config.detect_thresh * bkg.global_rms : config.detect_thresh);
  const float athresh = static_cast<float>(relative ? config.analysis_thresh * bkg.global_rms
                                                    : config.analysis_thresh);
  if (!(dthresh > 0)) throw Error("detection threshold is not positive (DETECT_THRESH)");
  if (!(athresh > 0)) throw Error("analysis threshold is not positive (ANALYSIS_THRESH)");
  info.detect_thresh = dthresh;
  info.analysis_thresh = athresh;

  // 2. Detection filter.
  Image<float> filtered;
  ImageView<const float> cvalue = value.view();
  if (config.filter) {
    filtered = Image<float>::uninitialized(w, h);
    convolve(value.view(), config, filtered.view());
    // SExtractor's filter does not skip masked pixels, so a pixel whose filter support touches
    // a masked one is never detected; reproduce that by masking the filtered value.
    const int kw = config.filter_width, kh = config.filter_height;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        if (!std::isnan(value(x, y))) continue;
        for (int j = 0; j < kh; ++j)
          for (int i = 0; i < kw; ++i) {
            const int ox = x - (i - kw / 2), oy = y - (j - kh / 2);
            if (ox >= 0 && ox < w && oy >= 0 && oy < h && config.filter_kernel[j * kw + i] != 0.0f)
              filtered(ox, oy) = -std::numeric_limits<float>::infinity();
          }
      }
    cvalue = filtered.view();
  }
  make_checks([&](CheckImage c) -> std::optional<Image<float>> {
    if (c != CheckImage::Filtered) return std::nullopt;
    // Pixels whose filter support touches a masked pixel (-inf here) are written as NaN.
    Image<float> copy = Image<float>::uninitialized(w, h);
    for (int64_t i = 0; i < cvalue.size(); ++i)
      copy.data()[i] =
          std::isinf(cvalue.data[i]) ? std::numeric_limits<float>::quiet_NaN() : cvalue.data[i];
    return copy;
  });
  timer.lap("filter");

  // 3. Detection.
  std::vector<Detection> detections = detect(value.view(), cvalue, dthresh, config.detect_minarea);
  info.n_detections = detections.size();
  timer.lap("detect");

  // 4. Deblending: trees in parallel, then the random draws of the pixel assignment taken from
  // one rand() stream in detection order (as SExtractor), then the assignment in parallel.
  DeblendParams dp{
      config.deblend_nthresh, config.deblend_mincont, config.detect_minarea, dthresh, w, h};
  std::vector<DeblendPlan> plans(detections.size());
  std::vector<int64_t> parent_done_line(detections.size());
#pragma omp parallel num_threads(nt)
  {
    DeblendScratch scratch;
#pragma omp for schedule(dynamic, 4)
    for (size_t i = 0; i < detections.size(); ++i) {
      int64_t ymax = 0;
      for (const Pixel& p : detections[i].pixels) ymax = std::max<int64_t>(ymax, p.y);
      parent_done_line[i] = ymax + 1;  // Lutz completes a detection on the line below its last
      plans[i] = plan_deblend(std::move(detections[i]), dp, scratch);
    }
  }
  detections.clear();
  std::vector<size_t> first_draw(plans.size() + 1, 0);
  for (size_t i = 0; i < plans.size(); ++i) first_draw[i + 1] = first_draw[i] + plans[i].draws;
  std::vector<int32_t> stream(first_draw.back());
  GlibcRand rng;
  for (int i = 0; i < config.deblend_rand_offset; ++i) rng();
  for (auto& v : stream) v = rng();
  std::vector<std::vector<Detection>> children(plans.size());
#pragma omp parallel for schedule(dynamic, 4) num_threads(nt)
  for (size_t i = 0; i < plans.size(); ++i)
    children[i] = finish_deblend(std::move(plans[i]), stream.data() + first_draw[i]);
  plans.clear();
  std::vector<Detection> objects;
  std::vector<int64_t> done_line;
  for (size_t i = 0; i < children.size(); ++i)
    for (auto& d : children[i]) {
      objects.push_back(std::move(d));
      done_line.push_back(parent_done_line[i]);
    }
  children.clear();
  info.n_deblended = objects.size();
  timer.lap("deblend");

  // 5. Shapes and isophotal measurements (parallel), then cleaning (sequential, in detection
  // order, as SExtractor).
  std::vector<Shape> shapes(objects.size());
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
  for (size_t i = 0; i < objects.size(); ++i) shapes[i] = compute_shape(objects[i], dthresh);
  const int naper = static_cast<int>(config.phot_apertures.size());
  const int nfrac = static_cast<int>(config.phot_fluxfrac.size());
  MeasureContext ctx{
      config,  bkg,     {value.view(), {}, {}, 0, bkg.global_rms, config.gain, config.mask_type},
      dthresh, athresh, config.satur_level};
  ctx.n_apertures = request.n_apertures < 0 ? naper : std::min(request.n_apertures, naper);
  ctx.n_fluxfrac = request.n_fluxfrac < 0 ? nfrac : std::min(request.n_fluxfrac, nfrac);
  ctx.compute_win = request.windowed;
  ctx.compute_iso = request.iso_areas;
  ctx.compute_isocor = request.isocor;
  ctx.compute_auto = request.auto_flux || ctx.n_fluxfrac > 0 || ctx.compute_win;
  // SExtractor's line buffer: MEMORY_BUFSIZE lines, strip_margin of them read ahead of the scan;
  // BACKPHOTO_TYPE LOCAL adds BACKPHOTO_THICK + MEMORY_BUFSIZE / 4 to both (field.c), so that
  // the annulus below a new object is already read.
  const int local_margin = config.backphoto_type == BackPhotoType::Local
                               ? config.backphoto_thick + config.memory_bufsize / 4
                               : 0;
  const int strip_height =
      std::max(config.memory_bufsize + local_margin, config.filter ? config.filter_height : 1);
  const int strip_margin =
      std::max(1 + local_margin, config.filter ? (config.filter_height - 1) / 2 + 1 : 1);
  const int blank_lag = config.filter ? config.filter_height / 2 + 1 : 0;
  const bool local_back = config.backphoto_type == BackPhotoType::Local;
  std::vector<Iso> isos(objects.size());
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
  for (size_t i = 0; i < objects.size(); ++i) isos[i] = isophotal(objects[i], shapes[i], ctx);
  // BACKPHOTO_TYPE LOCAL needs the shapes as detected (cleaning merges some) and, through the
  // blanking, the cleaning's merges: it is measured after cleaning, whose decisions do not
  // depend on it, and the isophotal values are then remade and merged again (below).
  std::vector<Shape> detected_shapes;
  if (local_back) detected_shapes = shapes;
  // SExtractor's cleanmargin: from the apertures the catalog actually asks for (none when no
  // *_APER column is requested); it sets when objects are written, hence their NUMBER.
  int clean_margin = 0;
  for (int i = 0; i < ctx.n_apertures; ++i)
    clean_margin = std::max(clean_margin, static_cast<int>((config.phot_apertures[i] + 1) / 2) + 1);
  const CleanParams clean_params{
      config.clean, config.clean_param, dthresh,      h,
      clean_margin, strip_height,       strip_margin, config.memory_objstack};
  const CleanResult cleaned = clean_objects(objects, shapes, isos, done_line, clean_params);
  if (clean_params.strip_height < h) {  // the image does not fit SExtractor's line buffer
    ctx.strip_rows = clean_params.strip_height;
    ctx.strip_margin = clean_params.strip_margin;
  }
  timer.lap("clean");

  // 6. Photometry. With MASK_TYPE, every detected pixel is blanked for all objects but its
  // owner; pixels of objects merged away by cleaning are given back to the image. SExtractor
  // blanks detected pixels row by row as it scans, with the filtered image a filter half-height
  // (+1) rows behind, so rows it had not yet reached when a merged object was given back are
  // blanked afterwards all the same: those pixels stay masked.
  Image<int32_t> owner = owner_map(value.view(), cvalue, dthresh, objects);
  // Objects are measured as the image stood when each was written out (cleaned.written_at):
  // rows the blanker had not reached are not blanked yet, and pixels given back at v.line are
  // blanked only until then (those it reached only afterwards stay blanked).
  Image<int32_t> restore;
  if (!cleaned.removed.empty()) restore = Image<int32_t>(w, h, INT32_MAX);
  for (const CleanVictim& v : cleaned.removed)
    for (const Pixel& p : objects[v.object].pixels) {
      owner(p.x, p.y) = -1;
      if (int64_t(p.y) + blank_lag <= v.line) restore(p.x, p.y) = int32_t(v.line);
    }
  ctx.field.owner = owner.view();
  ctx.field.restore = restore.view();
  ctx.field.blank_lag = blank_lag;
  if (local_back) {
    // SExtractor measures the local background when each object is detected (analyse, before
    // cleaning), on the image as blanked at that scan line; FLUX_ISO, FLUX_MAX, the FWHM and
    // BACKGROUND take it in there, and cleaning merges those values.
    Image<int32_t> restored_by;
    if (!cleaned.removed.empty()) restored_by = Image<int32_t>(w, h, -1);
    for (const CleanVictim& v : cleaned.removed)
      for (const Pixel& p : objects[v.object].pixels)
        if (restore(p.x, p.y) == v.line) restored_by(p.x, p.y) = static_cast<int32_t>(v.by);
    const LocalBackgroundParams lp{config.backphoto_thick, strip_height < h ? strip_height : 0,
                                   strip_margin, restored_by.view()};
#pragma omp parallel num_threads(nt)
    {
      LocalBackgroundScratch scratch;
#pragma omp for schedule(dynamic, 64)
      for (size_t i = 0; i < objects.size(); ++i) {
        const float dbkg =
            local_background(i, detected_shapes[i], done_line[i], ctx.field, lp, scratch);
        isos[i] = isophotal(objects[i], detected_shapes[i], ctx, dbkg);
      }
    }
    for (const CleanVictim& v : cleaned.removed) merge_iso(isos[v.master], isos[v.object]);
  }
  result.objects = measure_objects(objects, shapes, isos, cleaned.order, cleaned.written_at, ctx);
  // --- hook: flag maps (IMAFLAGS_ISO), on the objects as detected, merged as cleaning merged them
  if (!request.flag_maps.empty()) {
    std::vector<size_t> victims, masters;
    for (const CleanVictim& v : cleaned.removed)
      victims.push_back(v.object), masters.push_back(v.master);
    image_flags(objects, victims, masters, cleaned.order, request.flag_maps, request.flag_types,
                result.objects);
  }
  make_checks([&](CheckImage c) -> std::optional<Image<float>> {
    switch (c) {
      case CheckImage::Segmentation:
        return segmentation_image(w, h, objects, cleaned.order, cleaned.removed);
      case CheckImage::Objects:
        return objects_image(value.view(), objects);
      case CheckImage::MinusObjects:
        return minus_objects_image(ctx.field);
      case CheckImage::Apertures: {
        const std::vector<double> diameters(config.phot_apertures.begin(),
                                            config.phot_apertures.begin() + ctx.n_apertures);
        return apertures_image(value.view(), result.objects, diameters, ctx.compute_auto,
                               static_cast<float>(30 * static_cast<float>(bkg.global_rms)));
      }
      default:
        return std::nullopt;
    }
  });
  timer.lap("measure");
  return result;
}

Result extract(ImageView<const float> image, const Config& config, const MeasureRequest& request) {
  return extract_pixels(image, nullptr, config, request);
}

Result extract(Image<float>&& image, const Config& config, const MeasureRequest& request) {
  Image<float> pixels = std::move(image);
  return extract_pixels(pixels.view(), &pixels, config, request);
}

}  // namespace celeris::extract
