// Isophotal measurements of one object (SExtractor analyse.c:examineiso), made right after
// deblending: FLUX_ISO, ISOAREA, the peaks, position errors, the FWHM of a Gaussian core,
// BACKGROUND and CLEAN's threshold. Cleaning merges some of them (merge_iso).
#pragma once

#include "extract/objects.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/moments.hpp"

namespace celeris::extract {

struct Iso {
  float flux = 0, fluxvar = 0;  // FLUX_ISO and its variance
  int area = 0;                 // ISOAREA_IMAGE
  float peak = 0;               // FLUX_MAX (unfiltered)
  float cpeak = 0;              // max filtered value; XPEAK/YPEAK is its pixel
  int xpeak = 0, ypeak = 0;
  double errx2 = 0, erry2 = 0, errxy = 0;
  float fwhm = 0;
  float background = 0;  // BACKGROUND (bilinear mesh value at the barycentre, + dbkg)
  float dbkg = 0;        // local background (BACKPHOTO_TYPE LOCAL), subtracted from the fluxes
  float mthresh = 0;     // CLEAN threshold
};

struct IsoParams {
  const BackgroundMap* background = nullptr;  // for BACKGROUND
  float backsig = 1.0f;                       // global background RMS
  double gain = 0.0;
  float detect_thresh = 0;    // ADU above background
  float analysis_thresh = 0;  // ADU above background
  double satur_level = 50000.0;
  bool clean = true;  // compute CLEAN's threshold
  int minarea = 5;    // DETECT_MINAREA
};

// `dbkg`: the object's local background (local_background.hpp), 0 for BACKPHOTO_TYPE GLOBAL.
Iso isophotal(const ObjectView& object, const Shape& shape, const IsoParams& params,
              float dbkg = 0.0f);

// The isophotal part of SExtractor's mergeobject (fluxes summed, peaks kept).
void merge_iso(Iso& master, const Iso& slave);

}  // namespace celeris::extract
