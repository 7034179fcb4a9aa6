// Parsing SExtractor configuration files and command-line overrides into Settings.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "celeris/error.hpp"
#include "celeris/extract_settings.hpp"

namespace celeris::extract {

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// SExtractor separates list elements with commas and/or blanks.
std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : text) {
    if (ch == ',' || ch == ' ' || ch == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

using Values = std::vector<std::string>;

[[noreturn]] void bad_value(const std::string& key, const Values& v, const std::string& why) {
  std::string joined;
  for (size_t i = 0; i < v.size(); ++i) joined += (i ? "," : "") + v[i];
  // Quoted short and printable: a value may be megabytes of anything.
  throw Error("invalid value '" + printable_excerpt(joined) + "' for " + key + ": " + why);
}

double to_double(const std::string& key, const Values& v, size_t i, double lo, double hi) {
  if (i >= v.size()) bad_value(key, v, "a number is missing");
  char* end = nullptr;
  const double d = std::strtod(v[i].c_str(), &end);
  if (end == v[i].c_str() || *end != '\0' || !std::isfinite(d)) bad_value(key, v, "not a number");
  if (d < lo || d > hi) {
    std::ostringstream os;
    os << "out of range [" << lo << ", " << hi << "]";
    bad_value(key, v, os.str());
  }
  return d;
}

int to_int(const std::string& key, const Values& v, size_t i, int lo, int hi) {
  const double d = to_double(key, v, i, lo, hi);
  if (d != std::floor(d)) bad_value(key, v, "not an integer");
  return static_cast<int>(d);
}

bool to_bool(const std::string& key, const Values& v) {
  if (v.size() != 1) bad_value(key, v, "expected Y or N");
  const std::string s = upper(v[0]);
  if (s == "Y" || s == "YES" || s == "T" || s == "TRUE") return true;
  if (s == "N" || s == "NO" || s == "F" || s == "FALSE") return false;
  bad_value(key, v, "expected Y or N");
}

std::string to_choice(const std::string& key, const Values& v,
                      std::initializer_list<const char*> choices) {
  if (v.size() != 1) bad_value(key, v, "expected one value");
  const std::string s = upper(v[0]);
  std::string list;
  for (const char* c : choices) {
    if (s == c) return s;
    list += (list.empty() ? "" : ", ") + std::string(c);
  }
  bad_value(key, v, "expected one of " + list);
}

std::string to_string_value(const std::string& key, const Values& v) {
  if (v.size() != 1) bad_value(key, v, "expected one value");
  return v[0];
}

// Two values "<w>,<h>" or one "<size>" for both.
void to_pair(const std::string& key, const Values& v, int lo, int hi, int& w, int& h) {
  if (v.empty() || v.size() > 2) bad_value(key, v, "expected <size> or <width>,<height>");
  w = to_int(key, v, 0, lo, hi);
  h = v.size() == 2 ? to_int(key, v, 1, lo, hi) : w;
}

using Setter = std::function<void(Settings&, const std::string&, const Values&)>;

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"CATALOG_NAME",
       [](Settings& s, auto& k, auto& v) { s.catalog_name = to_string_value(k, v); }},
      {"CATALOG_TYPE",
       [](Settings& s, auto& k, auto& v) {
         const std::string t =
             to_choice(k, v, {"NONE", "ASCII", "ASCII_HEAD", "FITS_1.0", "FITS_LDAC"});
         s.catalog_type = t == "NONE"         ? CatalogType::None
                          : t == "ASCII"      ? CatalogType::Ascii
                          : t == "ASCII_HEAD" ? CatalogType::AsciiHead
                          : t == "FITS_1.0"   ? CatalogType::Fits10
                                              : CatalogType::FitsLdac;
       }},
      {"PARAMETERS_NAME",
       [](Settings& s, auto& k, auto& v) { s.parameters_name = to_string_value(k, v); }},
      {"DETECT_TYPE",
       [](Settings& s, auto& k, auto& v) {
         s.detect_type = to_choice(k, v, {"CCD", "PHOTO"});
         s.config.photo = s.detect_type == "PHOTO";
       }},
      {"MAG_GAMMA",
       [](Settings& s, auto& k, auto& v) { s.config.mag_gamma = to_double(k, v, 0, 1e-10, 1e30); }},
      {"MEMORY_BUFSIZE", [](Settings& s, auto& k,
                            auto& v) { s.config.memory_bufsize = to_int(k, v, 0, 1, 1 << 30); }},
      {"MEMORY_OBJSTACK", [](Settings& s, auto& k,
                             auto& v) { s.config.memory_objstack = to_int(k, v, 0, 1, 1 << 30); }},
      // SExtractor's range (preflist.h); the stack is modelled in detection (pixel_stack.hpp).
      {"MEMORY_PIXSTACK", [](Settings& s, auto& k,
                             auto& v) { s.config.memory_pixstack = to_int(k, v, 0, 1000, 100000000); }},
      {"DETECT_MINAREA", [](Settings& s, auto& k,
                            auto& v) { s.config.detect_minarea = to_int(k, v, 0, 1, 100000000); }},
      {"DETECT_THRESH",
       [](Settings& s, auto& k, auto& v) {
         if (v.size() != 1)
           bad_value(k, v, "surface-brightness thresholds (<mag>,<ZP>) are not supported");
         s.config.detect_thresh = to_double(k, v, 0, -1e30, 1e30);
       }},
      {"ANALYSIS_THRESH",
       [](Settings& s, auto& k, auto& v) {
         if (v.size() != 1)
           bad_value(k, v, "surface-brightness thresholds (<mag>,<ZP>) are not supported");
         s.config.analysis_thresh = to_double(k, v, 0, -1e30, 1e30);
       }},
      {"THRESH_TYPE",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 2) bad_value(k, v, "expected RELATIVE or ABSOLUTE");
         // <detection>,<analysis> (back.c); one type serves both.
         auto type = [&](const std::string& one) {
           return to_choice(k, {one}, {"RELATIVE", "ABSOLUTE"}) == "RELATIVE" ? ThreshType::Relative
                                                                             : ThreshType::Absolute;
         };
         s.config.thresh_type = type(v[0]);
         s.config.analysis_thresh_type = type(v.back());
       }},
      {"FILTER", [](Settings& s, auto& k, auto& v) { s.config.filter = to_bool(k, v); }},
      {"FILTER_NAME", [](Settings& s, auto& k, auto& v) { s.filter_name = to_string_value(k, v); }},
      {"DEBLEND_NTHRESH",
       [](Settings& s, auto& k, auto& v) { s.config.deblend_nthresh = to_int(k, v, 0, 1, 64); }},
      {"DEBLEND_MINCONT", [](Settings& s, auto& k,
                             auto& v) { s.config.deblend_mincont = to_double(k, v, 0, 0.0, 1.0); }},
      {"CLEAN", [](Settings& s, auto& k, auto& v) { s.config.clean = to_bool(k, v); }},
      {"CLEAN_PARAM",
       [](Settings& s, auto& k, auto& v) { s.config.clean_param = to_double(k, v, 0, 0.1, 10.0); }},
      {"MASK_TYPE",
       [](Settings& s, auto& k, auto& v) {
         const std::string t = to_choice(k, v, {"NONE", "BLANK", "CORRECT"});
         s.config.mask_type = t == "NONE"    ? MaskType::None
                              : t == "BLANK" ? MaskType::Blank
                                             : MaskType::Correct;
       }},
      {"BACK_TYPE",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 2) bad_value(k, v, "expected AUTO or MANUAL");
         s.config.back_manual = to_choice(k, {v[0]}, {"AUTO", "MANUAL"}) == "MANUAL";
       }},
      {"BACK_VALUE",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 2) bad_value(k, v, "expected a number");
         s.config.back_value = to_double(k, v, 0, -1e30, 1e30);
       }},
      {"BACK_SIZE",
       [](Settings& s, auto& k, auto& v) {
         to_pair(k, v, 1, 2000000000, s.config.back_width, s.config.back_height);
       }},
      {"BACK_FILTERSIZE",
       [](Settings& s, auto& k, auto& v) {
         to_pair(k, v, 1, 11, s.config.back_filter_width, s.config.back_filter_height);
       }},
      {"BACK_FILTTHRESH",
       [](Settings& s, auto& k, auto& v) {
         s.config.back_filtthresh = to_double(k, v, 0, 0.0, 1e30);
       }},
      {"BACKPHOTO_TYPE",
       [](Settings& s, auto& k, auto& v) {
         s.config.backphoto_type = to_choice(k, v, {"GLOBAL", "LOCAL"}) == "GLOBAL"
                                       ? BackPhotoType::Global
                                       : BackPhotoType::Local;
       }},
      {"BACKPHOTO_THICK",
       [](Settings& s, auto& k, auto& v) { s.config.backphoto_thick = to_int(k, v, 0, 1, 256); }},
      {"CHECKIMAGE_TYPE",
       [](Settings& s, auto& k, auto& v) {
         static const std::vector<std::pair<std::string, CheckImage>> types = {
             {"BACKGROUND", CheckImage::Background},
             {"BACKGROUND_RMS", CheckImage::BackgroundRms},
             {"MINIBACKGROUND", CheckImage::MiniBackground},
             {"MINIBACK_RMS", CheckImage::MiniBackRms},
             {"-BACKGROUND", CheckImage::MinusBackground},
             {"FILTERED", CheckImage::Filtered},
             {"SEGMENTATION", CheckImage::Segmentation},
             {"OBJECTS", CheckImage::Objects},
             {"-OBJECTS", CheckImage::MinusObjects},
             {"APERTURES", CheckImage::Apertures},
         };
         s.check_types.clear();
         for (const std::string& raw : v) {
           const std::string t = upper(raw);
           if (t == "NONE") continue;
           auto it = std::find_if(types.begin(), types.end(),
                                  [&](const auto& p) { return p.first == t; });
           if (it == types.end())
             bad_value(k, v,
                       "supported: NONE, BACKGROUND, BACKGROUND_RMS, MINIBACKGROUND, "
                       "MINIBACK_RMS, -BACKGROUND, FILTERED, SEGMENTATION, OBJECTS, -OBJECTS, "
                       "APERTURES (" +
                           raw + " is not implemented yet)");
           s.check_types.push_back(it->second);
         }
       }},
      {"CHECKIMAGE_NAME",
       [](Settings& s, auto&, auto& v) { s.check_names.assign(v.begin(), v.end()); }},
      {"PHOT_APERTURES",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 32) bad_value(k, v, "expected 1 to 32 diameters");
         s.config.phot_apertures.clear();
         for (size_t i = 0; i < v.size(); ++i)
           s.config.phot_apertures.push_back(to_double(k, v, i, 0.0, 1e9));
       }},
      {"PHOT_AUTOPARAMS",
       [](Settings& s, auto& k, auto& v) {
         if (v.size() != 2) bad_value(k, v, "expected <Kron_fact>,<min_radius>");
         s.config.kron_fact = to_double(k, v, 0, 0.0, 10.0);
         s.config.kron_minradius = to_double(k, v, 1, 0.0, 10.0);
       }},
      {"PHOT_PETROPARAMS",
       [](Settings& s, auto& k, auto& v) {
         if (v.size() != 2) bad_value(k, v, "expected <Petrosian_fact>,<min_radius>");
         s.config.petro_fact = to_double(k, v, 0, 0.0, 10.0);
         s.config.petro_minradius = to_double(k, v, 1, 0.0, 10.0);
       }},
      {"PHOT_AUTOAPERS",
       [](Settings& s, auto& k, auto& v) {
         if (v.size() != 2) bad_value(k, v, "expected <estimation>,<measurement> diameters");
         s.config.autoaper_search = to_double(k, v, 0, 0.0, 1e31);
         s.config.autoaper_flux = to_double(k, v, 1, 0.0, 1e31);
       }},
      {"PHOT_FLUXFRAC",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 32) bad_value(k, v, "expected 1 to 32 fractions");
         s.config.phot_fluxfrac.clear();
         for (size_t i = 0; i < v.size(); ++i)
           s.config.phot_fluxfrac.push_back(to_double(k, v, i, 1e-5, 0.99999));
       }},
      {"SATUR_LEVEL",
       [](Settings& s, auto& k, auto& v) {
         s.config.satur_level = to_double(k, v, 0, -1e30, 1e30);
         s.satur_level_given = true;
       }},
      {"SATUR_KEY", [](Settings& s, auto& k, auto& v) { s.satur_key = to_string_value(k, v); }},
      {"MAG_ZEROPOINT",
       [](Settings& s, auto& k, auto& v) {
         s.config.mag_zeropoint = to_double(k, v, 0, -100.0, 100.0);
       }},
      {"GAIN",
       [](Settings& s, auto& k, auto& v) {
         s.config.gain = to_double(k, v, 0, 0.0, 1e30);
         s.gain_given = true;
       }},
      {"GAIN_KEY", [](Settings& s, auto& k, auto& v) { s.gain_key = to_string_value(k, v); }},
      {"DGEO_TYPE",
       [](Settings& s, auto& k, auto& v) { s.dgeo = to_choice(k, v, {"NONE", "PIXEL"}) == "PIXEL"; }},
      {"DGEO_IMAGE", [](Settings& s, auto& k, auto& v) { s.dgeo_image = to_string_value(k, v); }},
      {"FLAG_IMAGE",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 4) bad_value(k, v, "expected 1 to 4 file names");
         s.flag_images.assign(v.begin(), v.end());
       }},
      {"FLAG_TYPE",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 4) bad_value(k, v, "expected 1 to 4 types");
         s.flag_types.clear();
         for (const auto& one : v) {
           const std::string t = to_choice(k, {one}, {"OR", "AND", "MIN", "MAX", "MOST"});
           s.flag_types.push_back(t == "OR"    ? FlagType::Or
                                  : t == "AND" ? FlagType::And
                                  : t == "MIN" ? FlagType::Min
                                  : t == "MAX" ? FlagType::Max
                                               : FlagType::Most);
         }
       }},
      // Weights (stages/weights.hpp): up to two values, for detection then measurement
      // (resolve_weights).
      {"WEIGHT_TYPE",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 2) bad_value(k, v, "expected 1 or 2 types");
         s.weights.type.clear();
         for (const auto& one : v) {
           const std::string t =
               to_choice(k, {one}, {"NONE", "BACKGROUND", "MAP_RMS", "MAP_VAR", "MAP_WEIGHT"});
           s.weights.type.push_back(t == "NONE"         ? WeightType::None
                                    : t == "BACKGROUND" ? WeightType::Background
                                    : t == "MAP_RMS"    ? WeightType::MapRms
                                    : t == "MAP_VAR"    ? WeightType::MapVar
                                                        : WeightType::MapWeight);
         }
       }},
      {"WEIGHT_IMAGE",
       [](Settings& s, auto& k, auto& v) {
         if (v.size() > 2) bad_value(k, v, "expected 1 or 2 file names");
         s.weights.image.assign(v.begin(), v.end());
       }},
      {"WEIGHT_THRESH",
       [](Settings& s, auto& k, auto& v) {
         if (v.size() > 2) bad_value(k, v, "expected 0 to 2 thresholds");
         s.weights.thresh.clear();
         for (size_t i = 0; i < v.size(); ++i) s.weights.thresh.push_back(to_double(k, v, i, 0.0, 1e30));
       }},
      {"WEIGHT_GAIN", [](Settings& s, auto& k, auto& v) { s.config.weight_gain = to_bool(k, v); }},
      {"RESCALE_WEIGHTS",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 2) bad_value(k, v, "expected 1 or 2 of Y/N");
         s.weights.rescale.clear();
         for (const auto& one : v) s.weights.rescale.push_back(to_bool(k, {one}));
       }},
      {"INTERP_TYPE",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 2) bad_value(k, v, "expected 1 or 2 types");
         s.weights.interp.clear();
         for (const auto& one : v) {
           const std::string t = to_choice(k, {one}, {"NONE", "VAR_ONLY", "ALL"});
           s.weights.interp.push_back(t == "NONE"       ? InterpType::None
                                      : t == "VAR_ONLY" ? InterpType::VarOnly
                                                        : InterpType::All);
         }
       }},
      {"INTERP_MAXXLAG",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 2) bad_value(k, v, "expected 1 or 2 values");
         s.weights.xlag.clear();
         for (size_t i = 0; i < v.size(); ++i) s.weights.xlag.push_back(to_int(k, v, i, 1, 1000000));
       }},
      {"INTERP_MAXYLAG",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 2) bad_value(k, v, "expected 1 or 2 values");
         s.weights.ylag.clear();
         for (size_t i = 0; i < v.size(); ++i) s.weights.ylag.push_back(to_int(k, v, i, 1, 1000000));
       }},
      // --- ASSOC (stages/assoc.hpp); the ranges are SExtractor's (preflist.h).
      {"ASSOC_NAME", [](Settings& s, auto& k, auto& v) { s.assoc.name = to_string_value(k, v); }},
      {"ASSOC_PARAMS",
       [](Settings& s, auto& k, auto& v) {
         if (v.size() < 2 || v.size() > 3) bad_value(k, v, "expected 2 or 3 columns: x,y[,param]");
         s.assoc.params.clear();
         for (size_t i = 0; i < v.size(); ++i) s.assoc.params.push_back(to_int(k, v, i, 1, 1000000));
       }},
      {"ASSOC_DATA",
       [](Settings& s, auto& k, auto& v) {
         if (v.empty() || v.size() > 32) bad_value(k, v, "expected 1 to 32 columns (0: all)");
         s.assoc.data.clear();
         for (size_t i = 0; i < v.size(); ++i) s.assoc.data.push_back(to_int(k, v, i, 0, 1000000));
       }},
      {"ASSOC_RADIUS",
       [](Settings& s, auto& k, auto& v) { s.assoc.radius = to_double(k, v, 0, 1e-10, 1e10); }},
      {"ASSOC_TYPE",
       [](Settings& s, auto& k, auto& v) {
         const std::string t = to_choice(
             k, v, {"FIRST", "NEAREST", "MEAN", "MAG_MEAN", "SUM", "MAG_SUM", "MIN", "MAX"});
         s.assoc.type = t == "FIRST"      ? AssocType::First
                        : t == "NEAREST"  ? AssocType::Nearest
                        : t == "MEAN"     ? AssocType::Mean
                        : t == "MAG_MEAN" ? AssocType::MagMean
                        : t == "SUM"      ? AssocType::Sum
                        : t == "MAG_SUM"  ? AssocType::MagSum
                        : t == "MIN"      ? AssocType::Min
                                          : AssocType::Max;
       }},
      {"ASSOCSELEC_TYPE",
       [](Settings& s, auto& k, auto& v) {
         const std::string t = to_choice(k, v, {"ALL", "MATCHED", "-MATCHED"});
         s.assoc.select = t == "ALL"       ? AssocSelect::All
                          : t == "MATCHED" ? AssocSelect::Matched
                                           : AssocSelect::NotMatched;
       }},
      {"ASSOCCOORD_TYPE",
       [](Settings& s, auto& k, auto& v) {
         s.assoc.world = to_choice(k, v, {"PIXEL", "WORLD"}) == "WORLD";
       }},
      // --- end of ASSOC
      {"STARNNW_NAME",
       [](Settings& s, auto& k, auto& v) { s.starnnw_name = to_string_value(k, v); }},
      {"HEADER_SUFFIX",
       [](Settings& s, auto& k, auto& v) { s.header_suffix = to_string_value(k, v); }},
      {"PIXEL_SCALE",
       [](Settings& s, auto& k, auto& v) { s.config.pixel_scale = to_double(k, v, 0, 0.0, 1e10); }},
      {"SEEING_FWHM", [](Settings& s, auto& k,
                         auto& v) { s.config.seeing_fwhm = to_double(k, v, 0, 1e-10, 1e10); }},
      {"VERBOSE_TYPE",
       [](Settings& s, auto& k, auto& v) {
         const std::string t = to_choice(k, v, {"QUIET", "NORMAL", "LOG", "FULL"});
         s.verbose = t == "QUIET" ? Verbose::Quiet : t == "FULL" ? Verbose::Full : Verbose::Normal;
       }},
      {"NTHREADS",
       [](Settings& s, auto& k, auto& v) { s.config.threads = to_int(k, v, 0, 0, 1024); }},
  };
  return table;
}

