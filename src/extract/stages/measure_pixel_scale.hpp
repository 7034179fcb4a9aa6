// The pixel scale SExtractor 2.25 takes from the WCS when PIXEL_SCALE is 0 (its default,
// "0 = use FITS WCS info"). Two different scales, as in SExtractor:
// - the field's scale (astrom.c initastrom, fitswcs.c range_wcs), one per image, at the image
//   centre: CLASS_STAR's seeing in pixels;
// - the local pixel area at each object's barycentre (analyse.c, fitswcs.c wcs_jacobian):
//   MU_MAX, MU_THRESHOLD, FWHM_WORLD, FWHMPSF_WORLD, ISOAREA_WORLD and ISOAREAF_WORLD.
// An image without a WCS has SExtractor's linear frame (CDELT 1 by default, world_frame.hpp):
// a pixel of 1 deg, 3600 arcsec.
#pragma once

#include <string>
#include <vector>

#include "celeris/fits.hpp"
#include "extract/settings/parameters.hpp"
#include "extract/sextractor/world_frame.hpp"
#include "extract/stages/measure_world_shape.hpp"

namespace celeris::extract {

// Columns that take the local pixel area with PIXEL_SCALE 0, and those that take a pixel scale
// at all (the former and CLASS_STAR).
bool uses_local_pixel_area(const std::string& name);
bool uses_pixel_scale(const std::string& name);
// Whether a run with these columns and this PIXEL_SCALE reads the scale from the WCS.
bool wcs_pixel_scale_wanted(const std::vector<RequestedParam>& params, double pixel_scale);

// SExtractor's field pixel scale in arcsec (initastrom: range_wcs's wcs->pixscale * 3600): at
// the centre ((width + 1) / 2, (height + 1) / 2), 1-based, the square root of the pixel area
// from one-pixel steps (wcs_scale) on a celestial frame; on a linear frame the world step of the
// last axis along itself, |dY_WORLD / dy|. 0 where the WCS does not map there (wcs_scale).
double field_pixel_scale(const WorldFrame& frame, int width, int height);

// The local pixel area (deg^2, SExtractor's pixscale2): |det| of the Jacobian wcs_jacobian
// returns, -1 where the WCS does not map (as wcs_jacobian; MU_MAX and FWHM_WORLD are then NaN,
// the world areas negative, as in SExtractor).
double local_pixel_area(const Jacobian& j);

// Refuses (celeris::Error naming `image`) a frame whose image centre SExtractor's range_wcs
// would move by random steps before taking the scale there (sextractor/wcs_draws.hpp), or
// that does not map: the scale at that random point is not reproduced.
void check_field_pixel_scale(const FitsHeader& header, const WorldFrame& frame, int width,
                             int height, const std::string& image);

}  // namespace celeris::extract
