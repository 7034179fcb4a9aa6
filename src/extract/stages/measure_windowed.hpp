// Windowed measurements (SExtractor 2.25 winpos.c): the centroid iterated within a Gaussian
// window whose sigma comes from the half-light radius (XWIN_IMAGE, YWIN_IMAGE), its error
// ellipse (ERR*WIN_IMAGE), the windowed second moments (X2WIN_IMAGE ..., AWIN/BWIN/THETAWIN),
// the windowed flux (FLUX_WIN) and FLAGS_WIN.
#pragma once

#include <cstddef>
#include <cstdint>

#include "celeris/extract.hpp"
#include "extract/stages/dgeo_map.hpp"
#include "extract/stages/photometry.hpp"

namespace celeris::extract {

// What the windowed measurement starts from and falls back to: the object's isophotal
// measurements (0-based pixel coordinates).
struct WindowedStart {
  double mx = 0, my = 0;                   // isophotal barycentre (first guess)
  double x2 = 0, y2 = 0, xy = 0;           // isophotal second moments
  float a = 0, b = 0, theta = 0;           // isophotal ellipse (theta in degrees)
  float cxx = 0, cyy = 0, cxy = 0;         // isophotal ellipse coefficients
  double errx2 = 0, erry2 = 0, errxy = 0;  // isophotal position errors
  bool singular = false;                   // the 1/12 guard was applied to the moments
  float hl_radius = 0.5f;                  // half-light radius (half_light_radius)
  // A differential-geometry map (dgeo_map.hpp): each pixel's position less its shift in the
  // window, and the isophotal mean shift (Shape::dgeox, dgeoy) placing the MASK_TYPE CORRECT
  // mirror at the pixel position.
  const DgeoMap* dgeo = nullptr;
  float dgeox = 0, dgeoy = 0;
};

struct WindowedResult {
  double x = 0, y = 0;                     // XWIN_IMAGE - 1, YWIN_IMAGE - 1
  double errx2 = 0, erry2 = 0, errxy = 0;  // ERRX2WIN_IMAGE ...
  float erra = 0, errb = 0, errtheta = 0;  // ERRAWIN_IMAGE ... (degrees)
  double x2 = 0, y2 = 0, xy = 0;           // X2WIN_IMAGE ...
  float a = 0, b = 0, theta = 0;           // AWIN_IMAGE ... (degrees)
  float cxx = 0, cyy = 0, cxy = 0;         // CXXWIN_IMAGE ...
  float flux = 0, fluxerr = 0;             // FLUX_WIN, FLUXERR_WIN
  int16_t flags = 0;                       // FLAGS_WIN: 1 singular, 2 negative moments,
                                           // 4 non-positive flux, 8 moved off the footprint
  int16_t niter = 0;                       // NITER_WIN
  // DGEOXWIN_IMAGE, DGEOYWIN_IMAGE: the window-weighted mean shift of the last iteration, times
  // the step factor 2 as SExtractor applies it to the centroid step; kept on a fallback too.
  float dgeox = 0, dgeoy = 0;
};

// The windowed measurement of the object `s` (its id, measurement time and line-buffer rows:
// masked and blanked pixels are handled as by the apertures, mirrored with MASK_TYPE CORRECT).
// `flags` receives FLAGS bit 16 when the window is clipped by the image or the line buffer.
WindowedResult windowed(const PhotometryField& f, const ApertureShape& s,
                        const WindowedStart& start, uint16_t& flags);

// SExtractor's error-ellipse axes and angle (degrees) of a 2x2 covariance, in its arithmetic:
// ERRA_IMAGE, ERRB_IMAGE, ERRTHETA_IMAGE from ERRX2/ERRY2/ERRXY_IMAGE, and the same for WIN.
void error_ellipse(double mx2, double my2, double mxy, float& a, float& b, float& theta);

// Objects' windowed columns: sized for n objects, and object i's values stored.
void resize_windowed(Objects& o, size_t n);
void store_windowed(Objects& o, size_t i, const WindowedResult& r);

}  // namespace celeris::extract
