// SExtractor-style configuration: a .sex file plus "-KEY VALUE" overrides, read exactly as
// source-extractor reads them (keys, value lists separated by commas or blanks, '#' comments).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "celeris/extract.hpp"

namespace celeris::extract {

enum class CatalogType { None, Ascii, AsciiHead, Fits10, FitsLdac };
enum class Verbose { Quiet, Normal, Full };

// --- ASSOC (src/extract/stages/assoc.hpp): SExtractor's association of each object with the
// entries of an ASCII list within ASSOC_RADIUS pixels (assoc.c). Defaults are SExtractor's.
enum class AssocType { First, Nearest, Mean, MagMean, Sum, MagSum, Min, Max };
enum class AssocSelect { All, Matched, NotMatched };  // ASSOCSELEC_TYPE ALL, MATCHED, -MATCHED
struct AssocSettings {
  std::string name = "sky.list";     // ASSOC_NAME
  std::vector<int> params{2, 3, 4};  // ASSOC_PARAMS: 1-based columns of x, y[, weight]
  std::vector<int> data{2, 3, 4};    // ASSOC_DATA: 1-based columns copied (0: all)
  double radius = 2.0;               // ASSOC_RADIUS, pixels
  AssocType type = AssocType::Nearest;
  AssocSelect select = AssocSelect::Matched;
  bool world = false;  // ASSOCCOORD_TYPE WORLD: x, y are RA, Dec (J2000, deg)
};
// --- end of ASSOC

// Everything a run needs beyond the numeric Config: file names and output choices.
struct Settings {
  Config config;
  std::string catalog_name = "test.cat";
  CatalogType catalog_type = CatalogType::AsciiHead;
  std::string parameters_name = "default.param";
  std::string filter_name = "default.conv";
  std::string satur_key = "SATURATE";
  std::string gain_key = "GAIN";
  std::string detect_type = "CCD";
  // HEADER_SUFFIX: SExtractor reads IMAGE<suffix> (img.head) beside the image when it exists;
  // celeris refuses to run then (it does not read external headers yet).
  std::string header_suffix = ".head";
  // FLAG_IMAGE (at most 4, read only when IMAFLAGS_ISO / NIMAFLAGS_ISO is asked for) and
  // FLAG_TYPE (one per map; OR where not given, as SExtractor).
  std::vector<std::string> flag_images = {"flag.fits"};
  std::vector<FlagType> flag_types;
  // WEIGHT_* and INTERP_* as given: SExtractor's lists of up to two values (detection, then
  // measurement), resolved by parse_settings into Config::detect_weight / measure_weight and
  // weight_images with SExtractor's rules for the values not given (prefs.c).
  struct WeightLists {
    std::vector<WeightType> type = {WeightType::None};
    std::vector<std::string> image;
    std::vector<double> thresh;
    std::vector<bool> rescale = {true};
    std::vector<InterpType> interp = {InterpType::All};
    std::vector<int> xlag = {16}, ylag = {16};
  } weights;
  // The detection and the measurement weight map files (the same one unless
  // Config::separate_weights); read for the MAP_* types.
  std::vector<std::string> weight_images;
  // STARNNW_NAME: CLASS_STAR's network weights (read only when CLASS_STAR is asked for; a bare
  // name is also looked for in /usr/share/source-extractor, where Debian puts default.nnw).
  std::string starnnw_name = "default.nnw";
  AssocSettings assoc;  // ASSOC_* (read only when VECTOR_ASSOC / NUMBER_ASSOC is asked for)
  // DGEO_TYPE PIXEL (dgeo true): the differential-geometry map DGEO_IMAGE is read and every
  // position measured less its pixel shifts (src/extract/stages/dgeo_map.hpp); NONE: not read.
  bool dgeo = false;
  std::string dgeo_image = "dgeo.fits";
  Verbose verbose = Verbose::Normal;
  bool satur_level_given = false;  // set explicitly (file or command line)
  bool gain_given = false;
  std::vector<CheckImage> check_types;                    // CHECKIMAGE_TYPE (NONE dropped)
  std::vector<std::string> check_names = {"check.fits"};  // CHECKIMAGE_NAME, one per type
  std::vector<std::string> warnings;                      // unknown or unsupported keys
};

using Overrides = std::vector<std::pair<std::string, std::string>>;  // KEY, VALUE

// Applies a configuration text (contents of a .sex file) then the overrides. Unknown keys add a
// warning (as in SExtractor); an invalid value, or a value of a SExtractor key whose effect
// celeris does not reproduce (WEIGHT_TYPE other than NONE, ...), throws celeris::Error naming
// the key. Does not read filter or
// parameter files (see load_filter / read_parameter_list).
Settings parse_settings(const std::string& config_text, const Overrides& overrides,
                        const std::string& config_origin = "configuration");

// Reads `config_path` (empty: built-in defaults) and applies the overrides, then loads the
// filter named by FILTER_NAME when FILTER is Y.
Settings load_settings(const std::string& config_path, const Overrides& overrides);

// Parses a SExtractor .conv file ("CONV NORM" / "CONV NONORM" header, rows of numbers).
// Normalised so that the sum of absolute values is 1 when NORM (as SExtractor does).
void parse_filter(const std::string& text, const std::string& origin, Config& config);
void load_filter(const std::string& path, Config& config);

// The text `celeris extract -d` prints: a complete default configuration file.
std::string default_config_text();

// The text `celeris extract -dp` prints: every catalog parameter celeris can compute.
std::string parameter_list_text();

}  // namespace celeris::extract
