// The detections' chain order and SExtractor's pixel-stack bound on the GPU (chain_kernels.cu),
// after sorted_components (kernels.hpp) has the kept pixels grouped by component in completion
// order, raster order within each. Plain C++17 on raw device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/cuda/device_buffer.hpp"
#include "core/cuda/read_back.hpp"
#include "extract/gpu/chain_order.hpp"

namespace celeris::extract::gpu {

// Device work buffers of the two stages below, grown as frames need (one per GPU context).
struct ChainWork {
  cuda::DeviceBuffer<int32_t> comp_flag, comp_index, run_flag, run_index;  // per pixel
  cuda::DeviceBuffer<int32_t> comp_run, run_first;                         // per component, run
  cuda::DeviceBuffer<int32_t> piece_end, piece_next;                       // per pixel
  cuda::DeviceBuffer<uint8_t> marks, above;
  cuda::DeviceBuffer<chain::Link> stored;
  cuda::DeviceBuffer<chain::Open> open;
  cuda::DeviceBuffer<int64_t> rows, bound;
  cuda::DeviceBuffer<int32_t> counts;  // components, runs, failed
  // Their host copies (read back without a copy engine: read_back.hpp).
  cuda::MappedValues<int32_t> counts_back{3};
  cuda::MappedValues<int64_t> bound_back{1};
  cuda::DeviceBuffer<unsigned char> cub;
};

// The components of `pixels` / `keys` (m kept pixels; keys[i] is the last pixel of pixel i's
// component: sorted_components' output) with each component's pixels in SExtractor's chain
// order (chain_order.hpp): `chained` (m entries, y * width + x) and `offset` (components + 1
// entries; component c holds chained[offset[c] .. offset[c + 1])) receive them, on the device;
// returns the number of components.
// Launch shape: passes over the m pixels (boundary flags, two CUB scans, a scatter, a CUB
// max-scan, a scatter) and one thread per component replaying the scan over its runs, so its
// time follows the largest component's runs (every component's thread is resident at once on
// a large GPU: no ordering by size helps). Memory: 32 bytes per kept pixel, 28 per run, 36 per
// component (crowded 4096^2: 944k pixels, 227k runs, 43k components, 38 MB; its largest
// component has 69 runs). Waits twice: for the counts, and at the end for the failure flag.
// Deterministic. Throws celeris::Error if a component breaks the routine's
// invariants (which sorted_components' output does not).
int64_t chain_components(const int32_t* pixels, const int32_t* keys, int64_t m, int width,
                         ChainWork& work, int32_t* chained, int32_t* offset, cudaStream_t stream);

// SExtractor's pixel-stack bound, the value of detect.hpp's pixel_stack_bound: pixels of the
// detection image `cvalue` (width x height) above `threshold` up to the end of each row, less
// the kept components freed before it (on the second row after their last). `keys` and
// `offset` as chain_components leaves them (component c's last pixel is keys[offset[c]], its
// size offset[c + 1] - offset[c]). One block per row, one thread per component, two CUB passes
// over the rows; waits for the value. `thresh`: each pixel's own threshold (weight maps).
int64_t pixel_stack_bound(const float* cvalue, int width, int height, float threshold,
                          const int32_t* keys, const int32_t* offset, int64_t components,
                          ChainWork& work, cudaStream_t stream, const float* thresh = nullptr);

// The same in parts, for a frame detected in bands of rows (front_end.cpp): the rows' lit pixels
// over the whole frame, then each band's kept components whose last band-local row is in
// [row_lo, row_hi] (the band's own; keys and offsets as chain_components leaves them, for a
// band from frame row y0 of a frame of `height` rows), then the bound.
void stack_rows_lit(const float* cvalue, int width, int height, float threshold, ChainWork& work,
                    cudaStream_t stream, const float* thresh = nullptr);
void stack_rows_freed(const int32_t* keys, const int32_t* offset, int64_t components, int width,
                      int y0, int row_lo, int row_hi, int height, ChainWork& work,
                      cudaStream_t stream);
int64_t stack_rows_bound(int width, int height, ChainWork& work, cudaStream_t stream);

// A band of rows just labelled (`parent` as label() leaves it: each detected pixel's component's
// first pixel, -1 elsewhere): into *top (device memory), the least first row of the components
// with a pixel on the band's last row, or the band's height when there is none. Band rows.
void last_row_top(const int32_t* parent, int width, int height, int32_t* top, cudaStream_t stream);

// The two images' values at the m chained pixels (y * width + x), for the host's detections:
// value[chained[i]] and cvalue[chained[i]] into out_value[i] and out_cvalue[i], the pixel's x
// and y into out_x[i] and out_y[i].
void gather_values(const int32_t* chained, int64_t m, const float* value, const float* cvalue,
                   int width, float* out_value, float* out_cvalue, int32_t* out_x, int32_t* out_y,
                   cudaStream_t stream);
// One more image's values at the chained pixels: image[chained[i]] into out[i] (weight maps:
// each pixel's variance and threshold).
void gather_image(const int32_t* chained, int64_t m, const float* image, float* out,
                  cudaStream_t stream);

// Each chained component's done line (one past its last row: detect()'s done_lines) into
// ends[c], bitwise negated (~) when one of its pixels lies on the image's border (FLAGS 8).
// `y0`: the chained pixels are a band's from frame row y0 (`height` the frame's).
void component_ends(const int32_t* chained, const int32_t* offset, int64_t components, int width,
                    int height, int32_t* ends, cudaStream_t stream, int y0 = 0);

}  // namespace celeris::extract::gpu
