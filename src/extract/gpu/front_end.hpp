// The extraction's first stages on the GPU: background mesh statistics, the background map and
// its subtraction, the detection filter, thresholding, 8-connected labelling (union-find), the
// components in SExtractor's completion order with each one's pixels in its chain order
// (chain_order.hpp), and the bound on SExtractor's pixel stack. The data stay on the device
// between those stages; what the CPU stages after them need (the map, the two images, the
// detections' pixel indices) comes back, and the host gathers the detections' pixel values.
// Every value is the CPU path's to the last bit: the per-mesh mode and the spline surface are
// the same host/device functions (stages/background_mode.hpp, background_spline.hpp), sums run
// in the CPU's order, and the CUDA code is compiled without FMA contraction.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "celeris/device_image.hpp"
#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/image.hpp"
#include "core/stored_pixels.hpp"
#include "extract/objects.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/filter.hpp"

namespace celeris::extract {

struct WeightMaps;         // stages/weights.hpp
class DeblendTreeBuilder;  // stages/deblend_tree_builder.hpp

// What the first stages (background, filter, detection) hand to those after them, from either
// device. The two images are views of `storage`: host images on the CPU path, page-locked
// buffers on the GPU path (returned to the GPU context's pool when the last copy of `storage`
// goes), so that the download runs at the bus's speed.
struct FrontEnd {
  BackgroundMap background;
  ImageView<const float> value;     // background-subtracted image
  ImageView<const float> filtered;  // detection image (-inf where the filter support is
                                    // masked); data == nullptr with FILTER N
  ObjectList detections;            // exactly detect()'s
  // The GPU path: each detection's peaks, min(2, count_peaks) (gpu/peak_kernels.hpp), for the
  // deblender's first question; empty where not counted (the CPU path, a host detection).
  std::vector<uint8_t> peaks;
  // The GPU path: the deblending's candidates prepared and their trees launched on the device
  // (gpu/deblend_trees_gpu.hpp prepare_trees; DeblendParams::prepared); null where not.
  std::shared_ptr<DeblendTreeBuilder> prepared_trees;
  // The GPU path: each detection's done line (its last row + 1, scan_order.hpp done_lines),
  // taken in the host gather; empty where not taken.
  std::vector<int64_t> done_lines;
  float detect_thresh = 0, analysis_thresh = 0;  // ADU above background
  std::vector<std::pair<std::string, double>> stage_seconds;
  std::vector<std::string> warnings;  // e.g. pixel stack overflows (sextractor/pixel_stack.hpp)
  // The GPU path's bound of the entries SExtractor's pixel stack holds (detect.hpp
  // pixel_stack_bound; -1 where not taken: the CPU path, or a frame smaller than the stack).
  int64_t pixel_stack_bound = -1;
  std::shared_ptr<void> storage;
  // The GPU path: the same two images on the device, valid while `storage` is held (null on
  // the CPU path); the detection image is device_value's with FILTER N. The filtered image
  // stays there alone unless a host stage asked for it (front_end's host_filtered).
  const float* device_value = nullptr;
  const float* device_cvalue = nullptr;
  // The GPU's weighted front end: the measurement variances (WeightMaps::var) and each pixel's
  // detection threshold (WeightMaps::thresh; null with THRESH_TYPE ABSOLUTE, where every pixel's
  // is detect_thresh) on the device.
  const float* device_var = nullptr;
  const float* device_thresh = nullptr;
  // The GPU path when its caller let the host images' download run on past the front end
  // (front_end's `defer_host_images`): waits until `value` and `filtered` hold the images.
  // Empty otherwise. Host code reads them only after wait_for_host_images().
  std::function<void()> host_images_pending;
  void wait_for_host_images() const {
    if (host_images_pending) host_images_pending();
  }
  // The GPU's weighted front end: fills the frame's variance and threshold maps (WeightMaps::var,
  // thresh, from its downloads, waiting for them), which the stages before the measurement do
  // not read; given the maps where they are then (the FrontStage holding them moves), and the
  // host threads for the copies (the pipeline makes them beside the clean pass, on two). Empty
  // otherwise (the maps are filled by the front end).
  std::function<void(WeightMaps&, int threads)> fill_weight_maps;

  // Whether the filtered image is on the device alone (not brought back to the host).
  bool filtered_on_device_only() const {
    return device_cvalue && device_cvalue != device_value && !filtered.data;
  }

