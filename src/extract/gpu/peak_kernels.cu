// Each detection's peaks (peak_kernels.hpp).
#include "extract/gpu/peak_kernels.hpp"

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/launch.hpp"
#include "extract/sextractor/detected_pixel.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kWarps = 8;  // detections a block
constexpr unsigned kFullWarp = 0xffffffffu;

__global__ void peaks_kernel(const int32_t* chained, const int32_t* offset, int64_t detections,
                             const float* value, const float* cvalue, float threshold, int width,
                             int height, uint8_t* peaks) {
  const int64_t d = blockIdx.x * static_cast<int64_t>(kWarps) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (d >= detections) return;
  const int32_t first = offset[d], end = offset[d + 1];
  int found = 0;
  // Whole rounds of 32, so that every lane takes part in each ballot; stops at two, as the
  // host's count does.
  for (int32_t base = first; base < end && found < 2; base += 32) {
    const int32_t i = base + lane;
    bool peak = false;
    if (i < end) {
      const int32_t p = chained[i];
      const int x = p % width, y = p / width;
      const float c = cvalue[p];
      bool higher = false;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = x + dx, ny = y + dy;
          if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const int64_t q = static_cast<int64_t>(ny) * width + nx;
          higher |= detected_pixel(value[q], cvalue[q], threshold) && cvalue[q] > c;
        }
      peak = !higher;
    }
    found += __popc(__ballot_sync(kFullWarp, peak));
  }
  if (lane == 0) peaks[d] = static_cast<uint8_t>(found < 2 ? found : 2);
}

}  // namespace

void count_peaks(const int32_t* chained, const int32_t* offset, int64_t detections,
                 const float* value, const float* cvalue, float threshold, int width, int height,
                 uint8_t* peaks, cudaStream_t stream) {
  if (detections == 0) return;
  peaks_kernel<<<cuda::blocks_for(detections, kWarps), kWarps * 32, 0, stream>>>(
      chained, offset, detections, value, cvalue, threshold, width, height, peaks);
  cuda::cuda_check_launch("peaks_kernel");
}

}  // namespace celeris::extract::gpu