// SExtractor keys whose effect celeris does not reproduce yet. Each is accepted only at a value
// with which SExtractor does nothing either (its default); any other value is an error naming
// the key, so that no run silently differs from SExtractor's (issue 19, item 7).
struct Unsupported {
  std::function<bool(const Values&)> neutral;  // the value SExtractor ignores too
  const char* what;                            // what celeris lacks
};

bool all_equal(const Values& v, const char* neutral) {
  return std::all_of(v.begin(), v.end(), [&](const std::string& x) { return upper(x) == neutral; });
}

const std::map<std::string, Unsupported>& unsupported_keys() {
  static const std::map<std::string, Unsupported> table = {
      {"DETECT_MAXAREA",
       {[](const Values& v) {
          char* end = nullptr;
          return v.size() == 1 && std::strtod(v[0].c_str(), &end) == 0.0 && end != v[0].c_str() &&
                 *end == '\0';
        },
        "a maximum object area is not supported yet (only 0)"}},
      {"FITS_UNSIGNED",
       {[](const Values& v) { return all_equal(v, "N"); },
        "reading signed integers as unsigned is not supported (only N)"}},
      {"WRITE_XML",
       {[](const Values& v) { return all_equal(v, "N"); },
        "the XML run summary is not written (only N)"}},
      {"FILTER_THRESH",
       {[](const Values& v) { return v.empty(); },
        "filter thresholds are not supported (leave it empty)"}},
  };
  return table;
}

