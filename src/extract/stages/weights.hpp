// Weight maps (SExtractor weight.c, back.c makeback, interpolate.c, scan.c): one map serving
// detection and measurement (WEIGHT_TYPE BACKGROUND, MAP_RMS, MAP_VAR or MAP_WEIGHT).
//
// What SExtractor does with it, and this stage reproduces:
//  - the map becomes a variance map (weight_to_var): RMS squared, VAR as is, WEIGHT inverted,
//    a weight <= 0 giving the variance kBig (a bad pixel);
//  - pixels whose variance is at or beyond WEIGHT_THRESH (converted to a variance, before any
//    rescaling) are left out of the image's background meshes;
//  - for MAP_VAR and MAP_WEIGHT the map's own background meshes give the scale between the map
//    and the image noise: the median over meshes of sigma_image / sqrt(mode of the variance).
//    RESCALE_WEIGHTS Y multiplies the variances by its square; N divides the global RMS by it;
//  - bad pixels are interpolated from their left (up to INTERP_MAXXLAG pixels) or upper (up to
//    INTERP_MAXYLAG rows) neighbour, in the variance map and (INTERP_TYPE ALL) in the
//    background-subtracted image;
//  - each pixel's detection threshold is DETECT_THRESH x sqrt(variance), the variance filtered
//    by the detection filter when FILTER is Y;
//  - measurements take each pixel's variance in their errors (and WEIGHT_GAIN scales the
//    Poisson term by variance / global variance), and treat bad pixels as masked.
#pragma once

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/objects.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/weight_variance.hpp"

namespace celeris::extract {

constexpr float kBig = kBadVariance;  // SExtractor's BIG: the variance of a bad pixel

// SExtractor's name of a WEIGHT_TYPE (NONE, BACKGROUND, MAP_RMS, MAP_VAR, MAP_WEIGHT).
const char* weight_type_name(WeightType type);

// WEIGHT_THRESH as a variance (weight_to_var with no rescaling), or SExtractor's default: 0
// for MAP_WEIGHT (so weight 0 is bad), kBig otherwise.
float variance_threshold(const WeightParams& weight);

// Converts the map's pixels in place into variances, times sigfac^2 for MAP_VAR / MAP_WEIGHT
// (weight_to_var). `threads` (here and below): the host threads of the pixel or mesh loops (0:
// the calling thread's OpenMP default).
void to_variance(WeightType type, float sigfac, float* data, int64_t n, int threads = 0);

// Throws celeris::Error naming both sizes unless `map` (WEIGHT_IMAGE's pixels) is `image`'s size.
void require_map_size(ImageView<const float> map, ImageView<const float> image);

// What a map of WEIGHT_TYPE `type` holds (weight_variance.hpp); BACKGROUND's map is an RMS.
MapKind map_kind(WeightType type);

// The scale between the variance map (unscaled) and the image noise, from the map's own
// background meshes (back.c makeback): `image` with NaN at bad pixels, `image_map` its finished
// background. 1 with a warning when no mesh gives a positive ratio.
float weight_scale(ImageView<const float> image, ImageView<const float> var, float wthresh,
                   const BackgroundMap& image_map, const Config& config, int threads = 0);
// The same from the map as read (`map`, of `kind`), each value taken as a variance (with no
// scale) where it is read, and the image as given: its pixels bad in the map are left out as
// the masked image's NaN are (the GPU's weighted front end, which has no such copies here).
float weight_scale_of_map(ImageView<const float> image, ImageView<const float> map, MapKind kind,
                          float wthresh, const BackgroundMap& image_map, const Config& config,
                          int threads = 0);

// interpolate.c, row by row from the top: a bad pixel (var >= wthresh) takes its left
// neighbour's values while fewer than `xlag` pixels were so taken since the last good pixel,
// else its upper neighbour's while fewer than `ylag` rows were. `value` may be empty (VAR_ONLY).
void interpolate_bad_pixels(ImageView<float> value, ImageView<float> var, float wthresh, int xlag,
                            int ylag, int threads = 0);

// What the detection and the measurements need of the weights. Without separate weights the
// detection reads the measurement's variance map.
struct WeightMaps {
  bool detect = false, measure = false;  // detection / measurement weighted
  Image<float> var;                      // measurement variance, interpolated (measure)
  Image<float> own_dvar;                 // detection variance when separate (detect)
  Image<float> thresh;  // per-pixel detection threshold, ADU above background (detect)
  float wthresh = kBig, dwthresh = kBig;  // bad at or beyond these variances
  ImageView<const float> dvar() const { return own_dvar.size() ? own_dvar.view() : var.view(); }
};

// The smallest detection threshold of an object's pixels (SExtractor's preanalyse with a
// variable threshold), or `global` without weights.
float object_dthresh(const ObjectView& object, float global, bool weighted);

}  // namespace celeris::extract
