#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/fits.hpp"
#include "celeris/table.hpp"
#include "celeris/wcs.hpp"
#include "extract/settings/input_checks.hpp"
#include "extract/settings/parameters.hpp"
#include "extract/sextractor/summary_cards.hpp"
#include "extract/sextractor/wcs_draws.hpp"
#include "extract/stages/measure_class_star.hpp"
#include "extract/stages/measure_flag_maps.hpp"

namespace celeris::extract {

namespace {

void write_check_images(const Settings& settings, const std::vector<Image<float>>& images,
                        const FitsHeader& header) {
  const std::vector<std::string> wcs = wcs_cards(header);
  for (size_t i = 0; i < images.size(); ++i) {
    const CheckImage t = settings.check_types[i];
    const bool mini = t == CheckImage::MiniBackground || t == CheckImage::MiniBackRms;
    write_fits_image(settings.check_names[i], images[i].view(),
                     mini ? std::vector<std::string>{} : wcs,
                     t == CheckImage::Segmentation ? 32 : -32);
  }
}

}  // namespace

FileRunResult extract_file(const std::string& image_path, const Settings& settings,
                           const WarningSink& warn) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> warnings;
  const std::vector<RequestedParam> params =
      read_parameter_list(settings.parameters_name, warnings);
  if (warn)
    for (const auto& w : warnings) warn(w);
  refuse_unsupported_inputs(image_path, settings);
  FitsImage img = read_fits_image(image_path);

  Config config = settings.config;
  // SExtractor: header keywords GAIN_KEY / SATUR_KEY override the configuration values.
  if (auto g = img.header.value_double(settings.gain_key)) config.gain = *g;
  if (auto s = img.header.value_double(settings.satur_key)) config.satur_level = *s;
  if (config.gain < 0) throw Error(image_path + ": negative " + settings.gain_key + " in header");
  config.deblend_rand_offset = sextractor_wcs_rand_draws(img.header);

  bool want_wcs = false;
  for (const auto& p : params) want_wcs |= p.spec->needs_wcs;
  std::optional<Wcs> wcs;
  if (want_wcs) wcs = Wcs::from_header(img.header);

  MeasureRequest req;
  req.n_apertures = requested_apertures(params, static_cast<int>(config.phot_apertures.size()));
  req.n_fluxfrac = requested_fluxfracs(params, static_cast<int>(config.phot_fluxfrac.size()));
  req.auto_flux = false;
  for (const auto& p : params) {
    const std::string n = p.spec->name;
    if (n.find("_AUTO") != std::string::npos || n == "KRON_RADIUS") req.auto_flux = true;
    if (n.find("ISOCOR") != std::string::npos) req.isocor = true;
    if (n.find("_BEST") != std::string::npos) req.isocor = req.auto_flux = true;
    if (n.find("WIN") != std::string::npos) req.windowed = true;  // XWIN_IMAGE, FLAGS_WIN, ...
    if ((n.size() == 4 && n.compare(0, 3, "ISO") == 0) || n == "CLASS_STAR" || n == "MU_THRESHOLD")
      req.iso_areas = true;
  }