  // The image thresholds were applied to: the filtered one, or the image itself with FILTER N.
  ImageView<const float> detection_image() const {
    if (filtered_on_device_only())
      throw Error("internal: the filtered image was left on the device (gpu::front_end)");
    return filtered.data ? filtered : value;
  }
};

// Whether the back stages read the detection image on the host: the FILTERED check image, and
// BACKPHOTO_TYPE LOCAL, whose blanking (as seen at each detection, each pixel against its
// threshold) is made there. Otherwise the GPU's front ends leave it (and the weighted one each
// pixel's threshold) on the device, where the blanking codes are made (blanking_gpu.hpp).
inline bool host_reads_detection_image(const Config& config, const MeasureRequest& request) {
  return config.backphoto_type == BackPhotoType::Local ||
         std::find(request.check_images.begin(), request.check_images.end(),
                   CheckImage::Filtered) != request.check_images.end();
}

namespace gpu {

// Whether the GPU path can run here (built with CUDA and a device present).
bool available();

// The most device memory (bytes) the GPU path holds for one frame of `pixels` pixels: its images,
// the front end's labels, components and pixel lists, and the blanking codes, each as though
// every pixel were detected (the per-object buffers after them are smaller); the largest int64_t
// beyond 2^31 - 1 pixels (not to be planned); 0 without CUDA.
int64_t frame_device_bytes(int64_t pixels);
// The same for a frame detected in bands of `band_pixels` pixels (Config::gpu_band_rows rows):
// the images, blanking codes and owned pixels the frame's, the detection's buffers a band's.
int64_t banded_frame_device_bytes(int64_t pixels, int64_t band_pixels);
// The fewest rows a band may have (a detection taller than a band sends the frame to the CPU).
constexpr int64_t kMinBandRows = 64;
// The most rows of a band (at least kMinBandRows, fewer than `height`) with which a frame of
// width x height, in a stream's load of `fronts` frames in the front stages and `back_frames`
// keeping their images, fits the device's usable share (device_memory_plan.hpp); 0 when none
// does.
int64_t detection_band_rows(int64_t width, int64_t height, int64_t fronts, int64_t back_frames,
                            int64_t device_bytes);
// A frame in bands with a detection spanning a whole band (the pipeline extracts it on the CPU).
struct GpuBandsTooSmall : Error {
  using Error::Error;
};
// Of those, the frame's two images (value and detection), which stay on the device until its
// catalog is written (the back stages read them); 0 without CUDA.
int64_t frame_image_bytes(int64_t pixels);
// Frees the GPU front end's contexts and frame images that no frame holds now (they are kept
// for the next frames, grown to the largest frame so far): a stream does so before a frame
// too large for its planned load, whose plan counts only the frames in flight. Nothing without
// CUDA.
void release_idle_buffers();
// The current device's memory in bytes (0 without CUDA or a device).
int64_t device_memory_bytes();
// The memory a frame's plan is held to (device_memory_plan.hpp): Config::gpu_memory_bytes when
// set, else the device's.
inline int64_t device_memory_limit(const Config& config) {
  return config.gpu_memory_bytes > 0 ? config.gpu_memory_bytes : device_memory_bytes();
}
// The current device's memory in use now (total less free: every process's, the CUDA contexts
// included; 0 without CUDA or a device), for benchmarks to compare with frame_device_bytes.
int64_t device_memory_in_use();

// Throws celeris::Error when no GPU can run it, or when the frame has 2^31 pixels or more (the
// pipeline sends such frames to the CPU first: device_memory_plan.hpp).
// Each call holds one of two process-wide contexts (stream, device work buffers grown as frames
// need, page-locked return buffers), so that two frames can be in it at once and a sequence of
// frames allocates once; a third caller waits for a context.
// `host_filtered`: bring the filtered image back to the host too (FILTERED check image,
// BACKPHOTO_TYPE LOCAL's host blanking); else it stays on the device (device_cvalue).
// `defer_host_images`: return before the two images' download to the host has ended, the
// result's host_images_pending waiting for it (the pipeline's stages before the blanking read
// the device's images and the detections' pixel lists only, and the download, about 1.3 ms
// for a 4096^2 frame on the H200, runs beside them instead of before them).
// `stored`: the image's memory holds the file's stored values (core/stored_pixels.hpp), finished
// on the device as each strip arrives.
FrontEnd front_end(ImageView<const float> image, const Config& config, const FilterParams& filter,
                   int host_threads, bool host_filtered = true, bool defer_host_images = false,
                   const StoredPixels& stored = {});
// The same from a frame already in device memory (no upload; its valid pixels are counted on
// the device, as the CPU path counts them).
FrontEnd front_end(const DeviceImage& image, const Config& config, const FilterParams& filter,
                   int host_threads, bool host_filtered = true, bool defer_host_images = false);

}  // namespace gpu
}  // namespace celeris::extract
