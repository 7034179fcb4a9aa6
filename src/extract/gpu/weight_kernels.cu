// Kernels of the weighted front end (weight_kernels.hpp). Compiled with --fmad=false.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/weight_kernels.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__global__ void map_to_variance_kernel(const float* map, MapKind kind, float sigfac2, float* var,
                                       int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) var[i] = map_variance(kind, sigfac2, map[i]);
}

__global__ void mask_kernel(const float* image, const float* var, float wthresh, float* masked,
                            int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) masked[i] = var[i] >= wthresh ? __int_as_float(0x7fc00000) : image[i];
}

__global__ void bad_rows_kernel(const float* var, float wthresh, int width, uint8_t* row_bad) {
  const int y = blockIdx.y;
  const float* row = var + static_cast<int64_t>(y) * width;
  bool bad = false;
  for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < width; x += gridDim.x * blockDim.x)
    bad |= row[x] >= wthresh;
  if (__syncthreads_or(bad) && threadIdx.x == 0) row_bad[y] = 1;
}

// Where each bad pixel of the listed rows takes its values from, decided on the map as it was
// before any pixel is interpolated: kGood for a good pixel; the last good pixel to its left
// (x - g <= xlag: interpolate.c's xtimeout, set to xlag at a good pixel and spent one bad pixel
// at a time, has not run out; the pixels between take g's values one from another); kAbove
// (the column's last values, while its own timeout lasts) otherwise.
constexpr int32_t kGood = -2, kAbove = -1;

__global__ void sources_kernel(const float* var, float wthresh, int width, const int32_t* rows,
                               int xlag, int32_t* source) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  const int k = blockIdx.y;
  const float* row = var + static_cast<int64_t>(rows[k]) * width;
  int32_t s = kGood;
  if (row[x] >= wthresh) {
    s = kAbove;
    for (int g = x - 1; g >= 0 && x - g <= xlag; --g)
      if (!(row[g] >= wthresh)) {
        s = g;
        break;
      }
  }
  source[static_cast<int64_t>(k) * width + x] = s;
}

// One thread per column, down the listed rows. A row between two listed ones has no bad pixel:
// it sets every column's timeout to ylag (as interpolate.c's good pixels do). A pixel copied
// from the left reads a good pixel's values, which no thread changes; one copied from above
// reads its own column's row before, as this thread left it.
__global__ void columns_kernel(float* value, float* var, int width, const int32_t* rows, int nrows,
                               int ylag, const int32_t* source) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  int yt = 0, previous = -1;
  for (int k = 0; k < nrows; ++k) {
    const int y = rows[k];
    if (y > previous + 1) yt = ylag;
    previous = y;
    const int64_t at = static_cast<int64_t>(y) * width + x;
    const int32_t s = source[static_cast<int64_t>(k) * width + x];
    if (s == kGood) {
      yt = ylag;
    } else if (s >= 0) {
      const int64_t from = static_cast<int64_t>(y) * width + s;
      var[at] = var[from];
      if (value) value[at] = value[from];
    } else if (yt) {
      --yt;
      var[at] = var[at - width];
      if (value) value[at] = value[at - width];
    }
  }
}

__global__ void thresholds_kernel(const float* cvar, float relthresh, float* thresh, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) thresh[i] = relative_threshold(relthresh, cvar[i]);
}

}  // namespace

void map_to_variance(const float* map, MapKind kind, float sigfac2, float* var, int64_t n,
                     cudaStream_t stream) {
  if (n <= 0) return;
  map_to_variance_kernel<<<blocks_for(n), kThreads, 0, stream>>>(map, kind, sigfac2, var, n);
  cuda::cuda_check_launch("map_to_variance_kernel");
}

void mask_bad_pixels(const float* image, const float* var, float wthresh, float* masked, int64_t n,
                     cudaStream_t stream) {
  if (n <= 0) return;
  mask_kernel<<<blocks_for(n), kThreads, 0, stream>>>(image, var, wthresh, masked, n);
  cuda::cuda_check_launch("mask_kernel");
}

void mark_bad_rows(const float* var, float wthresh, int width, int height, uint8_t* row_bad,
                   cudaStream_t stream) {
  if (height <= 0) return;
  CELERIS_CUDA_CHECK(cudaMemsetAsync(row_bad, 0, static_cast<size_t>(height), stream));
  const dim3 grid(static_cast<unsigned>(std::min(4, (width + kThreads - 1) / kThreads)),
                  static_cast<unsigned>(height));
  bad_rows_kernel<<<grid, kThreads, 0, stream>>>(var, wthresh, width, row_bad);
  cuda::cuda_check_launch("bad_rows_kernel");
}

void interpolate_bad_rows(float* value, float* var, float wthresh, int width, const int32_t* rows,
                          int nrows, int xlag, int ylag, int32_t* scratch, cudaStream_t stream) {
  if (nrows <= 0 || width <= 0) return;
  const unsigned across = static_cast<unsigned>((width + kThreads - 1) / kThreads);
  sources_kernel<<<dim3(across, static_cast<unsigned>(nrows)), kThreads, 0, stream>>>(
      var, wthresh, width, rows, xlag, scratch);
  cuda::cuda_check_launch("sources_kernel");
  // Few threads (one per column), each a long loop: small blocks spread them over the SMs.
  constexpr int kColumnThreads = 32;
  columns_kernel<<<static_cast<unsigned>((width + kColumnThreads - 1) / kColumnThreads),
                   kColumnThreads, 0, stream>>>(value, var, width, rows, nrows, ylag, scratch);
  cuda::cuda_check_launch("columns_kernel");
}

void relative_thresholds(const float* cvar, float relthresh, float* thresh, int64_t n,
                         cudaStream_t stream) {
  if (n <= 0) return;
  thresholds_kernel<<<blocks_for(n), kThreads, 0, stream>>>(cvar, relthresh, thresh, n);
  cuda::cuda_check_launch("thresholds_kernel");
}

}  // namespace celeris::extract::gpu
