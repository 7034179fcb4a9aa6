// `celeris extract`: SExtractor's command line, so that an existing call works by changing the
// program name: IMAGE [-c config.sex] [-KEY VALUE ...].
#include <omp.h>

#include <cstdio>
#include <string>

#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/extract_settings.hpp"
#include "commands.hpp"

namespace celeris::cli {

namespace {

constexpr const char* kHelp =
    R"(usage: celeris extract IMAGE [-c CONFIG] [-KEY VALUE ...] [--threads N]
       celeris extract -d        print a default configuration file
       celeris extract -dp       print the catalog parameters celeris can compute

SExtractor-compatible source extraction. IMAGE is a FITS file; CFITSIO syntax selects an HDU
(img.fits[1], img.fits[SCI]) and reads gzip (.gz) and tile-compressed (.fz) files.
Configuration: the file given with -c (SExtractor .sex syntax; without -c, a default.sex in
the current directory if present, else built-in defaults), then each -KEY VALUE on the command
line (e.g. -CATALOG_NAME out.cat -DETECT_THRESH 3 -PARAMETERS_NAME my.param).
Unknown keys and catalog parameters give a warning (as in SExtractor); an invalid value, a
SExtractor parameter celeris does not compute yet, or a SExtractor key set to a value whose effect
celeris does not reproduce yet (WEIGHT_TYPE other than NONE, several image extensions, ...) is
an error naming it. Warnings and the run's summary go to stderr.

Main keys (see -d for all): CATALOG_NAME, CATALOG_TYPE (ASCII_HEAD, ASCII, FITS_1.0, FITS_LDAC,
NONE), PARAMETERS_NAME, DETECT_MINAREA, DETECT_THRESH, ANALYSIS_THRESH, THRESH_TYPE, FILTER,
FILTER_NAME, DEBLEND_NTHRESH, DEBLEND_MINCONT, CLEAN, CLEAN_PARAM, MASK_TYPE, BACK_TYPE,
BACK_VALUE, BACK_SIZE, BACK_FILTERSIZE, BACK_FILTTHRESH, BACKPHOTO_TYPE, PHOT_APERTURES,
PHOT_AUTOPARAMS, PHOT_AUTOAPERS, PHOT_FLUXFRAC, SATUR_LEVEL, SATUR_KEY, MAG_ZEROPOINT, GAIN, GAIN_KEY,
PIXEL_SCALE, SEEING_FWHM, STARNNW_NAME, FLAG_IMAGE, FLAG_TYPE, VERBOSE_TYPE, NTHREADS.

Options:
  -c FILE        configuration file
  --threads N    worker threads (default: all cores, at most one per 128K pixels; same as
                 -NTHREADS N)
  --device D     cpu (default), cuda or auto (cuda when a GPU is present): with cuda the
                 background, filter, thresholding and labelling run on the GPU, the rest on
                 the CPU; the catalog is the same
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

}  // namespace

int run_extract(const Args& args) {
  std::string image, config_path;
  bool config_given = false;
  extract::Overrides overrides;
  Backend device = Backend::Cpu;
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
    } else if (a.size() > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
      overrides.emplace_back(a.substr(1), value());
    } else if (image.empty()) {
      image = a;
    } else {
      throw Error("more than one image given ('" + image + "', '" + a +
                  "'); dual-image mode is not supported");
    }
  }
  if (image.empty()) throw Error("no image given (celeris extract --help)");
  if (image.find(',') != std::string::npos && image.find('[') == std::string::npos)
    throw Error("dual-image mode (" + image + ") is not supported");
  if (!config_given) {
    if (FILE* f = std::fopen("default.sex", "r")) {
      std::fclose(f);
      config_path = "default.sex";
    }
  }
  extract::Settings settings = extract::load_settings(config_path, overrides);
  settings.config.device = resolve_backend(device);
  for (const auto& w : settings.warnings)
    std::fprintf(stderr, "celeris extract: warning: %s\n", w.c_str());
  if (settings.config.threads > 0) omp_set_num_threads(settings.config.threads);

  const extract::FileRunResult r = extract::extract_file(image, settings, [](const std::string& w) {
    std::fprintf(stderr, "celeris extract: warning: %s\n", w.c_str());
  });
  if (settings.verbose == extract::Verbose::Quiet) return 0;
  // The run's summary goes to stderr, as SExtractor's, so that stdout can carry a catalog.
  const auto& info = r.info;
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
  for (const auto& [stage, s] : info.stage_seconds)
    std::fprintf(stderr, " %s %.3fs", stage.c_str(), s);
  std::fprintf(stderr, "\n  total       %.3f s (%d thread%s%s)\n", r.seconds, r.info.threads,
               r.info.threads == 1 ? "" : "s",
               settings.config.device == Backend::Cuda ? ", GPU front end" : "");
  if (settings.catalog_type != extract::CatalogType::None)
    std::fprintf(stderr, "  catalog     %s (%s, %zu columns)\n", settings.catalog_name.c_str(),
                 type_name(settings.catalog_type), r.catalog.columns.size());
  return 0;
}

}  // namespace celeris::cli
