// Measurement of final objects (SExtractor analyse.c:examineiso and endobject): isophotal
// quantities, position errors, FWHM, BACKGROUND, photometry and FLAGS, into an Objects table.
#pragma once

#include <vector>

#include "background.hpp"
#include "celeris/extract.hpp"
#include "moments.hpp"
#include "objects.hpp"
#include "photometry.hpp"

namespace celeris::extract {

struct MeasureContext {
  const Config& config;
  const BackgroundMap& background;
  PhotometryField field;
  float detect_thresh = 0;    // ADU above background
  float analysis_thresh = 0;  // ADU above background
  double satur_level = 50000.0;
  bool compute_auto = true;     // FLUX_AUTO family, KRON_RADIUS or FLUX_RADIUS requested
  bool compute_win = false;     // windowed measurements requested (measure_windowed.hpp)
  bool compute_iso = false;     // ISO0..ISO7 requested (measure_class_star.hpp)
  bool compute_isocor = false;  // FLUX_ISOCOR requested (measure_best.hpp)
  int n_apertures = 0;
  int n_fluxfrac = 0;
  // SExtractor's line buffer: `strip_rows` lines (0: the whole image), `strip_margin` of them
  // ahead of the scan. An object written out at scan line E sees rows [E - (strip_rows -
  // strip_margin), E + strip_margin) only; its apertures are clipped (and flagged) there.
  int strip_rows = 0;
  int strip_margin = 1;
};

// Isophotal measurements of one object (SExtractor examineiso), made before cleaning, which
// merges some of them.
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

// `dbkg`: the object's local background (local_background.hpp), 0 for BACKPHOTO_TYPE GLOBAL.
Iso isophotal(const Detection& object, const Shape& shape, const MeasureContext& ctx,
              float dbkg = 0.0f);

// Photometry and catalog values of objects[order[i]] for each i (in parallel), each as the
// image stood at scan line written_at[i] (PhotometryField::blanked); object k's pixels own id
// k + 1 in field.owner.
Objects measure_objects(const std::vector<Detection>& objects, const std::vector<Shape>& shapes,
                        const std::vector<Iso>& isos, const std::vector<size_t>& order,
                        const std::vector<int64_t>& written_at, const MeasureContext& ctx);

}  // namespace celeris::extract
