// `celeris extract`: SExtractor's command line, so that an existing call works by changing the
// program name: IMAGE [-c config.sex] [-KEY VALUE ...].
#include <omp.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/table.hpp"
#include "commands.hpp"

namespace celeris::cli {

namespace {

constexpr const char* kHelp =
    R"(usage: celeris extract IMAGE [IMAGE ... | @LIST] [-c CONFIG] [-KEY VALUE ...] [--threads N]
       celeris extract -d        print a default configuration file
       celeris extract -dp       print the catalog parameters celeris can compute

SExtractor-compatible source extraction. IMAGE is a FITS file; CFITSIO syntax selects an HDU
(img.fits[1], img.fits[SCI]) and reads gzip (.gz) and tile-compressed (.fz) files.
IMAGE may be detect.fits,measure.fits (dual-image mode: detection on the first, measurements on
the second, as in SExtractor). A multi-extension IMAGE is extracted whole into one catalog, its
measurement image, WEIGHT_IMAGE and FLAG_IMAGE files multi-extension too (HDU n for HDU n), each
check image one file with an extension per image extension.
Configuration: the file given with -c (SExtractor .sex syntax; without -c, a default.sex in
the current directory if present, else built-in defaults), then each -KEY VALUE on the command
line (e.g. -CATALOG_NAME out.cat -DETECT_THRESH 3 -PARAMETERS_NAME my.param).
Unknown keys and catalog parameters give a warning (as in SExtractor); an invalid value, a
SExtractor parameter celeris does not compute yet, or a SExtractor key set to a value whose effect
celeris does not reproduce yet (INTERP_TYPE VAR_ONLY with one weight map, ...) is
an error naming it. Warnings and the run's summary go to stderr.

Several images (or @LIST, a file naming one image per line) are extracted as a stream: reading,
the first stages (on the GPU with --device cuda) and the rest of successive frames overlap, one
catalog per frame (a multi-extension file: one catalog of all its extensions, as alone). CATALOG_NAME and CHECKIMAGE_NAME then name each frame's outputs with {stem}
(the image's file name without directory and .fits/.fz/.gz) or {index} (1, 2, ...), e.g.
-CATALOG_NAME out/{stem}.cat; WEIGHT_IMAGE {stem}.weight.fits names each frame's weight map (a
name without them: one map for every frame). A frame that fails is reported and the others go on; the exit
status is then 1. Progress goes to stderr (a bar on a terminal, a line per frame otherwise).

Main keys (see -d for all): CATALOG_NAME, CATALOG_TYPE (ASCII_HEAD, ASCII, FITS_1.0, FITS_LDAC,
NONE), PARAMETERS_NAME, DETECT_MINAREA, DETECT_THRESH, ANALYSIS_THRESH, THRESH_TYPE, FILTER,
FILTER_NAME, DEBLEND_NTHRESH, DEBLEND_MINCONT, CLEAN, CLEAN_PARAM, MASK_TYPE, BACK_TYPE,
BACK_VALUE, BACK_SIZE, BACK_FILTERSIZE, BACK_FILTTHRESH, BACKPHOTO_TYPE, PHOT_APERTURES,
PHOT_AUTOPARAMS, PHOT_AUTOAPERS, PHOT_FLUXFRAC, SATUR_LEVEL, SATUR_KEY, MAG_ZEROPOINT, GAIN, GAIN_KEY,
PIXEL_SCALE, SEEING_FWHM, STARNNW_NAME, FLAG_IMAGE, FLAG_TYPE, WEIGHT_TYPE, WEIGHT_IMAGE,
WEIGHT_THRESH, WEIGHT_GAIN, RESCALE_WEIGHTS, INTERP_TYPE, VERBOSE_TYPE, NTHREADS.

Options:
  -c FILE        configuration file
  --threads N    worker threads (default: all cores, at most one per 128K pixels; same as
                 -NTHREADS N)
  --device D     cpu (default), cuda or auto (cuda when a GPU is present): with cuda the
                 background, filter, detection, the shapes' and isophotal sums, cleaning's
                 pairs, blanking and aperture photometry run on the GPU, deblending, the
                 clean pass and the rest on the CPU; the catalog is the same.
                 One frame alone is faster on the CPU (the GPU's start costs about 0.2 s);
                 the GPU pays for a stream of frames
  --gpu-memory S with cuda: the device memory a frame may plan for, in bytes or with K, M or
                 G (default: the device's); a frame planned at more than 80% of it is
                 detected in bands of rows, each band's buffers reused by the next; one
                 that does not fit even so (or of 2^31 pixels or more, or weighted, or
                 with a detection taller than a band) is extracted on the CPU, with a
                 warning
  --progress P   auto (default: a bar when stderr is a terminal), bar, lines or none, for
                 several images
  -h, --help     this help
)";

const char* type_name(extract::CatalogType t) {
  switch (t) {
    case extract::CatalogType::None:
      return "NONE";
    case extract::CatalogType::Ascii:
      return "ASCII";
    case extract::CatalogType::AsciiHead:
      return "ASCII_HEAD";
    case extract::CatalogType::Fits10:
      return "FITS_1.0";
    case extract::CatalogType::FitsLdac:
      return "FITS_LDAC";
  }
  return "?";
}

void print_summary(const std::string& image, const extract::Settings& settings,
                   const extract::FileRunResult& r) {
  const auto& info = r.info;
  if (r.extensions > 1)
    std::fprintf(stderr, "celeris extract  %s  (%d image extensions; the first %d x %d pixels%s)\n",
                 image.c_str(), r.extensions, r.width, r.height, r.has_wcs ? ", WCS" : "");
  else
    std::fprintf(stderr, "celeris extract  %s  (HDU %d, %d x %d pixels%s)\n", image.c_str(), r.hdu,
                 r.width, r.height, r.has_wcs ? ", WCS" : "");
  std::fprintf(stderr, "  background  %.6g   RMS %.6g   (mesh %d x %d, filter %d x %d)\n",
               info.global_back, info.global_rms, settings.config.back_width,
               settings.config.back_height, settings.config.back_filter_width,
               settings.config.back_filter_height);
  std::fprintf(stderr, "  threshold   %.6g (detection)   %.6g (analysis) ADU above background\n",
               info.detect_thresh, info.analysis_thresh);
  std::fprintf(stderr, "  gain        %g e-/ADU   saturation %g ADU\n", r.gain, r.satur_level);
  std::fprintf(stderr, "  objects     %zu detected, %zu after deblending, %zu in catalog\n",
               info.n_detections, info.n_deblended, r.catalog.rows);
  std::fprintf(stderr, "  time       ");
  // The stages; a step within one ("deblend: plans", "  of which mesh kernels"), part of its
  // stage's time, with -VERBOSE_TYPE FULL only.
  const bool full = settings.verbose == extract::Verbose::Full;
  for (const auto& [stage, s] : info.stage_seconds)
    if (full || (stage.find(": ") == std::string::npos && stage.rfind(' ', 0) != 0))
      std::fprintf(stderr, " %s %.3fs", stage.c_str(), s);
  std::fprintf(stderr, "\n  total       %.3f s (%d thread%s%s)\n", r.seconds, r.info.threads,
               r.info.threads == 1 ? "" : "s",
               settings.config.device == Backend::Cuda ? ", GPU front end" : "");
}

// Progress of a stream of frames on stderr: a bar redrawn in place on a terminal, or a line per
// frame (for logs).
class Progress {
 public:
  enum class Mode { None, Lines, Bar };
  Progress(Mode mode, size_t total) : mode_(mode), total_(total) {}
  void frame(const extract::FrameReport& r, double elapsed) {
    ++done_;
    objects_ += r.error.empty() ? r.result.catalog.rows : 0;
    const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
    if (!r.error.empty()) {
      if (mode_ == Mode::Bar) std::fputs("\r\033[K", stderr);
      std::fprintf(stderr, "celeris extract: error: frame %zu/%zu %s: %s\n", r.index + 1, total_,
                   r.path.c_str(), r.error.c_str());
    } else if (mode_ == Mode::Lines) {
      std::fprintf(stderr, "[%zu/%zu] %s: %zu objects -> %s (%.3f s)\n", r.index + 1, total_,
                   r.path.c_str(), r.result.catalog.rows, r.catalog_name.c_str(), r.result.seconds);
    }
    if (mode_ == Mode::Bar) {
      constexpr int kWidth = 30;
      const int filled = static_cast<int>(kWidth * done_ / std::max<size_t>(total_, 1));
      const double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : 0;
      std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu frames  %.1f frames/s  %zu objects  eta %.0f s",
                   filled, "##############################", kWidth - filled, "", done_, total_,
                   rate, objects_, eta);
      if (done_ == total_) std::fputc('\n', stderr);
      std::fflush(stderr);
    }
  }

 private:
  Mode mode_;
  size_t total_, done_ = 0, objects_ = 0;
};

}  // namespace

namespace {

// --gpu-memory's value: a whole number of bytes, or with a K, M or G (times 1024^1..3).
int64_t parse_memory_size(const std::string& text) {
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  double scale = 1;
  if (unit == "K" || unit == "k")
    scale = 1024.0;
  else if (unit == "M" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty())
    used = 0;
  const double bytes = v * scale;
  if (used == 0 || !(bytes >= 1) || bytes > 9.0e18)
    throw Error("--gpu-memory " + text + ": expected a size such as 8G, 512M or 1000000000");
  return static_cast<int64_t>(bytes);
}

}  // namespace

int run_extract(const Args& args) {
  std::vector<std::string> images;
  std::string config_path, progress = "auto";
  bool config_given = false;
  extract::Overrides overrides;
  Backend device = Backend::Cpu;
  int64_t gpu_memory = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (a == "-d" || a == "-dd") {
      std::fputs(extract::default_config_text().c_str(), stdout);
      return 0;
    }
    if (a == "-dp") {
      std::fputs(extract::parameter_list_text().c_str(), stdout);
      return 0;
    }
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw Error("option " + a + " needs a value");
      return args[++i];
    };
    if (a == "-c") {
      config_path = value();
      config_given = true;
    } else if (a == "--threads") {
      overrides.emplace_back("NTHREADS", value());
    } else if (a == "--device") {
      device = parse_backend(value());
    } else if (a == "--gpu-memory") {
      gpu_memory = parse_memory_size(value());
    } else if (a == "--progress") {
      progress = value();
      if (progress != "auto" && progress != "bar" && progress != "lines" && progress != "none")
        throw Error("--progress " + progress + ": expected auto, bar, lines or none");
    } else if (a.size() > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
      overrides.emplace_back(a.substr(1), value());
    } else {
      images.push_back(a);
    }
  }
  images = extract::expand_image_list(images);
  if (images.empty()) throw Error("no image given (celeris extract --help)");
  // Dual-image mode (detect.fits,measure.fits) takes one pair per call.
  if (images.size() > 1)
    for (const std::string& image : images)
      if (image.find(',') != std::string::npos && image.find('[') == std::string::npos)
        throw Error("dual-image mode (" + image +
                    ") takes one detect.fits,measure.fits pair per call");
  if (!config_given) {
    if (FILE* f = std::fopen("default.sex", "r")) {
      std::fclose(f);
      config_path = "default.sex";
    }
  }
  extract::Settings settings = extract::load_settings(config_path, overrides);
  settings.config.device = resolve_backend(device);
  settings.config.gpu_memory_bytes = gpu_memory;
  if (gpu_memory > 0 && settings.config.device != Backend::Cuda)
    settings.warnings.push_back("--gpu-memory is for --device cuda: ignored on the CPU");
  for (const auto& w : settings.warnings)
    std::fprintf(stderr, "celeris extract: warning: %s\n", w.c_str());
  if (settings.config.threads > 0) omp_set_num_threads(settings.config.threads);

  auto warn = [](const std::string& w) {
    std::fprintf(stderr, "celeris extract: warning: %s\n", w.c_str());
  };
  const bool quiet = settings.verbose == extract::Verbose::Quiet;
  if (images.size() == 1) {
    const std::string& image = images[0];
    settings.catalog_name = extract::frame_output_name(settings.catalog_name, image, 0, 1);
    for (std::string& name : settings.check_names)
      name = extract::frame_output_name(name, image, 0, 1);
    const extract::FileRunResult r = extract::extract_file(image, settings, warn);
    if (quiet) return 0;
    // The run's summary goes to stderr, as SExtractor's, so that stdout can carry a catalog.
    print_summary(image, settings, r);
    if (settings.catalog_type != extract::CatalogType::None)
      std::fprintf(stderr, "  catalog     %s (%s, %zu columns)\n", settings.catalog_name.c_str(),
                   type_name(settings.catalog_type), r.catalog.columns.size());
    return 0;
  }
  Progress::Mode mode = Progress::Mode::Lines;
  if (quiet || progress == "none")
    mode = Progress::Mode::None;
  else if (progress == "bar" || (progress == "auto" && isatty(STDERR_FILENO)))
    mode = Progress::Mode::Bar;
  Progress bar(mode, images.size());
  const auto t0 = std::chrono::steady_clock::now();
  const extract::FramesSummary summary =
      extract::extract_files(images, settings, warn, [&](const extract::FrameReport& r) {
        bar.frame(r, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      });
  if (!quiet || summary.failed)
    std::fprintf(stderr,
                 "celeris extract: %zu frames (%zu failed), %zu objects in %.2f s (%.2f frames/s"
                 "%s)\n",
                 summary.frames, summary.failed, summary.objects, summary.seconds,
                 summary.seconds > 0 ? static_cast<double>(summary.frames) / summary.seconds : 0.0,
                 settings.config.device == Backend::Cuda ? ", GPU front end" : "");
  if (settings.verbose == extract::Verbose::Full) {
    // Where the threads spent the stream's time: what bounds the frame rate.
    auto print = [&](const char* title, const auto& list) {
      std::fprintf(stderr, "  %s (s, summed over frames):\n", title);
      for (const auto& [name, s] : list)
        std::fprintf(stderr, "    %-34s %9.3f  (%.1f ms/frame)\n", name.c_str(), s,
                     summary.frames ? 1e3 * s / static_cast<double>(summary.frames) : 0.0);
    };
    print("threads", summary.step_seconds);
    print("stages", summary.stage_seconds);
  }
  return summary.failed ? 1 : 0;
}

}  // namespace celeris::cli