// SExtractor keys that act only together with a feature celeris refuses elsewhere (a catalog
// parameter it does not compute, DETECT_TYPE PHOTO, WRITE_XML Y): with those
// refused, SExtractor does nothing with them either, so any value is accepted.
const std::vector<std::string>& inert_keys() {
  static const std::vector<std::string> keys = {
      "PATTERN_TYPE", "PSFDISPLAY_TYPE", "PSF_NAME", "PSF_NMAX", "SOM_NAME", "XML_NAME", "XSL_URL",
  };
  return keys;
}

void apply(Settings& s, const std::string& raw_key, const Values& values,
           const std::string& origin) {
  const std::string key = upper(raw_key);
  const auto& table = setters();
  if (auto it = table.find(key); it != table.end()) {
    it->second(s, key, values);
    return;
  }
  if (auto it = unsupported_keys().find(key); it != unsupported_keys().end()) {
    if (!it->second.neutral(values)) bad_value(key, values, it->second.what);
    return;
  }
  const auto& inert = inert_keys();
  if (std::find(inert.begin(), inert.end(), key) != inert.end()) return;
  s.warnings.push_back("unknown configuration key " + printable_excerpt(key) + " in " + origin +
                       " (ignored)");
}

bool reads_map(WeightType t) {
  return t == WeightType::MapRms || t == WeightType::MapVar || t == WeightType::MapWeight;
}

