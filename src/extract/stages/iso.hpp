// An object's isophotal measurements (isophotal.hpp). Plain C++17: the GPU shapes make them too
// (gpu/shape_kernels.cu).
#pragma once

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
  // The object's detection threshold (THRESHOLD; the profile CLEAN fits) and analysis threshold
  // (before dbkg), both ADU above the background: the global ones without weights, the
  // smallest of its pixels' with them.
  float dthresh = 0, thresh = 0;
};

}  // namespace celeris::extract
