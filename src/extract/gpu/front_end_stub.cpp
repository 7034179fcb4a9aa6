// Builds without CUDA: the GPU front end is not there, and asking for it is an error.
#include "celeris/error.hpp"
#include "extract/gpu/detect_weighted_gpu.hpp"
#include "extract/gpu/front_end.hpp"
#include "extract/gpu/weighted_front_end_gpu.hpp"

namespace celeris::extract::gpu {

bool available() {
  return false;
}

int64_t frame_device_bytes(int64_t) {
  return 0;
}

int64_t frame_image_bytes(int64_t) {
  return 0;
}

int64_t banded_frame_device_bytes(int64_t, int64_t) {
  return 0;
}

int64_t detection_band_rows(int64_t, int64_t, int64_t, int64_t, int64_t) {
  return 0;
}

void release_idle_buffers() {}

int64_t device_memory_bytes() {
  return 0;
}

int64_t device_memory_in_use() {
  return 0;
}

FrontEnd front_end(ImageView<const float>, const Config&, const FilterParams&, int, bool, bool,
                   const StoredPixels&) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

FrontEnd front_end(const DeviceImage&, const Config&, const FilterParams&, int, bool, bool) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

WeightedDetections detect_weighted_gpu(ImageView<const float>, ImageView<const float>,
                                       ImageView<const float>, ImageView<const float>, float,
                                       const Config&, int) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

WeightedDetections detect_weighted_on_device(const float*, const float*, const float*, const float*,
                                             int64_t, int64_t, float, const Config&, int) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

bool weighted_front_end_fits(const Config&, bool) {
  return false;
}

int64_t weighted_frame_device_bytes(int64_t) {
  return 0;
}

FrontEnd weighted_front_end_gpu(ImageView<const float>, ImageView<const float>, const Config&,
                                const FilterParams&, int, WeightMaps&, bool) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

}  // namespace celeris::extract::gpu
