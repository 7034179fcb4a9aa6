#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "celeris/error.hpp"
#include "celeris/extract_run.hpp"
#include "celeris/fits.hpp"
#include "celeris/table.hpp"
#include "celeris/wcs.hpp"
#include "core/glibc_float_math_tables.hpp"
#include "core/table_ascii_gpu.hpp"
#include "extract/mef_inputs.hpp"
#include "extract/output/check_image_extensions.hpp"
#include "extract/run_steps.hpp"
#include "extract/settings/input_checks.hpp"
#include "extract/settings/parameters.hpp"
#include "extract/sextractor/fk5_to_fk4.hpp"
#include "extract/sextractor/summary_cards.hpp"
#include "extract/sextractor/wcs_draws.hpp"
#include "extract/stages/assoc.hpp"
#include "extract/stages/dgeo_map.hpp"
#include "extract/stages/measure_class_star.hpp"
#include "extract/stages/measure_flag_maps.hpp"
#include "extract/stages/measure_pixel_scale.hpp"
#include "extract/stages/measure_world_shape.hpp"

namespace celeris::extract {

namespace {

void write_check_images(const std::vector<CheckImage>& types, const std::vector<std::string>& names,
                        const std::vector<Image<float>>& images, const FitsHeader& header) {
  const std::vector<std::string> wcs = wcs_cards(header);
  for (size_t i = 0; i < images.size(); ++i) {
    const CheckImage t = types[i];
    const bool mini = t == CheckImage::MiniBackground || t == CheckImage::MiniBackRms;
    write_fits_image(names[i], images[i].view(), mini ? std::vector<std::string>{} : wcs,
                     t == CheckImage::Segmentation ? 32 : -32);
  }
}

}  // namespace

RunPlan plan_run(const Settings& settings) {
  RunPlan plan;
  plan.params = read_parameter_list(settings.parameters_name, plan.warnings);
  const std::vector<RequestedParam>& params = plan.params;
  for (const auto& p : params) plan.want_wcs |= p.spec->needs_wcs;
  MeasureRequest& req = plan.request;
  req.n_apertures =
      requested_apertures(params, static_cast<int>(settings.config.phot_apertures.size()));
  req.n_fluxfrac =
      requested_fluxfracs(params, static_cast<int>(settings.config.phot_fluxfrac.size()));
  req.auto_flux = false;
  for (const auto& p : params) {
    const std::string n = p.spec->name;
    if (n.find("_AUTO") != std::string::npos || n == "KRON_RADIUS") req.auto_flux = true;
    if (n.find("ISOCOR") != std::string::npos) req.isocor = true;
    if (n.find("_BEST") != std::string::npos) req.isocor = req.auto_flux = true;
    if (n.find("WIN") != std::string::npos) req.windowed = true;  // XWIN_IMAGE, FLAGS_WIN, ...
    if (n == "FLAGS_WEIGHT" || n == "NLOWWEIGHT_ISO" || n == "NLOWDWEIGHT_ISO")
      req.weight_flags = true;
    if ((n.size() == 4 && n.compare(0, 3, "ISO") == 0) || n == "CLASS_STAR" || n == "MU_THRESHOLD")
      req.iso_areas = true;
    // --- hook: Petrosian photometry, growth curve, VIGNET (measure_petro/growth/vignet.hpp)
    if (n.find("PETRO") != std::string::npos) req.petro = true;
    if (n.find("_GROWTH") != std::string::npos) req.growth = true;
    if (n == "VIGNET") req.vignet_width = p.width, req.vignet_height = p.height;
    if (n == "VIGNET_SHIFT") req.vignet_shift_width = p.width, req.vignet_shift_height = p.height;
    if (n == "VIGNET_DGEOX") req.vignet_dgeox_width = p.width, req.vignet_dgeox_height = p.height;
    if (n == "VIGNET_DGEOY") req.vignet_dgeoy_width = p.width, req.vignet_dgeoy_height = p.height;
    if (n == "DURATION_ANALYSIS") req.duration_analysis = true;
  }
  if (settings.check_types.size() != settings.check_names.size() && !settings.check_types.empty())
    throw Error("CHECKIMAGE_NAME: " + std::to_string(settings.check_names.size()) +
                " name(s) for " + std::to_string(settings.check_types.size()) +
                " CHECKIMAGE_TYPE(s)");
  req.check_images = settings.check_types;
  // PIXEL_SCALE 0 (SExtractor's default): the pixel scale from the WCS, or from SExtractor's
  // linear frame without one (measure_pixel_scale.hpp).
  if (wcs_pixel_scale_wanted(params, settings.config.pixel_scale)) plan.want_wcs = true;
  // DETECT_TYPE PHOTO: the Petrosian and growth-curve columns' photographic mode (photom.c,
  // growth.c) is not reproduced yet. (With --device cuda its photometry runs on the CPU: the
  // GPU's exp is not glibc's; pipeline.cpp.)
  if (settings.config.photo) {
    for (const auto& p : params) {
      const std::string n = p.spec->name;
      if (n.find("PETRO") != std::string::npos || n.find("GROWTH") != std::string::npos)
        throw Error(n + " with DETECT_TYPE PHOTO is not supported yet");
    }
  }
  // --- hook: CLASS_STAR's network, read before the extraction so that a bad file fails early
  for (const auto& p : params)
    if (std::string(p.spec->name) == "CLASS_STAR") {
      plan.star_network = StarNetwork::load(settings.starnnw_name);
      if (plan.star_network->inputs() != kNIso + 2)
        throw Error("STARNNW_NAME " + settings.starnnw_name + ": " +
                    std::to_string(plan.star_network->inputs()) +
                    " inputs; CLASS_STAR feeds SExtractor's 10");
    }
  // --- hook: flag maps (FLAG_IMAGE), read only when IMAFLAGS_ISO / NIMAFLAGS_ISO asks, as in
  // SExtractor; one map per element of the longer of the two vectors.
  for (const auto& p : params)
    if (std::string(p.spec->name) == "IMAFLAGS_ISO" || std::string(p.spec->name) == "NIMAFLAGS_ISO")
      plan.n_flag_maps = std::max(plan.n_flag_maps, static_cast<size_t>(p.size));
  if (plan.n_flag_maps > settings.flag_images.size())
    throw Error("IMAFLAGS_ISO/NIMAFLAGS_ISO(" + std::to_string(plan.n_flag_maps) + ") needs " +
                std::to_string(plan.n_flag_maps) + " flag maps; FLAG_IMAGE names " +
                std::to_string(settings.flag_images.size()));
  // --- hook: ASSOC (stages/assoc.hpp), the list read only when VECTOR_ASSOC / NUMBER_ASSOC asks,
  // as in SExtractor.
  bool want_assoc = false;
  for (const auto& p : params) {
    const std::string n = p.spec->name;
    if (n == "VECTOR_ASSOC") plan.assoc_size = p.size;
    want_assoc |= n == "VECTOR_ASSOC" || n == "NUMBER_ASSOC";
  }
  if (want_assoc) {
    plan.assoc = read_assoc_list(settings.assoc, plan.assoc_size, plan.warnings);
    plan.want_wcs |= settings.assoc.world;
    if (settings.assoc.select != AssocSelect::All)
      for (const CheckImage t : settings.check_types)
        if (t == CheckImage::Segmentation || t == CheckImage::Objects ||
            t == CheckImage::MinusObjects || t == CheckImage::Apertures)
          throw Error(
              "CHECKIMAGE_TYPE SEGMENTATION, OBJECTS, -OBJECTS and APERTURES with ASSOCSELEC_TYPE "
              "MATCHED or -MATCHED are not supported yet (SExtractor leaves the objects not "
              "selected out of some of them); use ASSOCSELEC_TYPE ALL");
  }
  // --- end of ASSOC
  return plan;
}

Frame read_frame(const std::string& image_path, const std::string& catalog_name,
                 const std::vector<std::string>& check_names, const Settings& settings,
                 const RunPlan& plan, const PixelMemory& memory, bool leave_stored) {
  Frame frame;
  frame.started = std::chrono::steady_clock::now();
  frame.path = image_path;
  frame.catalog_name = catalog_name;
  frame.check_names = check_names;
  // --- hook: dual-image mode ("detect.fits,measure.fits", stages/dual_image.hpp). frame.image
  // is the measurement image: its header gives GAIN, SATURATE, the WCS and the catalog's cards,
  // as SExtractor's measurement field does; frame.detect_image the detection image.
  // The comma outside CFITSIO's brackets: "det.fits[1],meas.fits[1]" names two extensions.
  auto has_comma = [](const std::string& p) { return split_dual_image_path(p).first != p; };
  const auto [detect_path, measure_path] = split_dual_image_path(image_path);
  if (has_comma(image_path) &&
      (detect_path.empty() || measure_path.empty() || has_comma(measure_path)))
    throw Error("dual-image mode takes two images, detect.fits,measure.fits (got '" + image_path +
                "')");
  for (const std::string& path : {detect_path, measure_path}) {
    if (path.empty()) continue;
    refuse_unsupported_inputs(path, settings);
    if (settings.catalog_type != CatalogType::None)
      refuse_output_over_input(catalog_name, path, "CATALOG_NAME");
    for (const std::string& name : check_names)
      refuse_output_over_input(name, path, "CHECKIMAGE_NAME");
  }
  if (measure_path.empty()) {
    FitsImageRead read = read_fits_image_into(detect_path, memory, leave_stored);
    frame.image = std::move(read.image);
    frame.pixels = read.pixels;
    frame.stored = read.stored;
  } else {
    frame.image = read_fits_image(measure_path);
    frame.pixels = frame.image.pixels.view();
    frame.detect_image = read_fits_image(detect_path);
  }
  // --- end of dual-image mode
  FitsImage& img = frame.image;

  Config& config = frame.config;
  config = settings.config;
  // SExtractor: header keywords GAIN_KEY / SATUR_KEY override the configuration values.
  if (auto g = img.header.value_double(settings.gain_key)) config.gain = *g;
  if (auto s = img.header.value_double(settings.satur_key)) config.satur_level = *s;
  if (config.gain < 0) throw Error(image_path + ": negative " + settings.gain_key + " in header");
  config.deblend_rand_offset = sextractor_wcs_rand_draws(img.header);
  if (frame.detect_image)  // both headers' WCS draws come before the deblender's
    config.deblend_rand_offset += sextractor_wcs_rand_draws(frame.detect_image->header);
  if (plan.want_wcs) {
    frame.wcs = Wcs::from_header(img.header);
    frame.world = WorldFrame::from_header(img.header, frame.wcs);
    if (wcs_pixel_scale_wanted(plan.params, config.pixel_scale))
      check_field_pixel_scale(img.header, *frame.world, static_cast<int>(img.pixels.width()),
                              static_cast<int>(img.pixels.height()), image_path);
  }
  const std::optional<Wcs>& wcs = frame.wcs;
  config.wcs_equinox = img.header.value_double("EQUINOX").value_or(
      img.header.value_double("EPOCH").value_or(2000.0));  // as SExtractor's read_wcs
  // --- hook: ASSOCCOORD_TYPE WORLD: SExtractor takes the list's positions as RA, Dec (J2000)
  // and converts them to the image's celestial system; celeris maps them through equatorial
  // J2000 frames only.
  if (plan.assoc && settings.assoc.world) {
    if (!wcs) throw Error(image_path + ": ASSOCCOORD_TYPE WORLD needs a WCS in the image header");
    const double equinox = img.header.value_double("EQUINOX").value_or(
        img.header.value_double("EPOCH").value_or(2000.0));
    const std::string radesys = img.header.value_string("RADESYS").value_or("");
    if (wcs->system() != Wcs::System::Equatorial || std::fabs(equinox - 2000.0) > 0.003 ||
        radesys.rfind("FK4", 0) == 0)
      throw Error(image_path +
                  ": ASSOCCOORD_TYPE WORLD is supported on equatorial J2000 frames only yet");
  }
  frame.request = plan.request;
  MeasureRequest& req = frame.request;

  const int width = static_cast<int>(frame.pixels.width),
            height = static_cast<int>(frame.pixels.height);
  // --- hook: world shapes (measure_world_shape.hpp). The THETA*_J2000 angles need an
  // equatorial J2000 frame (SExtractor's rotation to J2000 is then 0 up to rounding).
  if (wcs)
    for (const auto& p : plan.params) {
      const std::string n = p.spec->name;
      const bool j2000 = uses_j2000_rotation(n) || is_b1950_column(n);  // B1950: from J2000
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
  for (size_t k = 0; k < plan.n_flag_maps; ++k) {
    const FitsImage f = read_fits_image(settings.flag_images[k]);
    frame.flag_maps.push_back(
        flag_map_from_pixels(f.pixels.view(), width, height, settings.flag_images[k]));
    req.flag_types.push_back(k < settings.flag_types.size() ? settings.flag_types[k]
                                                            : FlagType::Or);
  }
  for (const auto& m : frame.flag_maps) req.flag_maps.push_back(m.view());
  // --- hook: weight maps (stages/weights.hpp), the image's size, read for the MAP_* types:
  // the measurement map (or the one map), and the detection map with separate weights.
  auto reads_map = [](WeightType t) {
    return t == WeightType::MapRms || t == WeightType::MapVar || t == WeightType::MapWeight;
  };
  auto read_weight_map = [&](const std::string& name) {
    if (settings.catalog_type != CatalogType::None)
      refuse_output_over_input(catalog_name, name, "CATALOG_NAME");
    FitsImage m = read_fits_image(name);
    if (m.pixels.width() != width || m.pixels.height() != height)
      throw Error("WEIGHT_IMAGE " + name + " is " + std::to_string(m.pixels.width()) + "x" +
                  std::to_string(m.pixels.height()) + ", the image " + std::to_string(width) + "x" +
                  std::to_string(height) + ": they must have the same size");
    return m;
  };
  if (reads_map(config.measure_weight.type)) {
    frame.weight_map = read_weight_map(settings.weight_images[1]);
    req.weight_map = frame.weight_map->pixels.view();
  }
  if (config.separate_weights && reads_map(config.detect_weight.type)) {
    frame.detect_weight_map = read_weight_map(settings.weight_images[0]);
    req.detect_weight_map = frame.detect_weight_map->pixels.view();
  }
  if (frame.detect_image) req.measure_image = frame.pixels;
  // --- hook: DGEO_TYPE PIXEL: the map is read whatever the catalog asks for, as SExtractor
  // does: it moves every position.
  if (settings.dgeo) {
    if (settings.catalog_type != CatalogType::None)
      refuse_output_over_input(catalog_name, settings.dgeo_image, "CATALOG_NAME");
    // The map's HDU follows the detection image's (SExtractor's image_name[0]).
    const FitsImage& detect = frame.detect_image ? *frame.detect_image : img;
    const bool image_names_hdu = detect_path.find('[') != std::string::npos;
    frame.dgeo_map =
        read_dgeo_map(settings.dgeo_image, width, height, image_names_hdu ? -1 : detect.hdu - 1);
    req.dgeo_x = frame.dgeo_map.dx.view();
    req.dgeo_y = frame.dgeo_map.dy.view();
  }
  return frame;
}

FrameOutputs frame_outputs(Frame& frame, Result&& r, const Settings& settings,
                           const RunPlan& plan) {
  const Config& config = frame.config;
  const FitsImage& img = frame.image;
  if (plan.star_network) {  // --- hook: CLASS_STAR (measure_class_star.hpp)
    Objects& o = r.objects;
    o.class_star.resize(o.size());
    // PIXEL_SCALE 0: the field's scale at the image centre (astrom.c initastrom), in double.
    const double pixel_scale =
        config.pixel_scale != 0.0
            ? static_cast<float>(config.pixel_scale)  // as parameters.cpp does
            : field_pixel_scale(*frame.world, static_cast<int>(img.pixels.width()),
                                static_cast<int>(img.pixels.height())) *
                  3600.0;
    for (size_t i = 0; i < o.size(); ++i)
      o.class_star[i] =
          class_star(*plan.star_network, &o.iso[i * kNIso], static_cast<float>(o.flux_max[i]),
                     static_cast<float>(r.info.analysis_thresh), config.seeing_fwhm, pixel_scale);
  }
  if (plan.assoc) {  // --- hook: ASSOC (stages/assoc.hpp), on the measurement image's rows
    const AssocIndex index(*plan.assoc, settings.assoc.radius,
                           settings.assoc.world ? &*frame.wcs : nullptr);
    associate(r.objects, index, static_cast<int>(frame.pixels.height), plan.assoc_size);
  }
  FrameOutputs outputs;
  FileRunResult& out = outputs.result;
  out.warnings = plan.warnings;
  out.warnings.insert(out.warnings.end(), r.info.warnings.begin(), r.info.warnings.end());
  out.catalog = make_catalog(r.objects, plan.params, config, frame.world);
  if (plan.assoc)  // ASSOCSELEC_TYPE: SExtractor writes and numbers only the objects selected
    keep_rows(out.catalog, assoc_selection(r.objects, settings.assoc.select));
  out.info = r.info;
  out.width = static_cast<int>(frame.pixels.width);
  out.height = static_cast<int>(frame.pixels.height);
  out.hdu = img.hdu;
  out.gain = config.gain;
  out.satur_level = config.satur_level;
  out.has_wcs = frame.wcs.has_value();
  RunSummary run;
  // The file's name, without an extension selector (SExtractor's FITSFILE).
  run.image_name =
      std::filesystem::path(frame.path.substr(0, frame.path.find('['))).filename().string();
  run.width = out.width;
  run.height = out.height;
  run.n_params = plan.params.size();
  run.n_objects = out.catalog.rows;
  run.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - frame.started).count();
  outputs.cards = summary_cards(settings, config, r.info, run);
  outputs.check_images = std::move(r.check_images);
  return outputs;
}

void make_catalog_ahead(FrameOutputs& outputs, const Settings& settings) {
  const Table& catalog = outputs.result.catalog;
  switch (settings.catalog_type) {
    case CatalogType::Ascii:
    case CatalogType::AsciiHead: {
      const bool head = settings.catalog_type == CatalogType::AsciiHead;
      if (ascii_table_chars(catalog, head) > kHeldCatalogBytes) return;
      // With --device cuda the text is made on the GPU, which a stream's frames leave idle
      // while their host stages bound them (core/table_ascii_gpu.hpp).
      if (settings.config.device == Backend::Cuda)
        outputs.catalog_text = ascii_table_text_gpu(catalog, head);
      if (!outputs.catalog_text) outputs.catalog_text = ascii_table_text(catalog, head);
      return;
    }
    case CatalogType::Fits10:
    case CatalogType::FitsLdac: {
      if (fits_row_bytes(catalog) * catalog.rows <= kHeldCatalogBytes)
        outputs.catalog_rows = encode_fits_rows(catalog);
      return;
    }
    case CatalogType::None:
      return;
  }
}

void write_frame_outputs(const Frame& frame, const FrameOutputs& outputs,
                         const Settings& settings) {
  OutputRun run;  // a failing check image takes the catalog with it
  if (outputs.catalog_text)
    write_text_file(frame.catalog_name, *outputs.catalog_text);
  else if (settings.catalog_type != CatalogType::None)
    write_catalog(frame.catalog_name, settings.catalog_type, outputs.result.catalog,
                  frame.image.header, outputs.cards,
                  outputs.catalog_rows ? &*outputs.catalog_rows : nullptr);
  write_check_images(settings.check_types, frame.check_names, outputs.check_images,
                     frame.image.header);
  run.keep();
}

FileRunResult finish_frame(Frame& frame, Result&& r, const Settings& settings,
                           const RunPlan& plan) {
  FrameOutputs outputs = frame_outputs(frame, std::move(r), settings, plan);
  write_frame_outputs(frame, outputs, settings);
  outputs.result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - frame.started).count();
  return std::move(outputs.result);
}

