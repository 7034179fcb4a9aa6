// The deblending's exponential levels on the device (deblend_levels_gpu.hpp).
#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "extract/gpu/deblend_levels.cuh"
#include "extract/gpu/deblend_levels_gpu.hpp"

namespace celeris::extract::gpu {

namespace {

// One candidate a thread.
__global__ void levels_kernel(const float* t0, const float* peak, const int* nthresh, int count,
                              int max_levels, float* levels, int* unsure) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  unsure[i] =
      device_levels(t0[i], peak[i], nthresh[i], levels + static_cast<size_t>(i) * max_levels);
}

}  // namespace

void device_exponential_levels(const std::vector<float>& t0, const std::vector<float>& peak,
                               const std::vector<int>& nthresh, int max_levels,
                               std::vector<float>& levels, std::vector<int>& unsure) {
  const size_t count = t0.size();
  if (peak.size() != count || nthresh.size() != count)
    throw Error("internal: device_exponential_levels given columns of different sizes");
  levels.assign(count * static_cast<size_t>(max_levels), 0.0f);
  unsure.assign(count, 0);
  if (count == 0) return;
  cuda::DeviceBuffer<float> d_t0(count), d_peak(count), d_levels(levels.size());
  cuda::DeviceBuffer<int> d_n(count), d_unsure(count);
  d_t0.upload(t0.data(), count);
  d_peak.upload(peak.data(), count);
  d_n.upload(nthresh.data(), count);
  constexpr int kBlock = 128;
  levels_kernel<<<static_cast<unsigned>((count + kBlock - 1) / kBlock), kBlock>>>(
      d_t0.data(), d_peak.data(), d_n.data(), static_cast<int>(count), max_levels, d_levels.data(),
      d_unsure.data());
  cuda::cuda_check_launch("levels_kernel");
  d_levels.download(levels.data(), levels.size());
  d_unsure.download(unsure.data(), count);
}

}  // namespace celeris::extract::gpu
