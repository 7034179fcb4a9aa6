// core/cr_math.hpp on the GPU: the same bits as on the host for every argument of a large
// sample (the functions are host/device code compiled without contraction on both sides:
// --fmad=false here, -ffp-contract=off for cr_math_test.cpp). Labelled "core" and "gpu";
// skipped without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "celeris/device.hpp"
#include "core/cr_math.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"

namespace {

namespace cu = celeris::cuda;

// Argument k is the float of bits first + k * stride.
__global__ void cr_kernel(uint32_t first, uint32_t stride, int64_t n, float* exp_out,
                          double* log_out) {
  const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const uint32_t bits = first + static_cast<uint32_t>(k) * stride;
  float x;
  memcpy(&x, &bits, sizeof x);
  // exp where its result is a normal float, log of the positive floats.
  exp_out[k] = x > -87.0f && x < 87.0f ? celeris::crmath::cr_expf(x) : 0.0f;
  bool certain = true;
  log_out[k] = x > 0.0f && x <= 3.4028234e38f ? celeris::crmath::cr_log_of_float(x, certain) : 0.0;
}

}  // namespace

TEST(CrMathGpu, SameBitsAsTheHost) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const uint32_t stride = 1031;  // a prime: every exponent, mantissas of every pattern
  const int64_t n = (int64_t{1} << 32) / stride;
  cu::DeviceBuffer<float> d_exp(static_cast<size_t>(n));
  cu::DeviceBuffer<double> d_log(static_cast<size_t>(n));
  cr_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(0u, stride, n, d_exp.data(),
                                                             d_log.data());
  cu::cuda_check_launch("cr_kernel");
  std::vector<float> got_exp(static_cast<size_t>(n));
  std::vector<double> got_log(static_cast<size_t>(n));
  d_exp.download(got_exp.data(), got_exp.size());
  d_log.download(got_log.data(), got_log.size());
  int64_t checked = 0;
  for (int64_t k = 0; k < n; ++k) {
    const uint32_t bits = static_cast<uint32_t>(k) * stride;
    float x;
    std::memcpy(&x, &bits, sizeof x);
    if (x > -87.0f && x < 87.0f) {
      const float want = celeris::crmath::cr_expf(x);
      ASSERT_EQ(std::memcmp(&want, &got_exp[k], sizeof want), 0) << "exp " << x;
      ++checked;
    }
    if (x > 0.0f && x <= 3.4028234e38f) {
      bool certain = true;
      const double want = celeris::crmath::cr_log_of_float(x, certain);
      ASSERT_EQ(std::memcmp(&want, &got_log[k], sizeof want), 0) << "log " << x;
      ++checked;
    }
  }
  EXPECT_GT(checked, n);  // most arguments were checked for both
}