// SExtractor's rules (prefs.c, makeit.c) for the weight lists: a missing second type is the
// first; a second WEIGHT_IMAGE with one type means two maps of that type; thresholds not given
// take their type's default; a missing second RESCALE_WEIGHTS is the first; a missing second
// INTERP_* is NONE / 0. With one type (one map) the map takes the first threshold, the first
// interpolation settings and the second RESCALE_WEIGHTS, as SExtractor's single-map mode does.
void resolve_weights(Settings& s) {
  const auto& l = s.weights;
  Config& c = s.config;
  c.detect_weight = c.measure_weight = WeightParams{};
  c.detect_weight.type = c.measure_weight.type = WeightType::None;
  c.separate_weights = false;
  s.weight_images.clear();
  const WeightType t[2] = {l.type[0], l.type.size() > 1 ? l.type[1] : l.type[0]};
  if (t[0] == WeightType::None && t[1] == WeightType::None) return;
  const size_t nimage = l.image.size();
  if ((nimage == 0 && (reads_map(t[0]) || reads_map(t[1]))) ||
      (nimage < 2 && reads_map(t[0]) && reads_map(t[1]) && t[0] != t[1]))
    throw Error("WEIGHT_IMAGE missing: WEIGHT_TYPE " +
                std::string(nimage ? "with two map types needs two maps" : "reads a weight map"));
  size_t ntype = l.type.size();
  if (nimage == 2 && ntype == 1) ntype = 2;
  // prefs.c turns one map with INTERP_TYPE VAR_ONLY (first element) into a detection weight
  // interpolated from the measurement map, then, reading its own settings again, stops with
  // "WEIGHT_IMAGE missing": source-extractor 2.25 cannot run it, so there is nothing to match.
  if (ntype == 1 && l.interp[0] == InterpType::VarOnly && reads_map(t[0]))
    throw Error(
        "invalid value 'VAR_ONLY' for INTERP_TYPE with one weight map: source-extractor 2.25 "
        "stops there (\"WEIGHT_IMAGE missing\"); give the map twice, -WEIGHT_TYPE " +
        std::string(t[0] == WeightType::MapRms   ? "MAP_RMS,MAP_RMS"
                    : t[0] == WeightType::MapVar ? "MAP_VAR,MAP_VAR"
                                                 : "MAP_WEIGHT,MAP_WEIGHT") +
        " -WEIGHT_IMAGE m.fits,m.fits, or use NONE or ALL");
  const std::string none;
  s.weight_images = {nimage ? l.image[0] : none,
                     nimage > 1 ? l.image[1] : (nimage ? l.image[0] : none)};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double thresh[2] = {l.thresh.size() > 0 ? l.thresh[0] : nan,
                            l.thresh.size() > 1 ? l.thresh[1] : nan};
  const bool rescale[2] = {l.rescale[0], l.rescale.size() > 1 ? l.rescale[1] : l.rescale[0]};
  const InterpType interp[2] = {l.interp[0], l.interp.size() > 1 ? l.interp[1] : InterpType::None};
  const int xlag[2] = {l.xlag[0], l.xlag.size() > 1 ? l.xlag[1] : 0};
  const int ylag[2] = {l.ylag[0], l.ylag.size() > 1 ? l.ylag[1] : 0};
  auto params = [&](int i, bool rescale_i) {
    WeightParams p;
    p.type = t[i];
    p.thresh = thresh[i];
    p.rescale = rescale_i;
    p.interpolate = interp[i] != InterpType::None;
    p.xlag = xlag[i];
    p.ylag = ylag[i];
    return p;
  };
  c.interp_image = interp[0] == InterpType::All;
  c.interp_measure_image = interp[1] == InterpType::All;
  if (ntype > 1) {
    c.separate_weights = true;
    c.detect_weight = params(0, rescale[0]);
    c.measure_weight = params(1, rescale[1]);
  } else {
    // One map: its background scale is measured on the measurement image with the second
    // RESCALE_WEIGHTS, then (dual-image mode) on the detection image with the first.
    c.detect_weight = params(0, rescale[0]);
    c.measure_weight = params(0, rescale[1]);
  }
}

}  // namespace

Settings parse_settings(const std::string& config_text, const Overrides& overrides,
                        const std::string& config_origin) {
  Settings s;
  std::istringstream in(config_text);
  std::string line;
  while (std::getline(in, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    for (auto& ch : line)
      if (ch == '\t' || ch == '\r') ch = ' ';
    std::istringstream ls(line);
    std::string key;
    if (!(ls >> key)) continue;
    std::string rest;
    std::getline(ls, rest);
    apply(s, key, split_values(rest), config_origin);
  }
  for (const auto& [key, value] : overrides) apply(s, key, split_values(value), "command line");
  resolve_weights(s);
  if (s.config.analysis_thresh <= 0 && s.config.analysis_thresh_type == ThreshType::Relative)
    throw Error("invalid value for ANALYSIS_THRESH: must be > 0 in RELATIVE mode");
  return s;
}

}  // namespace celeris::extract
