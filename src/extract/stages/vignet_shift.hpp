// VIGNET_SHIFT(w,h) (SExtractor 2.25 analyse.c, image.c copyimage_center): the w x h pixels of
// the background-subtracted measurement image around an object, resampled with SExtractor's
// Lanczos-4 kernel so that the object's barycentre (X_IMAGE, Y_IMAGE less 1) falls on the
// vignet's centre pixel (w/2, h/2), as SExtractor's line buffer held them when it wrote the
// object out.
#pragma once

#include "extract/stages/photometry.hpp"

namespace celeris::extract {

// SExtractor's INTERPW and INTERPFAC (image.h): an 8 x 8 mask of a Lanczos kernel of order 4.
constexpr int kVignetShiftTaps = 8;

// INTERPF(x) of image.h, with its own mix of float and double: the sines in float (sinf of the
// double argument rounded to float), their product divided in double; 1 within 1e-5 of 0 and 0
// beyond +-4.
double vignet_shift_kernel(float x);

// The normalised 8 x 8 interpolation mask of copyimage_center for the fractional offsets dx, dy
// (x - (int)x): mask[my * 8 + mx] weighs the pixel (ix - idmx + mx, iy - idmy + my) for the
// vignet's centre, where idmx is 3 when dx > 0, else 4 (idmy alike).
void vignet_shift_mask(float dx, float dy, float mask[kVignetShiftTaps * kVignetShiftTaps]);

// Fills out[0 .. w*h) (row-major, rows upwards in y) as copyimage_center does for the object
// whose barycentre is (x, y) (0-based; SExtractor passes it as float): output pixel (u, v) is
// the sum, in float and in the mask's order, of mask[my * 8 + mx] times the image pixel
// (ix - w/2 - idmx + mx + u, iy - h/2 - idmy + my + v) with ix = (int)x, iy = (int)y. Pixels
// outside the image or the line buffer's rows add nothing (SExtractor's zeros; the mask is not
// renormalised); everything is 0 when (ix, iy) is off the frame or the buffer. Masked (NaN)
// pixels and, with MASK_TYPE BLANK or CORRECT, pixels blanked as another object's when `s` is
// measured, enter as -1e30 (SExtractor's -BIG in its buffer), so that the vignet pixels they
// reach are hugely negative, as in SExtractor.
void vignet_shift(const PhotometryField& f, const ApertureShape& s, double x, double y, int w,
                  int h, float* out);

}  // namespace celeris::extract
