// VIGNET_DGEOX(w,h), VIGNET_DGEOY(w,h) (SExtractor 2.25 dgeo.c dgeo_copy): one plane of the
// differential-geometry map (dgeo_map.hpp) around an object, as the line buffer held it when
// SExtractor wrote the object out.
#pragma once

#include "extract/stages/dgeo_map.hpp"
#include "extract/stages/photometry.hpp"

namespace celeris::extract {

// Fills out[0 .. w*h) (row-major, rows upwards in y) with `plane` over the w x h box whose centre
// pixel is (int)(x + 0.49999), (int)(y + 0.49999) (0-based; the box starts w/2 and h/2 before
// it). Unlike VIGNET, what lies outside the image or the buffer's rows is 0, and the whole box is
// 0 when its centre pixel does (dgeo_copy clears the output first).
void dgeo_vignet(ImageView<const float> plane, const ApertureShape& s, double x, double y, int w,
                 int h, float* out);

}  // namespace celeris::extract
