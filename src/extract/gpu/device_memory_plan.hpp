// Whether a frame can take the GPU path, from its size and the device's memory: the GPU path
// plans a frame's peak device memory before it starts (front_end.hpp frame_device_bytes), and a
// frame it cannot hold is extracted on the CPU, with a warning, rather than failing part-way
// with "out of memory" (the catalog is the same on either device). Plain C++, so that the
// decision is tested without a device.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

namespace celeris::extract::gpu {

// The GPU path indexes a frame's pixels with 32-bit integers.
constexpr int64_t kMaxGpuPixels = (int64_t{1} << 31) - 1;

// The share of the device's memory a frame may plan to use: the rest is the CUDA context's, the
// other frames' in a stream, and CUB's and the driver's own.
constexpr double kUsableShare = 0.8;

// A stream's device memory (run_frames.cpp) for frames of one size: `fronts` frames in the front
// stages, each planned at `frame_bytes` (its two images included; the front contexts keep their
// grown buffers), and `back_frames` more past the front holding their two images (`image_bytes`)
// until their catalogs are written. Saturates at the int64_t maximum (a frame that cannot be
// planned).
inline int64_t stream_device_bytes(int64_t frame_bytes, int64_t image_bytes, int64_t fronts,
                                   int64_t back_frames) {
  const long double total = static_cast<long double>(frame_bytes) * fronts +
                            static_cast<long double>(image_bytes) * back_frames;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  return total >= static_cast<long double>(kMax) ? kMax : static_cast<int64_t>(total);
}

// Frames in the GPU front end at once, each holding one of its contexts (front_end.cpp); a
// stream's further fronts wait for a context, holding no device memory meanwhile.
constexpr size_t kFrontContexts = 2;

// The frames whose buffers a process keeps for the next frames once given back (the images'
// and the detected pixels' pools, front_end.cpp and detections_from_chains.cpp): those in the
// front ends, in a stream's queue and back workers and waiting to be written (a stream of the
// default shape on 16 cores lets 11 in flight, run_frames.cpp), and spares. One kept and not
// used again costs its memory only; one given back beyond these is freed, which waits for the
// whole device.
constexpr size_t kPooledFrames = kFrontContexts + 14;

// The frames past the front end that every frame of a stream is planned with, whatever the
// stream's shape: whether a frame takes the GPU at all is decided with this load (the default
// shape's until stop 50: two fronts and four back workers on 16 cores, one per 4 cores on fewer;
// run_frames.cpp), so that a larger shape sends no frame to the CPU that the smaller one took.
constexpr size_t kPlannedBackFrames = 4;

// Whether `window` frames of one size in flight fit the device's usable share: `gpu_fronts` of
// them (or all, if fewer) in the front end, planned at `frame_bytes`, the others keeping their
// images (`image_bytes`). `device_bytes` <= 0: the memory is not known, true.
inline bool stream_fits(int64_t frame_bytes, int64_t image_bytes, size_t gpu_fronts, size_t window,
                        int64_t device_bytes) {
  if (device_bytes <= 0) return true;
  const int64_t fronts = static_cast<int64_t>(std::min(gpu_fronts, window));
  const int64_t back = static_cast<int64_t>(window) - fronts;
  return static_cast<double>(stream_device_bytes(frame_bytes, image_bytes, fronts, back)) <=
         kUsableShare * static_cast<double>(device_bytes);
}

// How many frames of one size a stream lets in flight at once (from the front stages until
// their catalogs are written): the most in [least, most] whose plan fits the device's usable
// share (stream_fits), else `least` (whose plan decides whether the frame takes the
// GPU at all). `device_bytes` <= 0: the memory is not known, `most`.
inline size_t stream_window(int64_t frame_bytes, int64_t image_bytes, size_t gpu_fronts,
                            size_t least, size_t most, int64_t device_bytes) {
  least = std::min(least, most);
  for (size_t w = most; w > least; --w)
    if (stream_fits(frame_bytes, image_bytes, gpu_fronts, w, device_bytes)) return w;
  return least;
}

// One frame of a stream: how many frames may be in flight with it, and the load its device
// memory is planned with (`fronts` frames in the front end, `back_frames` past it keeping their
// images; pipeline.hpp GpuStreamLoad).
struct StreamFramePlan {
  size_t window = 1;
  size_t fronts = 1;
  size_t back_frames = 0;
};

// A frame that fits the stream's planned load (`planned` frames in flight, `gpu_fronts` of them
// in the front end) is planned with it, and let in with as many frames in flight as the device
// holds at its size (stream_window, up to `most`). A larger frame waits for fewer frames in
// flight instead of going to the CPU: the most, below `planned`, whose plan fits, down to the
// frame alone (window 1: one front, none past it). A frame that does not fit alone is planned
// alone, which sends it to the CPU with a warning naming the frame (gpu_frame_refusal), and
// keeps the planned window: it holds no device memory.
inline StreamFramePlan stream_frame_plan(int64_t frame_bytes, int64_t image_bytes,
                                         size_t gpu_fronts, size_t planned, size_t most,
                                         int64_t device_bytes) {
  planned = std::max<size_t>(1, std::min(planned, most));
  gpu_fronts = std::max<size_t>(1, gpu_fronts);
  auto with = [&](size_t window) {
    const size_t fronts = std::min(gpu_fronts, window);
    return StreamFramePlan{window, fronts, window - fronts};
  };
  if (stream_fits(frame_bytes, image_bytes, gpu_fronts, planned, device_bytes)) {
    StreamFramePlan p = with(planned);
    p.window = stream_window(frame_bytes, image_bytes, gpu_fronts, planned, most, device_bytes);
    return p;
  }
  for (size_t w = planned; w-- > 1;)
    if (stream_fits(frame_bytes, image_bytes, gpu_fronts, w, device_bytes)) return with(w);
  return StreamFramePlan{planned, 1, 0};
}

// The same bound from the host's side: each frame in flight past the front end keeps its images'
// page-locked host copies (`host_bytes`: the value image, and the filtered one where a host stage
// reads it), and a stream lets in as many as `budget` bytes hold, at least `least` (the shape
// before stop 50 held that many whatever the frame's size), at most `most`.
inline size_t host_image_window(int64_t host_bytes, size_t least, size_t most, size_t budget) {
  least = std::min(least, most);
  if (host_bytes <= 0) return most;
  const size_t fit = budget / static_cast<size_t>(host_bytes);
  return std::clamp(fit, least, most);
}

// Why a width x height frame, planned at `needed` bytes of device memory, cannot take the GPU
// path on a device of `device_bytes` bytes: empty when it can. `device_bytes` <= 0: the memory is
// not known (only the pixel count is checked). `what` names what needs the memory (a frame, or a
// stream's frames in flight).
inline std::string gpu_frame_refusal(int64_t width, int64_t height, int64_t needed,
                                     int64_t device_bytes, const std::string& what = "the frame") {
  const int64_t pixels = width * height;
  auto gib = [](int64_t bytes) {
    const double g = static_cast<double>(bytes) / double(int64_t{1} << 30);
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", g);
    return std::string(text);
  };
  if (pixels > kMaxGpuPixels)
    return "the frame's " + std::to_string(pixels) +
           " pixels are more than the GPU path indexes (2^31 - 1)";
  if (device_bytes > 0 && static_cast<double>(needed) > kUsableShare * device_bytes)
    return what + " would take up to " + gib(needed) + " of device memory, more than " +
           std::to_string(static_cast<int>(kUsableShare * 100)) + "% of the device's " +
           gib(device_bytes);
  return {};
}

}  // namespace celeris::extract::gpu
