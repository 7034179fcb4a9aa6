// Reading configuration and filter files from disk; the default configuration text.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "celeris/error.hpp"
#include "celeris/extract_settings.hpp"

namespace celeris::extract {

namespace {

std::string read_text_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(what + " " + path + ": cannot open (no such file or not readable)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// SExtractor's default.conv: a 3x3 "all-ground" pyramid, FWHM = 2 pixels.
constexpr const char* kDefaultConv = "CONV NORM\n1 2 1\n2 4 2\n1 2 1\n";

// Where SExtractor's distribution installs its filters (Debian: source-extractor package).
std::string find_filter(const std::string& name) {
  if (std::filesystem::exists(name)) return name;
  if (name.find('/') == std::string::npos) {
    for (const char* dir : {"/usr/share/source-extractor/", "/usr/share/sextractor/",
                            "/usr/local/share/source-extractor/", "/usr/local/share/sextractor/"}) {
      const std::string p = std::string(dir) + name;
      if (std::filesystem::exists(p)) return p;
    }
  }
  return {};
}

}  // namespace

void parse_filter(const std::string& text, const std::string& origin, Config& config) {
  std::istringstream in(text);
  std::string line;
  bool normalise = true, header_seen = false;
  std::vector<std::vector<float>> rows;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream ls(line);
    std::string first;
    if (!(ls >> first)) continue;
    if (!header_seen && (first == "CONV" || first == "conv")) {
      std::string mode;
      ls >> mode;
      if (mode == "NORM" || mode == "norm")
        normalise = true;
      else if (mode == "NONORM" || mode == "nonorm")
        normalise = false;
      else
        throw Error(origin + ": filter header must be 'CONV NORM' or 'CONV NONORM'");
      header_seen = true;
      continue;
    }
    std::istringstream row_in(line);
    std::vector<float> row;
    std::string tok;
    while (row_in >> tok) {
      char* end = nullptr;
      const double v = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0' || !std::isfinite(v))
        throw Error(origin + " line " + std::to_string(lineno) + ": bad filter coefficient '" +
                    printable_excerpt(tok) + "'");
      row.push_back(static_cast<float>(v));
    }
    if (!rows.empty() && row.size() != rows.front().size())
      throw Error(origin + " line " + std::to_string(lineno) +
                  ": filter rows have different lengths");
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw Error(origin + ": filter file holds no coefficients");
  const int w = static_cast<int>(rows.front().size()), h = static_cast<int>(rows.size());
  if (w > 31 || h > 31) throw Error(origin + ": filter larger than 31x31");
  std::vector<float> k;
  for (const auto& r : rows) k.insert(k.end(), r.begin(), r.end());
  if (normalise) {
    // SExtractor divides by the sum of absolute values; a zero-sum kernel (e.g. a Mexican hat
    // with exact balance) is divided by its quadratic norm instead.
    double sum = 0, var = 0;
    for (float v : k) {
      sum += std::fabs(v);
      var += static_cast<double>(v) * v;
    }
    if (sum == 0.0) sum = std::sqrt(var);
    if (sum > 0)
      for (float& v : k) v = static_cast<float>(v / sum);
  }
  config.filter_kernel = std::move(k);
  config.filter_width = w;
  config.filter_height = h;
}

void load_filter(const std::string& path, Config& config) {
  const std::string found = find_filter(path);
  if (found.empty()) {
    // SExtractor users rely on default.conv being present; fall back to its contents.
    if (path == "default.conv") {
      parse_filter(kDefaultConv, "default.conv (built in)", config);
      return;
    }
    throw Error("FILTER_NAME " + path + ": cannot open filter file (no such file)");
  }
  parse_filter(read_text_file(found, "FILTER_NAME"), found, config);
}

Settings load_settings(const std::string& config_path, const Overrides& overrides) {
  std::string text;
  std::string origin = "built-in defaults";
  if (!config_path.empty()) {
    text = read_text_file(config_path, "configuration file");
    origin = config_path;
  }
  Settings s = parse_settings(text, overrides, origin);
  if (s.config.filter) load_filter(s.filter_name, s.config);
  return s;
}

std::string default_config_text() {
  return R"(# Default configuration file for celeris extract (SExtractor 2.25 compatible)
#
#-------------------------------- Catalog ------------------------------------

CATALOG_NAME     test.cat       # name of the output catalog
CATALOG_TYPE     ASCII_HEAD     # NONE, ASCII, ASCII_HEAD, FITS_1.0 or FITS_LDAC
PARAMETERS_NAME  default.param  # name of the file containing catalog contents

#------------------------------- Extraction ----------------------------------

DETECT_TYPE      CCD            # CCD (linear) or PHOTO (with gamma correction)
DETECT_MINAREA   5              # min. # of pixels above threshold
DETECT_THRESH    1.5            # <sigmas> or <threshold> (THRESH_TYPE ABSOLUTE)
ANALYSIS_THRESH  1.5            # <sigmas> or <threshold> (THRESH_TYPE ABSOLUTE)
THRESH_TYPE      RELATIVE       # RELATIVE (in sigmas) or ABSOLUTE (in ADUs)

FILTER           Y              # apply filter for detection (Y or N)?
FILTER_NAME      default.conv   # name of the file containing the filter

DEBLEND_NTHRESH  32             # Number of deblending sub-thresholds
DEBLEND_MINCONT  0.005          # Minimum contrast parameter for deblending

CLEAN            Y              # Clean spurious detections? (Y or N)?
CLEAN_PARAM      1.0            # Cleaning efficiency

MASK_TYPE        CORRECT        # type of detection MASKing: can be one of
                                # NONE, BLANK or CORRECT

FLAG_IMAGE       flag.fits      # filename(s) for input FLAG-image(s) (IMAFLAGS_ISO)
FLAG_TYPE        OR             # flag pixel combination: OR, AND, MIN, MAX or MOST

#------------------------------ Photometry -----------------------------------

PHOT_APERTURES   5              # MAG_APER aperture diameter(s) in pixels
PHOT_AUTOPARAMS  2.5, 3.5       # MAG_AUTO parameters: <Kron_fact>,<min_radius>
PHOT_AUTOAPERS   0.0,0.0        # <estimation>,<measurement> minimum apertures
                                # for MAG_AUTO and MAG_PETRO
PHOT_FLUXFRAC    0.5            # flux fraction[s] used for FLUX_RADIUS

SATUR_LEVEL      50000.0        # level (in ADUs) at which arises saturation
SATUR_KEY        SATURATE       # keyword for saturation level (in ADUs)

MAG_ZEROPOINT    0.0            # magnitude zero-point
MAG_GAMMA        4.0            # gamma of emulsion (for photographic scans)
GAIN             0.0            # detector gain in e-/ADU
GAIN_KEY         GAIN           # keyword for detector gain in e-/ADU
PIXEL_SCALE      1.0            # size of pixel in arcsec (0=use FITS WCS info)

#------------------------- Star/Galaxy Separation ----------------------------

SEEING_FWHM      1.2            # stellar FWHM in arcsec
STARNNW_NAME     default.nnw    # Neural-Network_Weight table filename (CLASS_STAR)

#------------------------------ ASSOCiation ----------------------------------

ASSOC_NAME       sky.list       # name of the ASCII file to ASSOCiate
ASSOC_DATA       2,3,4          # columns of the data to replicate (0=all)
ASSOC_PARAMS     2,3,4          # columns of xpos,ypos[,mag]
ASSOCCOORD_TYPE  PIXEL          # ASSOC coordinates: PIXEL or WORLD
ASSOC_RADIUS     2.0            # cross-matching radius (pixels)
ASSOC_TYPE       NEAREST        # ASSOCiation method: FIRST, NEAREST, MEAN,
                                # MAG_MEAN, SUM, MAG_SUM, MIN or MAX
ASSOCSELEC_TYPE  MATCHED        # ASSOC selection type: ALL, MATCHED or -MATCHED

#------------------------------ Background -----------------------------------

BACK_TYPE        AUTO           # AUTO or MANUAL
BACK_VALUE       0.0            # Default background value in MANUAL mode
BACK_SIZE        64             # Background mesh: <size> or <width>,<height>
BACK_FILTERSIZE  3              # Background filter: <size> or <width>,<height>
BACK_FILTTHRESH  0.0            # Threshold above which the background-map filter operates

BACKPHOTO_TYPE   GLOBAL         # can be GLOBAL or LOCAL
BACKPHOTO_THICK  24             # thickness of the background LOCAL annulus

#------------------------------ Check Image ----------------------------------

CHECKIMAGE_TYPE  NONE           # NONE, BACKGROUND, BACKGROUND_RMS, MINIBACKGROUND,
                                # MINIBACK_RMS, -BACKGROUND, FILTERED, SEGMENTATION,
                                # OBJECTS, -OBJECTS or APERTURES
CHECKIMAGE_NAME  check.fits     # one FITS file per type

#----------------------------- Miscellaneous ---------------------------------

VERBOSE_TYPE     NORMAL         # can be QUIET, NORMAL or FULL
NTHREADS         0              # number of threads (0 = all cores)
)";
}

}  // namespace celeris::extract
