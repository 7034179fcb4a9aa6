// CPU emulation shim for checking convex_cuda.cu's logic without a GPU (blocks one at a time,
// each block's threads as std::threads; shared memory = static locals).
#pragma once
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __launch_bounds__(...)
using std::min;
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline thread_local int emu_flat;
inline std::barrier<>* emu_block_bar;
inline std::vector<std::unique_ptr<std::barrier<>>> emu_warp_bar;
inline double emu_buf[1024];
inline void __syncthreads() {
  emu_block_bar->arrive_and_wait();
}
template <class T>
T emu_exchange(T v, int src_lane, bool take) {
  const int w = emu_flat >> 5;
  emu_buf[emu_flat] = v;
  emu_warp_bar[w]->arrive_and_wait();
  T r = take ? T(emu_buf[w * 32 + src_lane]) : v;
  emu_warp_bar[w]->arrive_and_wait();
  return r;
}
// width: the warp split into segments of that many lanes, as CUDA's optional last argument.
template <class T>
T __shfl_up_sync(unsigned, T v, int d, int width = 32) {
  const int lane = emu_flat & 31;
  return emu_exchange(v, lane - d, lane % width >= d);
}
template <class T>
T __shfl_down_sync(unsigned, T v, int d, int width = 32) {
  const int lane = emu_flat & 31;
  return emu_exchange(v, lane + d, lane % width + d < width);
}
template <class T>
T __shfl_sync(unsigned, T v, int src) {
  return emu_exchange(v, src, true);
}
template <class T>
T __shfl_xor_sync(unsigned, T v, int m) {
  return emu_exchange(v, (emu_flat & 31) ^ m, true);
}
inline void __syncwarp(unsigned = 0xffffffffu) {
  emu_warp_bar[emu_flat >> 5]->arrive_and_wait();
}
template <class F, class... A>
void emu_launch(F f, dim3 g, dim3 b, A... args) {
  gridDim = g;
  blockDim = b;
  const int n = int(b.x * b.y * b.z);
  for (unsigned bz = 0; bz < g.z; ++bz)
    for (unsigned by = 0; by < g.y; ++by)
      for (unsigned bx = 0; bx < g.x; ++bx) {
        std::barrier<> bar(n);
        emu_block_bar = &bar;
        emu_warp_bar.clear();
        for (int w = 0; w * 32 < n; ++w)
          emu_warp_bar.push_back(std::make_unique<std::barrier<>>(std::min(32, n - w * 32)));
        std::vector<std::thread> th;
        for (int i = 0; i < n; ++i)
          th.emplace_back([&, i] {
            emu_flat = i;
            threadIdx = dim3(i % b.x, (i / b.x) % b.y, i / (b.x * b.y));
            blockIdx = dim3(bx, by, bz);
            f(args...);
            emu_warp_bar[i >> 5]->arrive_and_drop();
            bar.arrive_and_drop();
          });
        for (auto& t : th) t.join();
      }
}
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
template <class T>
cudaError_t cudaMalloc(T** p, size_t n) {
  *p = (T*)std::malloc(n ? n : 1);
  std::memset((void*)*p, 0x7f, n);
  return 0;
}
inline cudaError_t cudaFree(void* p) {
  std::free(p);
  return 0;
}
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind) {
  std::memcpy(d, s, n);
  return 0;
}
inline cudaError_t cudaGetLastError() {
  return 0;
}
inline const char* cudaGetErrorString(cudaError_t) {
  return "emu";
}
inline const char* cudaGetErrorName(cudaError_t) {
  return "emu";
}
// Streams are one queue here: every "asynchronous" call runs at once.
typedef void* cudaStream_t;
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t) {
  std::memcpy(d, s, n);
  return 0;
}
inline cudaError_t cudaMemsetAsync(void* d, int v, size_t n, cudaStream_t) {
  std::memset(d, v, n);
  return 0;
}
inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return 0;
}
inline cudaError_t cudaMemGetInfo(size_t* f, size_t* t) {
  *f = *t = size_t(1) << 34;
  return 0;
}
typedef int cudaEvent_t;
inline cudaError_t cudaEventCreate(cudaEvent_t*) {
  return 0;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t) {
  return 0;
}
inline cudaError_t cudaEventRecord(cudaEvent_t) {
  return 0;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) {
  return 0;
}
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0;
  return 0;
}
