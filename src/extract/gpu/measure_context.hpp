// What the GPU measurement's drivers share (measure_gpu.cpp: every row at once;
// measure_batches.cpp: rows a batch at a time): the process-wide contexts (streams, device and
// page-locked buffers grown as frames need), the packed layouts of their inputs and outputs,
// the kernel's arguments, the objects' order by size and the columns taken from the outputs.
// CUDA host code, for those two files.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/staged_upload.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/measure_gpu.hpp"
#include "extract/gpu/measure_kernels.hpp"

namespace celeris::extract::gpu {

enum Mark { kStart, kUploaded, kMeasured, kDownloaded, kMarks };

// Everything one frame after another reuses: one per call at a time, from a process-wide pool
// (a stream's back workers each take their own).
struct MeasureContext {
  cuda::Stream stream;
  // The growth curve's first fill beside the photometry kernel (GrowthFork), and its bins.
  cuda::Stream aux;
  cuda::OrderEvent fork, join;
  cuda::DeviceBuffer<double> growth_first;
  cuda::EventTimer timer{kMarks};
  int sms = 1;  // the device's multiprocessors
  cuda::DeviceBuffer<float> value, var, dvar, dvalue;
  cuda::DeviceBuffer<int32_t> code, dcode;  // the blanking codes; dual-image mode's detection side
  // The small inputs (shapes, diameters, fractions) and all outputs, each packed in one buffer
  // so that each crosses the bus in one copy.
  cuda::DeviceBuffer<unsigned char> in, out;
  cuda::PinnedBuffer<unsigned char> staged_in, staged_out;
  // Uploads from pageable memory (the blanking codes made on the host, weight maps).
  cuda::StagedUpload staging;
  // PhotometryBatches (measure_batches.cpp): the streams its batches go to in turn, each one's
  // last point, and the point of `stream` each batch waits for. Made with the context, kept
  // with it (a frame's making and destroying them had cost about a millisecond). A batch's
  // kernels last as long as its slowest objects and fill a fraction of the device, so batches
  // side by side on more streams keep up with a fast pass: on a dense 4096^2 frame the wait for
  // them after the pass, with 4 streams 0.04-4.2 ms, was 0.04-0.5 with 8 (the measurement after
  // the pass 8.1 -> 4.9 ms and 6.2 -> 4.5, medians of 5 and 8 rounds; crowded frames unchanged;
  // H100, stop 77).
  static constexpr int kBatchStreams = 8;
  cuda::Stream batch_streams[kBatchStreams];
  cuda::OrderEvent batch_done[kBatchStreams];
  cuda::OrderEvent batch_ready;
};

std::shared_ptr<MeasureContext> take_measure_context();

// Byte offsets of consecutive arrays in one buffer, each 16-byte aligned.
class Layout {
 public:
  template <class T>
  size_t add(size_t count) {
    const size_t at = bytes_;
    bytes_ += (count * sizeof(T) + 15) / 16 * 16;
    return at;
  }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_ = 0;
};

// The inputs of up to n objects: their shapes, the kernel's order, the diameters and fractions.
struct InputLayout {
  Layout all;  // first: the offsets below are taken from it as they are initialised
  size_t shapes, order, apertures, fractions;
  InputLayout(size_t n, size_t na, size_t nf);
};

// The outputs of up to n objects, column after column.
struct OutputLayout {
  Layout all;  // first, as InputLayout's
  size_t flux_aper, fluxerr_aper, flux_auto, fluxerr_auto, kron, flux_radius, hl, flags;
  OutputLayout(size_t n, size_t na, size_t nf);
};

// The growth curve's radius (6 A_IMAGE, or PHOT_AUTOAPERS' search diameter when larger), which
// also sizes the Kron boxes: the measure of an object's work.
double growth_radius(const ApertureShape& s, double min_rlim);

// The objects the kernel measures, by decreasing growth radius (a counting sort), so that a
// warp's objects are alike and the largest start first; those whose radius reaches `host_rlim`
// go to `host` instead. Any order gives the same results: each object is measured alone. The
// radii's bins are taken on `threads` threads, the sort on one.
void split_by_size(const ApertureShape* shapes, size_t n, double min_rlim, double host_rlim,
                   int threads, std::vector<int32_t>& device, std::vector<int32_t>& host);

// The kernel's arguments for objects [first, first + count) of the packed buffers d_in (laid
// out as `in`) and d_out (as `out`), `device_order` their kernel order (indexes from `first`):
// their warps' share by radius and request.min_warps, the growth curve apart when the frame
// measures many objects on the device, `frame_objects` of them (PhotometryRequest::
// growth_kernel's automatic rule: a batch's kernels are chosen as the whole frame's).
PhotometryArgs photometry_args(const phot::View& view, const PhotometryRequest& request,
                               const MeasureContext& c, const unsigned char* d_in,
                               const InputLayout& in, unsigned char* d_out, const OutputLayout& out,
                               size_t first, const ApertureShape* shapes,
                               const std::vector<int32_t>& device_order, size_t frame_objects);

// Columns of objects [0, n) from the page-locked outputs `got` (laid out as `out`) into `cols`,
// on `threads` threads.
void gather_columns(const unsigned char* got, const OutputLayout& out, size_t n, size_t na,
                    size_t nf, int threads, PhotometryColumns& cols);

}  // namespace celeris::extract::gpu
