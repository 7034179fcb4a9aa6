// SExtractor 2.25's differential-geometry map (DGEO_TYPE PIXEL, DGEO_IMAGE): for every pixel, the
// shift of its true position from its grid position along x and y, in pixels. SExtractor
// subtracts it from each pixel's position in the barycentre and second moments (scan.c
// preanalyse), the isophotal position errors and FWHM (analyse.c examineiso) and the windowed
// centroid (winpos.c), and reports the flux-weighted mean shift (DGEOX_IMAGE ...,
// DGEOXWIN_IMAGE ...) and the map around each object (VIGNET_DGEOX/Y, measure_dgeo.hpp).
#pragma once

#include <string>

#include "celeris/image.hpp"

namespace celeris::extract {

// The two planes of a map, the image's size; empty: no map (DGEO_TYPE NONE).
struct DgeoMap {
  ImageView<const float> dx, dy;

  bool empty() const { return dx.data == nullptr; }
  // The map, or null when there is none: what the stages take.
  const DgeoMap* get() const { return empty() ? nullptr : this; }
};

// A map read from a file: the planes it owns.
struct DgeoImages {
  Image<float> dx, dy;
  DgeoMap view() const { return {dx.view(), dy.view()}; }
};

// Reads DGEO_IMAGE as SExtractor does (readimage.c): an image HDU holding a cube of NAXIS1 x
// NAXIS2 x NAXIS3 whose first plane is the x shift and second the y shift (further planes
// unread), scaled by BSCALE/BZERO. The HDU is SExtractor's (makeit.c, checked on the binary):
// for an image named without an HDU, the map's HDU of the same number, `image_hdu` (0-based;
// any [..] on the map's name is dropped, as SExtractor drops it); for an image named with one
// (`image_hdu` -1), the HDU the map's name gives, else the map's second HDU. A map of a single
// HDU serves any image. Throws celeris::Error, naming the file, when it cannot be read, lacks
// that HDU, is not a cube of at least two planes, its planes are not width x height
// (SExtractor: "Incompatible differential geometry map size"), or a shift is not finite or
// beyond 1e6 pixels (SExtractor turns shifts into int pixel offsets: such a value has no
// defined result there).
DgeoImages read_dgeo_map(const std::string& path, int64_t width, int64_t height, int image_hdu);

}  // namespace celeris::extract
