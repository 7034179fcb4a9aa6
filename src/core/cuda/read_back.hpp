// Internal CUDA layer: small results read back without the copy engines. A few values (a count,
// a flag) that the host waits for are copied by a one-block kernel into page-locked host memory
// mapped into the device's address space (MappedValues), instead of by cudaMemcpyAsync: a copy
// from the device queues on a copy engine behind any large download in flight, and on the H200
// the GPU front end's count of kept pixels waited about 1 ms behind the value image's 64 MB
// download on the other stream (stop 37, Nsight Compute: 0.15 ms of kernels in a 1.17 ms step).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/cuda/cuda_check.hpp"

namespace celeris::cuda {

// `n` values of T in page-locked host memory that kernels can write (cudaHostAllocMapped).
// Neither copied nor moved (its owner holds it in place); freed on destruction.
template <class T>
class MappedValues {
 public:
  explicit MappedValues(size_t n = 0) { allocate(n); }
  MappedValues(const MappedValues&) = delete;
  MappedValues& operator=(const MappedValues&) = delete;
  ~MappedValues() { release(); }
  // At least n values, reallocated (contents lost) only when fewer are held: for read-backs
  // whose size follows the frame's (as PinnedBuffer::grow).
  void grow(size_t n) {
    if (n <= n_) return;
    release();
    allocate(n);
  }
  // The host's view: read after the stream that wrote it has been synchronised.
  const T* host() const { return host_; }
  T* device() const { return device_; }  // the kernels' view of the same memory
  size_t size() const { return n_; }

 private:
  void allocate(size_t n) {
    if (n == 0) return;
    cuda_check(cudaHostAlloc(reinterpret_cast<void**>(&host_), n * sizeof(T), cudaHostAllocMapped),
               "cudaHostAlloc(mapped, " + std::to_string(n * sizeof(T)) + " bytes)");
    cuda_check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0),
               "cudaHostGetDevicePointer");
    n_ = n;
  }
  void release() noexcept {
    if (host_) cudaFreeHost(host_);
    host_ = nullptr;
    device_ = nullptr;
    n_ = 0;
  }
  T* host_ = nullptr;
  T* device_ = nullptr;
  size_t n_ = 0;
};

// Queues on `stream` the copy of `bytes` (a multiple of 4) from device memory `from` to mapped
// host memory `to` (MappedValues::device()), by a kernel: a few words, or a frame's per-object
// answers (the deblending's slots, up to a few hundred KB) that the host waits for while the copy
// engines are busy with the frame's images.
void read_back_bytes(const void* from, void* to, size_t bytes, cudaStream_t stream);

// values[0, n) of device memory into mapped.host()[0, n), on `stream`; synchronises the stream
// and returns the host's view.
template <class T>
const T* read_back(const T* from, MappedValues<T>& mapped, size_t n, cudaStream_t stream) {
  static_assert(sizeof(T) % 4 == 0, "read_back copies 4-byte words");
  read_back_bytes(from, mapped.device(), n * sizeof(T), stream);
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (read_back)");
  return mapped.host();
}

}  // namespace celeris::cuda
