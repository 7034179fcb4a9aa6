// How SExtractor's aperture loops (photom.c, growth.c) read one pixel: masked and blanked pixels,
// and pixels of bad weight, are "bad"; a bad pixel is replaced by its mirror through the object
// centre (MASK_TYPE CORRECT) when that one is good and in the line buffer, else by 0. The
// Petrosian and growth-curve stages read pixels this way; photometry.cpp holds the same rules
// for APER/AUTO/FLUX_RADIUS (kept apart while that file is being reshaped for the GPU).
#pragma once

#include <algorithm>
#include <cmath>

#include "extract/stages/photometry.hpp"

namespace celeris::extract {

struct AperturePixels {
  const PhotometryField& f;
  const ApertureShape& s;
  int w, h;
  double cx, cy;  // centre of the mirror (SExtractor's float or double centre, as the caller)

  AperturePixels(const PhotometryField& field, const ApertureShape& shape, double mirror_x,
                 double mirror_y)
      : f(field),
        s(shape),
        w(static_cast<int>(field.value.width)),
        h(static_cast<int>(field.value.height)),
        cx(mirror_x),
        cy(mirror_y) {}

  // SExtractor's "pix <= -BIG": NaN, or (MASK_TYPE != NONE) blanked as another object's pixel
  // when this one is measured.
  bool masked(ImageView<const float> image, int x, int y, bool detection = false) const {
    if (std::isnan(image(x, y))) return true;
    return f.mask_type != MaskType::None &&
           (detection ? f.blanked_in_detection(x, y, s.id, s.time, s.moment)
                      : f.blanked(x, y, s.id, s.time, s.moment));
  }
  bool bad(int x, int y) const { return f.bad_weight(x, y) || masked(f.value, x, y); }
  // The Kron and Petrosian radius passes read the detection image, its weights and blanking.
  bool bad_for_radius(int x, int y) const {
    return f.bad_detect_weight(x, y) || masked(f.detection(), x, y, true);
  }

  // A bad pixel's replacement and its variance (with weights): the mirror's, or 0 and 0.
  double corrected(int x, int y, double& var) const {
    if (f.mask_type == MaskType::Correct) {
      const int x2 = static_cast<int>(2 * cx + 0.49999 - x);
      const int y2 = static_cast<int>(2 * cy + 0.49999 - y);
      if (x2 >= 0 && x2 < w && y2 >= s.fymin && y2 < std::min(s.fymax, h) && !bad(x2, y2)) {
        if (f.weighted()) var = f.var(x2, y2);
        return f.value(x2, y2);
      }
    }
    if (f.weighted()) var = 0.0;
    return 0.0;
  }
  // A pixel's value and variance as SExtractor sums them: `var` is left as given (the global
  // variance) without weights.
  double read(int x, int y, double& var) const {
    if (bad(x, y)) return corrected(x, y, var);
    if (f.weighted()) var = f.var(x, y);
    return f.value(x, y);
  }
};

// SExtractor's aperture box clipping: to the image columns and the rows in the line buffer,
// flagging any clip (FLAGS bit 16).
inline void clip_aperture_box(int& xmin, int& xmax, int& ymin, int& ymax, int w, int h,
                              const ApertureShape& s, uint16_t& flags) {
  const int fymin = std::max(s.fymin, 0), fymax = std::min(s.fymax, h);
  if (xmin < 0) xmin = 0, flags |= kFlagAperIncomplete;
  if (xmax > w) xmax = w, flags |= kFlagAperIncomplete;
  if (ymin < fymin) ymin = fymin, flags |= kFlagAperIncomplete;
  if (ymax > fymax) ymax = fymax, flags |= kFlagAperIncomplete;
}

}  // namespace celeris::extract
