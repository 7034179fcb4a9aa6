// The host's side of the GPU's detection (front_end.cpp, detect_weighted_gpu.cpp): the
// detections' columns from the chained pixels the device gathered and brought back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/cuda/pinned_buffer.hpp"
#include "extract/objects.hpp"

namespace celeris::extract::gpu {

// One frame's detected pixels as they come back from the device, in chain order: their x then
// y (`xy`), and the images' values there, one image's after the other (`values`). The frame's
// detections take this page-locked memory as their pixel columns (detections_from_chains'
// `storage`), so it is the frame's until they let it go (the deblended objects are written over
// it and live until the catalog is made): each frame takes its own from a pool, not from the
// front end's context.
struct DetectionPixels {
  cuda::PinnedBuffer<int32_t> xy;
  cuda::PinnedBuffer<float> values;
};

// Storage for `pixels` pixels with `images` values each, from a process-wide pool (one given
// back when its last holder lets it go). A frame's pixel count varies a little from one frame of
// a survey to the next: each is made with room to spare, so that the next frame's usually fits.
std::shared_ptr<DetectionPixels> take_detection_pixels(size_t pixels, size_t images);
// Frees those waiting in the pool (a stream that lets in a frame larger than its plan).
void release_idle_detection_pixels();

// The detections from the chained pixels as the device gathered them (component c's at
// [offset[c], offset[c + 1]), in chain order: their x, y and the two images' values there) and
// the components' ends (chain_kernels.hpp component_ends): FLAGS 8 when one of its pixels lies
// on the image border, as detect() gives them, and each one's done line (done_lines' for the
// detections themselves) into `done`. The host only copies: the pixels' coordinates (an integer
// division each) and the border test were a third of this step's time in a stream's profile.
// With `storage` (what keeps xs, ys, value and cvalue alive), the pixel columns take those
// buffers as they are (pixel_column.hpp lend_column) rather than copies of them: nothing else may
// write them while the detections, or the objects deblended in their columns, hold them.
ObjectList detections_from_chains(int32_t* xs, int32_t* ys, int64_t n, const int32_t* offset,
                                  const int32_t* ends, size_t nobj, float* value, float* cvalue,
                                  int threads, std::vector<int64_t>& done,
                                  std::shared_ptr<const void> storage = nullptr);

// A frame detected in bands of rows (front_end.cpp): appends to `out` (and their done lines to
// `done`) components [c0, c1) of a band, as detections_from_chains reads them, their y (the
// band's rows) moved to the frame's rows from y0. Copies, on `threads` threads.
void append_band_detections(ObjectList& out, std::vector<int64_t>& done, const int32_t* xs,
                            const int32_t* ys, const int32_t* offset, const int32_t* ends,
                            size_t c0, size_t c1, const float* value, const float* cvalue, int y0,
                            int threads);

}  // namespace celeris::extract::gpu
