// The kernels of the weighted front end on the GPU (weighted_front_end_gpu.cpp): the map as
// variances, the image without its bad pixels for the background meshes, the bad pixels'
// interpolation and each pixel's threshold. Plain C++17 declarations on raw device pointers.
// Each value is the host's (stages/weights.cpp, weights_front_end.cpp) to the bit: the same
// operations (stages/weight_variance.hpp), compiled without FMA contraction, and copies.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "extract/stages/weight_variance.hpp"

namespace celeris::extract::gpu {

// var[i] = map_variance(kind, sigfac2, map[i]) for the n pixels (in place when var == map).
void map_to_variance(const float* map, MapKind kind, float sigfac2, float* var, int64_t n,
                     cudaStream_t stream);

// masked[i] = NaN where var[i] >= wthresh (a bad pixel), else image[i].
void mask_bad_pixels(const float* image, const float* var, float wthresh, float* masked, int64_t n,
                     cudaStream_t stream);

// row_bad[y] = 1 where row y holds a bad pixel (var >= wthresh), else 0; `height` bytes.
void mark_bad_rows(const float* var, float wthresh, int width, int height, uint8_t* row_bad,
                   cudaStream_t stream);

// SExtractor's interpolation (weights.hpp interpolate_bad_pixels) of the rows `rows[0 ..
// nrows - 1]` (on the device, increasing), the rows holding a bad pixel: the others change
// nothing. `value` may be null (the variances alone). `scratch`: nrows * width words.
void interpolate_bad_rows(float* value, float* var, float wthresh, int width, const int32_t* rows,
                          int nrows, int xlag, int ylag, int32_t* scratch, cudaStream_t stream);

// thresh[i] = relative_threshold(relthresh, cvar[i]) (weight_variance.hpp); in place when
// thresh == cvar.
void relative_thresholds(const float* cvar, float relthresh, float* thresh, int64_t n,
                         cudaStream_t stream);

}  // namespace celeris::extract::gpu
