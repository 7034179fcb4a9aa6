// VIGNET(w,h) (SExtractor 2.25 analyse.c, image.c copyimage): the w x h pixels of the
// background-subtracted measurement image around an object, as SExtractor's line buffer held
// them when it wrote the object out.
#pragma once

#include "extract/stages/photometry.hpp"

namespace celeris::extract {

constexpr float kVignetBlank = -1e30f;  // SExtractor's -BIG

// Fills out[0 .. w*h) (row-major, rows upwards in y) with the pixels of the w x h box whose
// centre pixel is (int)(x + 0.49999), (int)(y + 0.49999) (0-based; the box starts w/2 and h/2
// before it). Pixels outside the image or the line buffer's rows, masked (NaN) pixels and, with
// MASK_TYPE BLANK or CORRECT, pixels blanked as another object's when `s` is measured, are
// -1e30, as SExtractor writes them. Bad weights are not blanked (SExtractor copies the image).
void vignet(const PhotometryField& f, const ApertureShape& s, double x, double y, int w, int h,
            float* out);

}  // namespace celeris::extract
