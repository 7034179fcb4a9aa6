// A catalog row's columns that come from its object's shape and isophotal values alone (the
// position, peak, box, moments and ellipse, the isophotal flux and areas, FLUX_MAX, BACKGROUND,
// THRESHOLD, FWHM, DGEOX/Y), in one place for the measurement (measure.cpp) and for the rows
// written beside the clean pass (catalog_beside_pass.hpp), which must give the same columns.
#pragma once

#include <cmath>
#include <cstddef>

#include "celeris/extract.hpp"
#include "extract/sextractor/pi.hpp"
#include "extract/stages/iso.hpp"
#include "extract/stages/shape.hpp"

namespace celeris::extract {

// Row i of `o` (its core columns sized past i; with `dgeo`, dgeox and dgeoy too).
inline void write_shape_columns(Objects& o, size_t i, const Shape& s, const Iso& iso, bool dgeo) {
  o.x[i] = s.mx;
  o.y[i] = s.my;
  o.xpeak[i] = iso.xpeak;
  o.ypeak[i] = iso.ypeak;
  o.xmin[i] = s.xmin;
  o.xmax[i] = s.xmax;
  o.ymin[i] = s.ymin;
  o.ymax[i] = s.ymax;
  o.x2[i] = s.x2;
  o.y2[i] = s.y2;
  o.xy[i] = s.xy;
  o.errx2[i] = iso.errx2;
  o.erry2[i] = iso.erry2;
  o.errxy[i] = iso.errxy;
  o.a[i] = static_cast<float>(s.a);
  o.b[i] = static_cast<float>(s.b);
  o.theta[i] = static_cast<float>(s.theta * 180.0 / kSexPi);
  o.cxx[i] = s.cxx;
  o.cyy[i] = s.cyy;
  o.cxy[i] = s.cxy;
  o.isoarea[i] = iso.area;
  o.isoareaf[i] = s.npix;
  o.flux_iso[i] = iso.flux;
  o.fluxerr_iso[i] = std::sqrt(iso.fluxvar);
  o.flux_max[i] = iso.peak;
  o.background[i] = iso.background;
  o.threshold[i] = iso.dthresh;  // SExtractor prints dthresh: no local background
  o.fwhm[i] = iso.fwhm;
  if (dgeo) o.dgeox[i] = s.dgeox, o.dgeoy[i] = s.dgeoy;
}

}  // namespace celeris::extract
