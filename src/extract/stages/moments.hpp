// Isophotal shape of an object from its pixel list (SExtractor scan.c:preanalyse): bounding
// box, barycentre and second moments weighted by the filtered detection values, and the
// moment ellipse. Shared by deblending, cleaning and measurement.
#pragma once

#include "extract/objects.hpp"
#include "extract/stages/dgeo_map.hpp"
#include "extract/stages/shape.hpp"
#include "extract/stages/shape_sums.hpp"
#include "extract/stages/singular_errors.hpp"

namespace celeris::extract {

// Computes the shape; `thresh` is the object's detection threshold (its deblending level for a
// deblending branch), used for the area correction abcor. When `object.fixed_centre`, moments
// are taken about (cx, cy) instead of the barycentre (SExtractor's robust analysis of
// deblended objects). With detection weights SExtractor leaves abcor at 1 (preanalyse's
// dweight_flag): `weighted` does the same. With a differential-geometry map `dgeo`, each
// pixel's offset from the box corner less its shift is truncated to an int, as SExtractor 2.25
// stores it (scan.c preanalyse: "int x; x -= dx"): truncated toward zero, a shift of less than a
// pixel moves a pixel by one whole pixel (positive shifts) or not at all (negative ones).
Shape compute_shape(const ObjectView& object, float thresh, bool weighted = false,
                    const DgeoMap* dgeo = nullptr);
// compute_shape of the object whose pixels are parent's index[0 .. n), in that order (a
// deblending core), its moments about its barycentre.
Shape compute_shape_at(const ObjectView& parent, const int32_t* index, size_t n, float thresh,
                       bool weighted, const DgeoMap* dgeo);

// compute_shape's second half, from the per-pixel sums (shape_sums.hpp) of an object of `npix`
// pixels: the moments, the ellipse (atan2 for theta) and the area correction (a log). On the
// host for either device: the GPU makes the sums (gpu/shapes_gpu.hpp).
Shape finish_shape(const ShapeSums& sums, int64_t npix, bool fixed_centre, double cx, double cy,
                   float thresh, bool weighted);
// The theta finish_shape gives a shape, from its moments (the C library's atan2): for a shape
// finished without it (the GPU's, shape_finish.hpp ThetaLater).
double shape_theta(const Shape& s);

}  // namespace celeris::extract
