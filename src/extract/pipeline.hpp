// The extraction in two halves, for callers that overlap frames (run_frames.cpp): the front
// (background, filter, detection; CPU or GPU) and the back (deblending, cleaning, measurement,
// check images; CPU). extract() is extract_back(extract_front(...)).
#pragma once

#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "core/stored_pixels.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/stages/dual_image.hpp"
#include "extract/stages/weights.hpp"

namespace celeris::extract {

// The front's product: what the back needs, with nothing pointing into the input image (its
// pixels may be freed or reused once extract_front returns, unless `reuse` was given).
struct FrontStage {
  FrontEnd front;
  Config config;  // the caller's, with the filter kernel resolved
  RunInfo info;   // filled so far (thresholds, detections, the front's stage times)
  int width = 0, height = 0;
  WeightMaps weights;    // weight maps (stages/weights.hpp), when WEIGHT_TYPE is set
  MeasureImage measure;  // dual-image mode (stages/dual_image.hpp)
};

// `reuse`, when given, holds the image's own pixels: the CPU path subtracts the background in
// place (the result then lives in *reuse's memory, moved into the FrontStage). Without the
// request, the stages are those of the default request (the back's request must then ask no
// FILTERED check image, which the GPU front end would leave on the device).
FrontStage extract_front(ImageView<const float> image, Image<float>* reuse, const Config& config);
// With the request's weight maps and measurement image (dual-image mode), if any: on the CPU.
FrontStage extract_front(ImageView<const float> image, Image<float>* reuse, const Config& config,
                         const MeasureRequest& request);
// A stream's other frames on the device (run_frames.cpp), for the device memory plan
// (gpu/device_memory_plan.hpp): with --device cuda a frame takes the GPU only when the device
// holds `fronts` frames of its size in the front stages and `back_frames` more keeping their
// images; else it is extracted on the CPU, with a warning. A single frame: one front, none back.
struct GpuStreamLoad {
  size_t fronts = 1;
  size_t back_frames = 0;
};
FrontStage extract_front(ImageView<const float> image, Image<float>* reuse, const Config& config,
                         const MeasureRequest& request, const GpuStreamLoad& load);
// A frame read with its pixels left as the file stores them (read_fits_image_into's
// `leave_stored`; a stream's readers with --device cuda): the GPU front end finishes them beside
// its upload; a frame that goes to the CPU instead (weights, dual-image mode, the memory plan)
// has them finished here first, in place (`stored` then says Converted).
FrontStage extract_front(ImageView<float> pixels, StoredPixels& stored, const Config& config,
                         const MeasureRequest& request, const GpuStreamLoad& load);
// From a frame in device memory: the GPU front end without an upload (with config.device cuda),
// or the CPU path on a host copy.
FrontStage extract_front(const DeviceImage& image, const Config& config,
                         const MeasureRequest& request = {});
Result extract_back(FrontStage&& stage, const MeasureRequest& request);

}  // namespace celeris::extract