  if (settings.check_types.size() != settings.check_names.size() && !settings.check_types.empty())
    throw Error("CHECKIMAGE_NAME: " + std::to_string(settings.check_names.size()) +
                " name(s) for " + std::to_string(settings.check_types.size()) +
                " CHECKIMAGE_TYPE(s)");
  req.check_images = settings.check_types;
  if (settings.catalog_type != CatalogType::None)
    refuse_output_over_input(settings.catalog_name, image_path, "CATALOG_NAME");
  for (const std::string& name : settings.check_names)
    refuse_output_over_input(name, image_path, "CHECKIMAGE_NAME");
  const int width = static_cast<int>(img.pixels.width()),
            height = static_cast<int>(img.pixels.height());
  // Pixel-scale-dependent columns: PIXEL_SCALE 0 means SExtractor's local WCS pixel area, which
  // celeris does not compute yet.
  if (config.pixel_scale == 0.0)
    for (const auto& p : params) {
      const std::string n = p.spec->name;
      if (n == "CLASS_STAR" || n == "MU_MAX" || n == "MU_THRESHOLD" || n == "FWHM_WORLD" ||
          n == "ISOAREA_WORLD" || n == "ISOAREAF_WORLD")
        throw Error("PIXEL_SCALE 0 (the pixel scale from the WCS) is not supported yet for " + n +
                    "; give PIXEL_SCALE in arcsec");
    }
  // --- hook: CLASS_STAR's network, read before the extraction so that a bad file fails early
  std::optional<StarNetwork> star_network;
  for (const auto& p : params)
    if (std::string(p.spec->name) == "CLASS_STAR") {
      star_network = StarNetwork::load(settings.starnnw_name);
      if (star_network->inputs() != kNIso + 2)
        throw Error("STARNNW_NAME " + settings.starnnw_name + ": " +
                    std::to_string(star_network->inputs()) +
                    " inputs; CLASS_STAR feeds SExtractor's 10");
    }
  // --- hook: world shapes (measure_world_shape.hpp). Their Jacobian takes longitude along the
  // first pixel axis; THETA_J2000 needs an equatorial J2000 frame (SExtractor's rotation to
  // J2000 is then 0).
  if (wcs)
    for (const auto& p : params) {
      const std::string n = p.spec->name, ctype1 = img.header.value_string("CTYPE1").value_or("");
      const bool shape = p.spec->needs_wcs && n.find("WIN") == std::string::npos &&
                         n.find("WORLD") != std::string::npos && n != "X_WORLD" && n != "Y_WORLD";
      const bool j2000 = n == "THETA_J2000" || n == "ERRTHETA_J2000";
      if ((shape || j2000) &&
          (ctype1.rfind("DEC", 0) == 0 || ctype1.find("LAT") != std::string::npos))
        throw Error(n + ": images whose first axis is the latitude (CTYPE1 " + ctype1 +
                    ") are not supported yet");
      if (j2000) {
        const double equinox = img.header.value_double("EQUINOX").value_or(
            img.header.value_double("EPOCH").value_or(2000.0));
        const std::string radesys = img.header.value_string("RADESYS").value_or("");
        if (wcs->system() != Wcs::System::Equatorial || std::fabs(equinox - 2000.0) > 0.003 ||
            radesys.rfind("FK4", 0) == 0)
          throw Error(n +
                      ": only equatorial J2000 frames are supported yet (the rotation from other "
                      "frames is not computed)");
      }
    }
  // --- hook: flag maps (FLAG_IMAGE), read only when IMAFLAGS_ISO / NIMAFLAGS_ISO asks, as in
  // SExtractor; one map per element of the longer of the two vectors.
  size_t nflag = 0;
  for (const auto& p : params)
    if (std::string(p.spec->name) == "IMAFLAGS_ISO" || std::string(p.spec->name) == "NIMAFLAGS_ISO")
      nflag = std::max(nflag, static_cast<size_t>(p.size));
  if (nflag > settings.flag_images.size())
    throw Error("IMAFLAGS_ISO/NIMAFLAGS_ISO(" + std::to_string(nflag) + ") needs " +
                std::to_string(nflag) + " flag maps; FLAG_IMAGE names " +
                std::to_string(settings.flag_images.size()));
  std::vector<Image<uint32_t>> flag_maps;
  for (size_t k = 0; k < nflag; ++k) {
    const FitsImage f = read_fits_image(settings.flag_images[k]);
    flag_maps.push_back(
        flag_map_from_pixels(f.pixels.view(), width, height, settings.flag_images[k]));
    req.flag_types.push_back(k < settings.flag_types.size() ? settings.flag_types[k]
                                                            : FlagType::Or);
  }
  for (const auto& m : flag_maps) req.flag_maps.push_back(m.view());
  // --- end of flag maps
  Result r = extract(std::move(img.pixels), config, req);
  if (star_network) {  // --- hook: CLASS_STAR (measure_class_star.hpp)
    Objects& o = r.objects;
    o.class_star.resize(o.size());
    for (size_t i = 0; i < o.size(); ++i)
      o.class_star[i] =
          class_star(*star_network, &o.iso[i * kNIso], static_cast<float>(o.flux_max[i]),
                     static_cast<float>(r.info.analysis_thresh), config.seeing_fwhm,
                     static_cast<float>(config.pixel_scale));  // as parameters.cpp does
  }
  FileRunResult out;
  out.warnings = std::move(warnings);
  out.catalog = make_catalog(r.objects, params, config, wcs);
  out.info = r.info;
  out.width = width;
  out.height = height;
  out.hdu = img.hdu;
  out.gain = config.gain;
  out.satur_level = config.satur_level;
  out.has_wcs = wcs.has_value();
  RunSummary run;
  run.image_name = std::filesystem::path(image_path).filename().string();
  run.width = width;
  run.height = height;
  run.n_params = params.size();
  run.n_objects = out.catalog.rows;
  run.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<std::string> cards = summary_cards(settings, config, r.info, run);
  OutputRun outputs;  // a failing check image takes the catalog with it
  if (settings.catalog_type != CatalogType::None)
    write_catalog(settings.catalog_name, settings.catalog_type, out.catalog, img.header, cards);
  write_check_images(settings, r.check_images, img.header);
  outputs.keep();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace celeris::extract
