// BACKPHOTO_TYPE LOCAL: SExtractor's local background (back.c localback), the clipped-histogram
// mode of a rectangular annulus BACKPHOTO_THICK pixels wide around an object's box, measured
// when the object is detected (before cleaning). Photometry then subtracts it per pixel
// (FLUX_ISO, FLUX_APER, FLUX_AUTO, FLUX_MAX, the FWHM fit) and adds it to BACKGROUND.
#pragma once

#include <cstdint>

#include <vector>

#include "extract/sextractor/scan_order.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/moments.hpp"
#include "extract/stages/photometry.hpp"

namespace celeris::extract {

struct LocalBackgroundParams {
  int thick = 24;     // BACKPHOTO_THICK
  LineBuffer buffer;  // the rows held when each object is detected
};

// The local background of object `index`, with box `s` (before cleaning), completed at scan line
// `done_line` (the line after its last row), from the background-subtracted image as the line
// buffer then holds it: NaN pixels and, unless MASK_TYPE is NONE, pixels blanked by then
// (Blanking::blanked_at_detection: detected pixels of rows the blanker has passed, less those
// of objects merged away and given back before) are left out. 0 when the annulus leaves the image
// columns or the rows in the buffer, or holds no pixel.
// `scratch`: buffers reused from object to object (one per thread).
struct LocalBackgroundScratch {
  std::vector<float> pixels;
  MeshScratch mesh;
};
float local_background(size_t index, const Shape& s, int64_t done_line, const PhotometryField& f,
                       const LocalBackgroundParams& p, LocalBackgroundScratch& scratch);

}  // namespace celeris::extract
