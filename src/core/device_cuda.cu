// CUDA device discovery (compiled only with the CUDA backend).
#include <cuda_runtime.h>

#include <string>

#include "celeris/error.hpp"

namespace celeris {

int cuda_device_count_impl() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

void select_cuda_device_impl(int ordinal) {
  const cudaError_t e = cudaSetDevice(ordinal);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("cannot select GPU " + std::to_string(ordinal) + ": " + cudaGetErrorString(e));
  }
}

std::string describe_devices_impl() {
  const int n = cuda_device_count_impl();
  if (n == 0) return "no CUDA device";
  std::string out;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, i);
    out += "GPU " + std::to_string(i) + ": " + p.name + " (sm_" + std::to_string(p.major) +
           std::to_string(p.minor) + ", " + std::to_string(p.totalGlobalMem / (1024 * 1024)) +
           " MiB)\n";
  }
  return out;
}

}  // namespace celeris
