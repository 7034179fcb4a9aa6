// Each detection's peaks on the GPU, as the deblender's first question counts them on the host
// (stages/deblend_tree.hpp count_peaks): a detection of fewer than two peaks cannot split, and
// most detections of a crowded field have one. Plain C++17 on raw device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace celeris::extract::gpu {

// peaks[d] = min(2, the peaks of detection d), whose pixels are chained[offset[d] ..
// offset[d + 1]) (y * width + x). A pixel is a peak when none of its 8 neighbours in the
// detection is higher in `cvalue`; a neighbour is in the detection when it is detected
// (sextractor/detected_pixel.hpp, the labelling's test), since the detection is the whole
// 8-connected component. So count_peaks(detection, 2) on the host gives the same number, ties
// (plateaus) and all. One warp per detection, lanes over its pixels.
void count_peaks(const int32_t* chained, const int32_t* offset, int64_t detections,
                 const float* value, const float* cvalue, float threshold, int width, int height,
                 uint8_t* peaks, cudaStream_t stream);

}  // namespace celeris::extract::gpu
