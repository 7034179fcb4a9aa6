// finish_iso's arithmetic (SExtractor analyse.c examineiso, after its pass over the pixels):
// the position errors, the isophotal flux and its variance, the peaks and thresholds from the
// object's sums, and the FWHM fit from its sums. Written once for the host (isophotal.cpp
// finish_iso) and the GPU shapes (gpu/shape_kernels.cu, an object's Iso made where its FWHM
// sums are), compiled without contraction on both, so that both give the same bits. Plain
// C++17 (CELERIS_HD).
#pragma once

#include <math.h>

#include "celeris/host_device.hpp"
#include "extract/stages/fwhm_sums.hpp"
#include "extract/stages/iso.hpp"
#include "extract/stages/iso_sums.hpp"
#include "extract/stages/shape.hpp"
#include "extract/stages/singular_errors.hpp"

namespace celeris::extract {

struct IsoFinishParams {
  double gain = 0;
  bool gainflag = false;  // measurement weights with WEIGHT_GAIN: no photon noise term
  double ngamma = 0;      // DETECT_TYPE PHOTO (0: CCD)
  double satur_level = 0;
};

// The Iso of an object of shape `s` from its sums, but for the FWHM (iso_fwhm): CLEAN's threshold
// `mthresh`, BACKGROUND `bkg`, the local background `dbkg`, the object's detection threshold
// `dthresh`; with DETECT_TYPE PHOTO `photo_exp` is the host's exp(dbkg / ngamma) (unread else:
// the GPU never takes that case).
CELERIS_HD inline Iso iso_from_sums(const Shape& s, const IsoFinishParams& p, const IsoSums& sums,
                                    float mthresh, float bkg, float dbkg, float dthresh,
                                    double photo_exp) {
  Iso r;
  r.xpeak = sums.xpeak;
  r.ypeak = sums.ypeak;
  r.area = sums.area;
  double tv = sums.tv, sigtv = sums.sigtv;
  double esum = sums.esum, emx2 = sums.emx2, emy2 = sums.emy2, emxy = sums.emxy;
  // SExtractor's fdflux is a float, squared in float.
  const float fdflux = static_cast<float>(s.flux);
  const double flux2 = fdflux * fdflux;
  emx2 /= flux2;
  emy2 /= flux2;
  emxy /= flux2;
  esum *= 0.08333 / flux2;
  guard_singular_errors(s.singular, esum, emx2, emy2, emxy);
  r.errx2 = emx2;
  r.erry2 = emy2;
  r.errxy = emxy;
  if (p.ngamma != 0.0) {
    tv = p.ngamma * (tv - s.npix * photo_exp);
    sigtv /= p.ngamma * p.ngamma;
  } else {
    // fdnpix * dbkg: an int times a float, in float.
    tv -= static_cast<float>(s.npix) * dbkg;
    if (!p.gainflag && p.gain > 0.0 && tv > 0.0) sigtv += tv / p.gain;
  }
  r.flux = static_cast<float>(tv);
  r.fluxvar = static_cast<float>(sigtv);
  r.peak = sums.peak - dbkg;
  r.cpeak = sums.cdpeak;
  r.background = bkg;
  r.dbkg = dbkg;
  r.dthresh = dthresh;
  r.thresh = sums.minthresh;
  r.mthresh = mthresh;
  return r;
}

// The FWHM fit's pixels (fwhm_cut) of the Iso iso_from_sums made.
CELERIS_HD inline FwhmCut iso_fwhm_cut(const Iso& r, const IsoFinishParams& p) {
  return fwhm_cut(r.peak, r.thresh, r.dbkg, p.satur_level, r.background);
}

// FWHM_IMAGE from the fit's sums over the cut's pixels (made when the cut's thresh0 > 0).
CELERIS_HD inline void iso_fwhm(Iso& r, const Shape& s, const FwhmSums& f) {
  const double sw = f.sw, sx = f.sx, sxx = f.sxx, sy = f.sy, sxy = f.sxy;
  const double det = sw * sxx - sx * sx;
  if (fabs(det) > 0.0) {
    double bcoef = -(sw * sxy - sx * sy) / det;
    const double bmax = 1 / (13 * static_cast<float>(s.a) * static_cast<float>(s.b));
    if (bcoef < bmax) bcoef = bmax;
    r.fwhm = static_cast<float>(1.6651 / sqrt(bcoef));
    if (r.fwhm > 0.0f) r.fwhm -= 1 / (4 * r.fwhm);
  }
}

}  // namespace celeris::extract
