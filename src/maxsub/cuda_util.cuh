// Internal to src/maxsub's .cu files: error checks, an owning device buffer, event timing and the
// kernel that lays the image out as the searches' grid (converted to the accumulation type and
// transposed when the image is taller than wide, as grid.hpp's Grid on the host).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "celeris/error.hpp"

namespace celeris::maxsub::detail {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(std::string("maxsub: cuda ") + what + ": " + cudaGetErrorString(e));
}

inline void cuda_require_device(const char* method) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw Error(std::string("maxsub: method ") + method + ": no CUDA device");
  }
}

template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(size_t n) {
    if (n) cuda_check(cudaMalloc(&p, n * sizeof(T)), "malloc");
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Milliseconds between two recorded points of the default stream.
struct EventTimer {
  cudaEvent_t e[2];
  EventTimer() {
    cudaEventCreate(&e[0]);
    cudaEventCreate(&e[1]);
  }
  ~EventTimer() {
    cudaEventDestroy(e[0]);
    cudaEventDestroy(e[1]);
  }
  void start() { cudaEventRecord(e[0]); }
  double stop_ms() {
    cudaEventRecord(e[1]);
    cudaEventSynchronize(e[1]);
    float ms = 0;
    cudaEventElapsedTime(&ms, e[0], e[1]);
    return ms;
  }
};

// Launch: one thread per grid cell (m x n, m = rows of the grid). Grid (i, j) is src(x = j, y = i)
// or, transposed, src(x = i, y = j); src is row-major with src_width columns. Writes a[i * n + j]
// (coalesced) and, when blocked_src is given, blocked[i * n + j].
template <class T, class In>
__global__ void to_grid_kernel(const In* __restrict__ src, const uint8_t* __restrict__ blocked_src,
                               int src_width, bool transpose, int m, int n, T* __restrict__ a,
                               uint8_t* __restrict__ blocked) {
  const size_t idx = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= size_t(m) * n) return;
  const int i = int(idx / n), j = int(idx % n);
  const size_t s = transpose ? size_t(j) * src_width + i : size_t(i) * src_width + j;
  a[idx] = static_cast<T>(src[s]);
  if (blocked) blocked[idx] = blocked_src[s];
}

}  // namespace celeris::maxsub::detail
