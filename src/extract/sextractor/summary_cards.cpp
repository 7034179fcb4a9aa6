#include "extract/sextractor/summary_cards.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "celeris/fits.hpp"

namespace celeris::extract {

using fits_cards::flag;
using fits_cards::integer;
using fits_cards::number;
using fits_cards::text;

std::vector<std::string> summary_cards(const Settings& settings, const Config& c,
                                       const RunInfo& info, const RunSummary& run) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char date[16], clock[16];
  std::strftime(date, sizeof date, "%d/%m/%Y", &tm);
  std::strftime(clock, sizeof clock, "%H:%M:%S", &tm);
  // The background mesh as SExtractor sizes it: at most the image (field.c).
  const int mesh_w = std::max(1, std::min(c.back_width, run.width));
  const int mesh_h = std::max(1, std::min(c.back_height, run.height));
  auto aperture = [&](size_t i) { return i < c.phot_apertures.size() ? c.phot_apertures[i] : 0.0; };
  return {
      text("FITSFILE", run.image_name, "File name of the analysed image"),
      text("SEXVERS", std::string("celeris ") + CELERIS_VERSION, "Extraction software"),
      text("SEXDATE", date, "Extraction date"),
      text("SEXTIME", clock, "Extraction time"),
      number("SEXELAPS", run.elapsed_s, "Elapsed time during extraction (s)"),
      number("SEXBKGND", info.global_back, "Median background level (ADU)"),
      number("SEXBKDEV", info.global_rms, "Median background RMS (ADU)"),
      number("SEXTHLD", info.detect_thresh, "Extraction threshold (ADU)"),
      number("SEXATHLD", info.analysis_thresh, "Analysis threshold (ADU)"),
      integer("SEXNDET", static_cast<long long>(info.n_detections), "Number of raw detections"),
      integer("SEXNFIN", static_cast<long long>(run.n_objects),
              "Final number of extracted sources"),
      integer("SEXNPARA", static_cast<long long>(run.n_params), "Number of parameters per source"),
      number("SEXPXSCL", c.pixel_scale, "Pixel scale used for measurements (arcsec)"),
      number("SEXSFWHM", c.seeing_fwhm, "Source FWHM used for measurements (arcsec)"),
      number("SEXGAIN", c.gain, "Gain used (e-/ADU)"),
      flag("SEXFLTR", c.filter, "Detection filtering activated (flag)"),
      text("SEXFILTN", settings.filter_name, "Filter filename"),
      integer("SEXMINAR", c.detect_minarea, "Minimum area used for detection (pixels)"),
      integer("SEXDBLDN", c.deblend_nthresh, "Number of deblending thresholds"),
      number("SEXDBLDC", c.deblend_mincont, "Minimum contrast used for deblending"),
      flag("SEXCLN", c.clean, "Cleaning activated (flag)"),
      number("SEXCLNPA", c.clean_param, "Cleaning parameter"),
      integer("SEXCLNST", c.memory_objstack, "Cleaning stack-size"),
      number("SEXAPED1", aperture(0), "Fixed photometric aperture #1 (pixels)"),
      number("SEXAPED2", aperture(1), "Fixed photometric aperture #2 (pixels)"),
      number("SEXAPED3", aperture(2), "Fixed photometric aperture #3 (pixels)"),
      number("SEXAPED4", aperture(3), "Fixed photometric aperture #4 (pixels)"),
      number("SEXAUTP1", c.kron_fact, "Parameter #1 used for automatic magnitudes"),
      number("SEXAUTP2", c.kron_minradius, "Parameter #2 used for automatic magnitudes"),
      // SExtractor writes the Kron parameters here too (its PHOT_PETROPARAMS are not used).
      number("SEXPETP1", c.kron_fact, "Parameter #1 used for Petrosian magnitudes"),
      number("SEXPETP2", c.kron_minradius, "Parameter #2 used for Petrosian magnitudes"),
      number("SEXSATLV", c.satur_level, "Saturation level used for flagging (ADU)"),
      number("SEXMGZPT", c.mag_zeropoint, "Zero-point used for magnitudes"),
      integer("SEXBKGSX", mesh_w, "Mesh width used for background mapping (pixels)"),
      integer("SEXBKGSY", mesh_h, "Mesh height used for background mapping (pixels)"),
      // 1 where a single mesh spans the axis, as SExtractor's nbackfx/nbackfy.
      integer("SEXBKGFX", (run.width - 1) / mesh_w + 1 > 1 ? c.back_filter_width : 1,
              "Mask width used for background map filtering"),
      integer("SEXBKGFY", (run.height - 1) / mesh_h + 1 > 1 ? c.back_filter_height : 1,
              "Mask height used for background map filtering"),
      integer("SEXPBKGS", c.backphoto_thick, "Thickness used for local background (pixels)"),
      integer("SEXFBUFS", c.memory_bufsize, "Image-buffer height (scanlines)"),
  };
}

}  // namespace celeris::extract
