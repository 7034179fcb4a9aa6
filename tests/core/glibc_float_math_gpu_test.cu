// core/glibc_float_math.hpp on the GPU: glibc's log(double(f)) and expf reproduced on the device
// give the host glibc's own bits, at every listed argument and at every 1031st float (compiled
// with --fmad=false, as cr_math.hpp requires). Labelled "core" and "gpu"; skipped without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "celeris/device.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/device_exception_lists.hpp"
#include "core/glibc_float_math.hpp"
#include "core/glibc_float_math_tables.hpp"

namespace {

namespace cu = celeris::cuda;
namespace gm = celeris::glibcmath;

// glibc's log of arg[k] where it is a positive finite float, expf where -70 < arg[k] < 70.
__global__ void glibc_kernel(const uint32_t* arg, int64_t n, gm::ExceptionLists lists,
                             double* log_out, float* exp_out) {
  const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  float x;
  memcpy(&x, &arg[k], sizeof x);
  log_out[k] = x > 0.0f && x <= 3.4028234e38f ? gm::glibc_log(x, lists) : 0.0;
  exp_out[k] = x > -70.0f && x < 70.0f ? gm::glibc_expf(x, lists) : 0.0f;
}

}  // namespace

TEST(GlibcFloatMathGpu, SameBitsAsTheHostGlibc) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const gm::ExceptionLists& host = gm::host_exception_lists();
  ASSERT_EQ(gm::log_exceptions_mismatch(), "");
  ASSERT_EQ(gm::expf_exceptions_mismatch(), "");
  // Every listed argument (both signs for expf's), then every 1031st bit pattern.
  std::vector<uint32_t> args;
  for (int64_t k = 0; k < host.log.size; ++k) args.push_back(host.log.entries[k] & 0x7fffffffu);
  for (int64_t k = 0; k < host.expf_below.size; ++k)
    args.push_back((host.expf_below.entries[k] & 0x7fffffffu) | 0x80000000u);
  for (int64_t k = 0; k < host.expf_above.size; ++k)
    args.push_back(host.expf_above.entries[k] & 0x7fffffffu);
  const size_t listed = args.size();
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 1031) args.push_back(static_cast<uint32_t>(b));
  const int64_t n = static_cast<int64_t>(args.size());
  const celeris::cuda::DeviceExceptionLists& lists = celeris::cuda::device_exception_lists();
  ASSERT_TRUE(lists.log && lists.expf);
  cu::DeviceBuffer<uint32_t> d_arg(args.size());
  d_arg.upload(args.data(), args.size());
  cu::DeviceBuffer<double> d_log(args.size());
  cu::DeviceBuffer<float> d_exp(args.size());
  glibc_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(d_arg.data(), n, lists.lists,
                                                                d_log.data(), d_exp.data());
  cu::cuda_check_launch("glibc_kernel");
  std::vector<double> got_log(args.size());
  std::vector<float> got_exp(args.size());
  d_log.download(got_log.data(), got_log.size());
  d_exp.download(got_exp.data(), got_exp.size());
  int64_t checked = 0;
  for (size_t k = 0; k < args.size(); ++k) {
    float x;
    std::memcpy(&x, &args[k], sizeof x);
    if (x > 0.0f && x <= 3.4028234e38f) {
      const double want = std::log(static_cast<double>(x));
      ASSERT_EQ(std::memcmp(&want, &got_log[k], sizeof want), 0)
          << "log " << x << (k < listed ? " (listed)" : "");
      ++checked;
    }
    if (x > -70.0f && x < 70.0f) {
      const float want = std::exp(x);
      ASSERT_EQ(std::memcmp(&want, &got_exp[k], sizeof want), 0)
          << "expf " << x << (k < listed ? " (listed)" : "");
      ++checked;
    }
  }
  EXPECT_GT(checked, n);
}
