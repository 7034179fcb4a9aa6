// The FWHM fit's per-pixel sums (SExtractor analyse.c:examineiso): a weighted least-squares fit
// of log(pixel) against the squared distance from the barycentre, over the pixels between
// fwhm_cut's bounds. The arithmetic is shared by the host's pass (stages/isophotal.cpp) and the
// GPU's (gpu/shape_kernels.cu fwhm_kernel) in the same order, so that both give the same bits (both
// compiled without contraction). Plain C++17 (CELERIS_HD).
#pragma once

#include "celeris/host_device.hpp"

namespace celeris::extract {

struct FwhmSums {
  double sw = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
};

// The fit's pixels: value less the local background above thresh0 and below sat.
struct FwhmCut {
  float thresh0 = 0;  // not positive: no fit
  double sat = 0;
};

// Which pixels the FWHM fit takes (SExtractor's examineiso): those whose value less dbkg lies
// above thresh0 and below sat; no fit when thresh0 is not positive. `peak`: FLUX_MAX less dbkg;
// `minthresh`: IsoSums::minthresh; `bkg`: BACKGROUND. The host's (isophotal.cpp) and the GPU
// shapes' (gpu/shape_kernels.cu).
CELERIS_HD inline FwhmCut fwhm_cut(float peak, float minthresh, float dbkg, double satur_level,
                                   float bkg) {
  FwhmCut c;
  c.thresh0 = static_cast<float>(peak / 5.0);  // PIXTYPE = obj->peak / 5.0, in double
  const float obj_thresh = minthresh - dbkg;   // SExtractor obj->thresh
  if (c.thresh0 < obj_thresh) c.thresh0 = obj_thresh;
  // In double, as SExtractor (field->satur_level is a double, obj->bkg a float): in float the
  // limit moves by about 0.002 ADU, enough to change which saturated pixels fall below it.
  c.sat = satur_level - static_cast<double>(bkg);
  return c;
}

// One pixel's terms: `pix` its value less the local background, (dx, dy) its offset from the
// barycentre, `lpix` glibc's log(pix). Each term is the pixel's own; only their sums depend on
// the order (fwhm_accumulate, in the pixels' order).
struct FwhmTerms {
  double w, wd2, wd4, wl, wld2;
};

CELERIS_HD inline FwhmTerms fwhm_terms(double pix, double dx, double dy, double lpix) {
  const double inverr2 = pix * pix, d2 = dx * dx + dy * dy;
  return {inverr2, d2 * inverr2, d2 * d2 * inverr2, lpix * inverr2, lpix * d2 * inverr2};
}

CELERIS_HD inline void fwhm_accumulate(FwhmSums& s, const FwhmTerms& t) {
  s.sw += t.w;
  s.sx += t.wd2;
  s.sxx += t.wd4;
  s.sy += t.wl;
  s.sxy += t.wld2;
}

CELERIS_HD inline void fwhm_add(FwhmSums& s, double pix, double dx, double dy, double lpix) {
  fwhm_accumulate(s, fwhm_terms(pix, dx, dy, lpix));
}

}  // namespace celeris::extract