namespace {

// A catalog whose rows are those of every part's catalog in order (same columns in each).
Table concatenate(const std::vector<FrameOutputs>& parts) {
  Table out;
  if (parts.empty()) return out;
  out.columns = parts[0].result.catalog.columns;
  for (Column& c : out.columns) c.values.clear();
  for (const FrameOutputs& part : parts) {
    const Table& t = part.result.catalog;
    for (size_t k = 0; k < out.columns.size(); ++k)
      out.columns[k].values.insert(out.columns[k].values.end(), t.columns[k].values.begin(),
                                   t.columns[k].values.end());
    out.rows += t.rows;
  }
  return out;
}

}  // namespace

// A multi-extension file, as SExtractor extracts it: every image extension in turn, NUMBER
// starting again at 1 in each, EXT_NUMBER its place among the image extensions, the deblender's
// rand() stream going on from one extension to the next; one catalog holding them all (FITS_LDAC:
// an LDAC_IMHEAD / LDAC_OBJECTS pair per extension, as SCAMP and PSFEx read; FITS_1.0: an
// OBJECTS table per extension; ASCII: the rows one after the other). `path` is one file or, in
// dual-image mode, "det.fits,meas.fits"; the measurement image, the weight and the flag maps are
// read at the HDU of each image extension (mef_inputs.hpp); each check image is one file with an
// extension per image extension (check_image_extensions.hpp). No output appears under its name
// before every extension is extracted.
FileRunResult extract_extensions(const std::string& path, const std::vector<int>& hdus,
                                 const Settings& settings, const RunPlan& plan) {
  const auto t0 = std::chrono::steady_clock::now();
  if (settings.catalog_type != CatalogType::None)
    for (const std::string& input :
         {split_dual_image_path(path).first, split_dual_image_path(path).second})
      if (!input.empty()) refuse_output_over_input(settings.catalog_name, input, "CATALOG_NAME");
  check_extension_companions(path, hdus, settings, plan.n_flag_maps);
  for (const std::string& name : settings.check_names)
    for (const std::string& input :
         {split_dual_image_path(path).first, split_dual_image_path(path).second})
      if (!input.empty()) refuse_output_over_input(name, input, "CHECKIMAGE_NAME");
  // Each check image file is written as the extensions come, so that only one extension's
  // check images are held at a time; the files appear when the catalog is written.
  std::vector<std::unique_ptr<CheckImageFileWriter>> check_files;
  for (size_t i = 0; i < settings.check_types.size(); ++i)
    check_files.push_back(std::make_unique<CheckImageFileWriter>(
        settings.check_names[i], static_cast<int>(hdus.size()),
        settings.check_types[i] == CheckImage::Segmentation ? 32 : -32));
  std::vector<FitsHeader> headers;  // each measurement extension's: the catalog's LDAC_IMHEAD
  std::vector<FrameOutputs> outputs;
  int64_t draws = 0;  // rand() numbers SExtractor has drawn before the current extension
  // Detections before it: ID_PARENT goes on numbering them.
  int64_t detections = 0;
  for (size_t k = 0; k < hdus.size(); ++k) {
    Frame frame = read_frame(extension_image_path(path, hdus[k]), settings.catalog_name, {},
                             extension_settings(settings, hdus[k]), plan);
    frame.config.ext_number = static_cast<int>(k + 1);
    const int64_t wcs_draws = frame.config.deblend_rand_offset;
    frame.config.deblend_rand_offset = draws + wcs_draws;
    frame.config.id_parent_offset = detections;
    // Dual-image mode: the detection image goes through the pipeline (as in extract_file).
    Result r = frame.detect_image
                   ? extract(std::move(frame.detect_image->pixels), frame.config, frame.request)
                   : extract(std::move(frame.image.pixels), frame.config, frame.request);
    draws += wcs_draws + r.info.rand_draws;
    detections += static_cast<int64_t>(r.info.n_detections);
    outputs.push_back(frame_outputs(frame, std::move(r), settings, plan));
    for (size_t i = 0; i < check_files.size(); ++i) {
      const CheckImage t = settings.check_types[i];
      const bool mini = t == CheckImage::MiniBackground || t == CheckImage::MiniBackRms;
      check_files[i]->append(outputs.back().check_images[i].view(),
                             check_extension_cards(frame.image.header, !mini));
    }
    outputs.back().check_images.clear();
    headers.push_back(std::move(frame.image.header));
  }
  Table all_rows = concatenate(outputs);
  OutputRun run;
  switch (settings.catalog_type) {
    case CatalogType::None:
      break;
    case CatalogType::Ascii:
    case CatalogType::AsciiHead:
      write_ascii_table(settings.catalog_name, all_rows,
                        settings.catalog_type == CatalogType::AsciiHead);
      break;
    case CatalogType::Fits10:
    case CatalogType::FitsLdac: {
      std::vector<std::pair<const Table*, FitsTableOptions>> tables;
      for (size_t k = 0; k < headers.size(); ++k) {
        FitsTableOptions opt;
        opt.ldac = settings.catalog_type == CatalogType::FitsLdac;
        opt.extname = "OBJECTS";
        opt.image_header = headers[k];
        opt.extra_cards = outputs[k].cards;
        tables.emplace_back(&outputs[k].result.catalog, std::move(opt));
      }
      write_fits_tables(settings.catalog_name, tables);
      break;
    }
  }
  for (auto& file : check_files) file->commit();
  run.keep();
  // The run's result: every extension's rows; the counts summed; the rest from the first.
  FileRunResult out = outputs[0].result;
  out.catalog = std::move(all_rows);
  for (size_t k = 1; k < outputs.size(); ++k) {
    out.info.n_detections += outputs[k].result.info.n_detections;
    out.info.n_deblended += outputs[k].result.info.n_deblended;
    const auto& more = outputs[k].result.info.warnings;
    out.info.warnings.insert(out.info.warnings.end(), more.begin(), more.end());
    out.warnings.insert(out.warnings.end(), more.begin(), more.end());
  }
  out.extensions = static_cast<int>(hdus.size());
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

FileRunResult extract_file(const std::string& image_path, const Settings& settings,
                           const WarningSink& warn) {
  // The GPU path's glibc checks, beside the reading of the frame (glibc_float_math_tables.hpp).
  if (settings.config.device == Backend::Cuda) glibcmath::check_exception_lists_ahead();
  const RunPlan plan = plan_run(settings);
  if (warn)
    for (const auto& w : plan.warnings) warn(w);
  // A multi-extension image (the detection image in dual-image mode; SExtractor takes the
  // extensions from it), named without an HDU, is extracted extension by extension.
  if (const std::vector<int> hdus = multi_extension_hdus(image_path); !hdus.empty()) {
    FileRunResult out = extract_extensions(image_path, hdus, settings, plan);
    if (warn)
      for (const auto& w : out.info.warnings) warn(w);
    return out;
  }
  Frame frame = read_frame(image_path, settings.catalog_name, settings.check_names, settings, plan);
  // Dual-image mode: the detection image goes through the pipeline, the measurement image is
  // frame.request.measure_image.
  Result r = frame.detect_image
                 ? extract(std::move(frame.detect_image->pixels), frame.config, frame.request)
                 : extract(std::move(frame.image.pixels), frame.config, frame.request);
  const std::vector<std::string> frame_warnings = r.info.warnings;
  FileRunResult out = finish_frame(frame, std::move(r), settings, plan);
  if (warn)
    for (const auto& w : frame_warnings) warn(w);
  return out;
}

}  // namespace celeris::extract
