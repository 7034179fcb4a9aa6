// Isophotal measurements of one object (SExtractor analyse.c:examineiso), made right after
// deblending: FLUX_ISO, ISOAREA, the peaks, position errors, the FWHM of a Gaussian core,
// BACKGROUND and CLEAN's threshold. Cleaning merges some of them (merge_iso).
#pragma once

#include "extract/objects.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/fwhm_sums.hpp"
#include "extract/stages/iso.hpp"
#include "extract/stages/iso_finish.hpp"
#include "extract/stages/iso_sums.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {

struct IsoParams {
  const BackgroundMap* background = nullptr;  // for BACKGROUND
  float backsig = 1.0f;                       // global background RMS
  double gain = 0.0;
  float detect_thresh = 0;    // ADU above background
  float analysis_thresh = 0;  // ADU above background
  double satur_level = 50000.0;
  bool clean = true;  // compute CLEAN's threshold
  int minarea = 5;    // DETECT_MINAREA
  // With measurement weights: each pixel's variance (Pixel::var) in FLUXERR_ISO and its own
  // analysis threshold (ANALYSIS_THRESH sigma of that variance), and WEIGHT_GAIN.
  bool weighted = false;
  bool weight_gain = true;
  // With detection weights: each pixel's own detection threshold (Pixel::dthresh) in CLEAN's
  // threshold, the object's the smallest of them.
  bool pixel_thresholds = false;
  // Dual-image mode: the measurement image less its background (the object pixels' values are
  // the detection image's), and the detection image's RMS for the position errors.
  ImageView<const float> measure;
  float dbacksig = 0;
  double ngamma = 0;  // DETECT_TYPE PHOTO: Config::photo_ngamma() (0 for CCD)
  // A differential-geometry map (dgeo_map.hpp): the position errors and the FWHM take each
  // pixel's position less its shift (analyse.c examineiso, in double: no truncation there).
  const DgeoMap* dgeo = nullptr;
};

// `dbkg`: the object's local background (local_background.hpp), 0 for BACKPHOTO_TYPE GLOBAL.
Iso isophotal(const ObjectView& object, const Shape& shape, const IsoParams& params,
              float dbkg = 0.0f);

// isophotal()'s two halves, for a caller that makes the per-pixel sums elsewhere (the GPU's
// fallback where glibc's log is not reproduced there, gpu/shapes_gpu.cpp): the sums' frame-wide
// terms, and the rest from the sums and CLEAN's threshold (clean_threshold): the errors, fluxes
// and the FWHM fit with its pass over the pixels (iso_finish.hpp's arithmetic, which the GPU's
// own finish runs too). `bkg`: BACKGROUND (the mesh value at the barycentre plus dbkg).
IsoSumParams iso_sum_params(const IsoParams& params);
Iso finish_iso(const ObjectView& object, const Shape& shape, const IsoParams& params,
               const IsoSums& sums, float mthresh, float bkg, float dbkg);
// The IsoFinishParams (iso_finish.hpp) of objects measured with `params`.
IsoFinishParams iso_finish_params(const IsoParams& params);

// BACKGROUND of an object of shape `shape`: the mesh map's value at its barycentre, plus dbkg.
float iso_background(const Shape& shape, const IsoParams& params, float dbkg);

// The isophotal part of SExtractor's mergeobject (fluxes summed, peaks kept).
void merge_iso(Iso& master, const Iso& slave);

}  // namespace celeris::extract
