#include "extract/mef_inputs.hpp"

#include <fitsio.h>

#include <algorithm>

#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "extract/settings/input_checks.hpp"

namespace celeris::extract {

namespace {

bool reads_map(WeightType t) {
  return t == WeightType::MapRms || t == WeightType::MapVar || t == WeightType::MapWeight;
}

// The weight maps read_frame reads (run.cpp): the measurement (or only) map, and the detection
// map when the weights are separate; each with its key for the error messages.
std::vector<std::pair<std::string, std::string>> weight_files(const Settings& settings) {
  std::vector<std::pair<std::string, std::string>> out;
  const Config& c = settings.config;
  if (reads_map(c.measure_weight.type)) out.emplace_back("WEIGHT_IMAGE", settings.weight_images[1]);
  if (c.separate_weights && reads_map(c.detect_weight.type))
    out.emplace_back("WEIGHT_IMAGE", settings.weight_images[0]);
  return out;
}

std::string at_hdu(const std::string& file, int hdu) {
  return file + "[" + std::to_string(hdu - 1) + "]";
}

// The number of HDUs of `file`, 0 when CFITSIO cannot open it (reading it later says why).
int hdu_count(const std::string& file) {
  fitsfile* f = nullptr;
  int status = 0, n = 0;
  if (fits_open_file(&f, file.c_str(), READONLY, &status)) return 0;
  fits_get_num_hdus(f, &n, &status);
  status = 0;
  fits_close_file(f, &status);
  return n;
}

}  // namespace

std::vector<int> multi_extension_hdus(const std::string& path) {
  const auto [detect, measure] = split_dual_image_path(path);
  if (detect.find('[') != std::string::npos || measure.find('[') != std::string::npos) return {};
  std::vector<int> hdus = image_hdus(detect);
  if (hdus.size() < 2) hdus.clear();
  return hdus;
}

std::pair<std::string, std::string> split_dual_image_path(const std::string& path) {
  int depth = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '[') ++depth;
    if (path[i] == ']') --depth;
    if (path[i] == ',' && depth == 0) return {path.substr(0, i), path.substr(i + 1)};
  }
  return {path, ""};
}

void check_extension_companions(const std::string& path, const std::vector<int>& hdus,
                                const Settings& settings, size_t n_flag_maps) {
  const auto [image, measure] = split_dual_image_path(path);
  std::vector<std::pair<std::string, std::string>> companions;  // key, file
  if (!measure.empty()) companions.emplace_back("the measurement image", measure);
  for (const auto& w : weight_files(settings)) companions.push_back(w);
  for (size_t k = 0; k < n_flag_maps; ++k)
    companions.emplace_back("FLAG_IMAGE", settings.flag_images[k]);
  for (const auto& [key, file] : companions) {
    if (file.find('[') != std::string::npos)
      throw Error(key + " " + file + ": with the multi-extension image " + image +
                  ", name the file without an HDU (HDU n of it goes with HDU n of the image)");
    // Outputs are written after the companions are read: one written over them would be lost.
    if (settings.catalog_type != CatalogType::None)
      refuse_output_over_input(settings.catalog_name, file, "CATALOG_NAME");
    for (size_t i = 0; i < settings.check_types.size(); ++i)
      refuse_output_over_input(settings.check_names[i], file, "CHECKIMAGE_NAME");
    const std::vector<int> have = image_hdus(file);
    if (have.empty()) continue;  // unreadable: its reading says why
    for (size_t k = 0; k < hdus.size(); ++k)
      if (std::find(have.begin(), have.end(), hdus[k]) == have.end())
        throw Error(key + " " + file + ": no image at HDU " + std::to_string(hdus[k]) + ", where " +
                    image + " has its image extension " + std::to_string(k + 1) + " (" +
                    std::to_string(have.size()) + " image HDU(s)); a multi-extension " +
                    "image takes a file with the same extensions, HDU n for HDU n");
  }
}

std::string extension_image_path(const std::string& path, int hdu) {
  const auto [image, measure] = split_dual_image_path(path);
  return measure.empty() ? at_hdu(image, hdu) : at_hdu(image, hdu) + "," + at_hdu(measure, hdu);
}

Settings extension_settings(const Settings& settings, int hdu) {
  Settings s = settings;
  for (std::string& name : s.weight_images)
    if (!name.empty()) name = at_hdu(name, hdu);
  for (std::string& name : s.flag_images) name = at_hdu(name, hdu);
  // DGEO_IMAGE: SExtractor reads the map's HDU of the image's number, dropping any [..] on the
  // map's name (makeit.c); a map of one HDU serves every extension (dgeo_map.hpp).
  if (s.dgeo) {
    const std::string file = s.dgeo_image.substr(0, s.dgeo_image.find('['));
    s.dgeo_image = hdu_count(file) == 1 ? file : at_hdu(file, hdu);
  }
  return s;
}

}  // namespace celeris::extract
