// The device choice shared by every module (celeris/device.hpp), in every build: with or without
// the CUDA backend, with or without a GPU.
#include <gtest/gtest.h>

#include <string>

#include "celeris/device.hpp"
#include "celeris/error.hpp"

// One GPU per MPI rank selects `local rank mod GPUs` (xmatch's MPI driver, bench_count_billion):
// a GPU that is not there is an error naming it, never a silent fall-back to GPU 0.
TEST(Device, SelectingAGpuThatIsNotThereIsAnErrorNamingIt) {
  const int n = celeris::cuda_device_count();
  for (const int ordinal : {n, n + 3}) {
    try {
      celeris::select_cuda_device(ordinal);
      FAIL() << "GPU " << ordinal << " selected with " << n << " GPUs";
    } catch (const celeris::Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("cannot select GPU " + std::to_string(ordinal), 0), 0u)
          << e.what();
    }
  }
  for (int k = 0; k < n; ++k) EXPECT_NO_THROW(celeris::select_cuda_device(k)) << k;
  if (n > 0) celeris::select_cuda_device(0);
}

TEST(Device, NamesParseAndUnknownOnesAreRefused) {
  EXPECT_EQ(celeris::parse_device("cpu"), celeris::Device::Cpu);
  EXPECT_EQ(celeris::parse_device("gpu"), celeris::Device::Cuda);
  EXPECT_EQ(celeris::parse_device("cuda"), celeris::Device::Cuda);
  EXPECT_EQ(celeris::parse_device("auto"), celeris::Device::Auto);
  EXPECT_THROW(celeris::parse_device("tpu"), celeris::Error);
  EXPECT_EQ(celeris::resolve_device(celeris::Device::Cpu), celeris::Device::Cpu);
  EXPECT_EQ(celeris::resolve_device(celeris::Device::Auto),
            celeris::cuda_device_count() > 0 ? celeris::Device::Cuda : celeris::Device::Cpu);
}
