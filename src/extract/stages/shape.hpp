// An object's isophotal shape (SExtractor's preanalyse): what compute_shape (moments.hpp) gives
// and finish_shape_with (shape_finish.hpp) makes on the host and on the GPU. Plain C++17.
#pragma once

namespace celeris::extract {

struct Shape {
  int xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  int npix = 0;                    // all pixels of the segment (ISOAREAF)
  double flux = 0.0;               // sum of filtered values (SExtractor fdflux)
  float cpeak = 0.0f;              // max filtered value
  float peak = 0.0f;               // max unfiltered value
  double mx = 0, my = 0;           // barycentre, 0-based pixels
  double x2 = 0, y2 = 0, xy = 0;   // second moments (with the 1/12 guard applied)
  double a = 0, b = 0, theta = 0;  // semi-axes (pixels) and angle (radians, (-pi/2, pi/2])
  double cxx = 0, cyy = 0, cxy = 0;
  bool singular = false;  // the 1/12 guard was applied
  float abcor = 1.0f;     // isophotal area correction used by deblending and cleaning
  // With a differential-geometry map: the mean shift of the pixels, weighted as the barycentre
  // (DGEOX_IMAGE, DGEOY_IMAGE); 0 without one.
  float dgeox = 0.0f, dgeoy = 0.0f;
};

}  // namespace celeris::extract
