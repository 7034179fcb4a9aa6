// The weighted front end (stages/weights_front_end.hpp) on the GPU, for one image and one map
// read from a file (MAP_RMS, MAP_VAR, MAP_WEIGHT) serving detection and measurement: the map as
// variances, the background meshes without its bad pixels, the map's scale (its meshes' modes
// on the host, beside the GPU), the subtraction, the bad pixels' interpolation, the filter, the
// filtered variances and each pixel's threshold, then the detection
// (detect_weighted_gpu.hpp), the images staying on the device between them. Every value is the
// host's to the bit. What the host stages after it read comes back: the two images, the
// variance and threshold maps; the images stay on the device for the photometry and blanking.
#pragma once

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/stages/filter.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract::gpu {

// Whether weighted_front_end_gpu takes frames with these weights (one image: `dual_image`
// false).
bool weighted_front_end_fits(const Config& config, bool dual_image);

// The device memory it plans for a frame of `pixels` pixels.
int64_t weighted_frame_device_bytes(int64_t pixels);

// weighted_front_end's result for such a frame (`map`: WEIGHT_IMAGE's pixels as read), `maps`
// filled as there but for the variance and threshold images, which FrontEnd::fill_weight_maps
// fills (the host images come down meanwhile). Where SExtractor's pixel stack could overflow, the
// detection runs on the host (with a warning for each overflow, as there). Throws
// celeris::Error without a CUDA device.
// `host_filtered`: whether the host stages read the detection image and each pixel's threshold
// (host_reads_detection_image); else those stay on the device alone (maps.thresh empty).
FrontEnd weighted_front_end_gpu(ImageView<const float> image, ImageView<const float> map,
                                const Config& config, const FilterParams& filter, int threads,
                                WeightMaps& maps, bool host_filtered = true);

}  // namespace celeris::extract::gpu
