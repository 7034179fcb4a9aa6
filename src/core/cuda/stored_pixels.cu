// stored_pixels.hpp's kernel: each value's bytes swapped, then the host reader's own rule
// (core/stored_value.hpp's stored_pixel; this file is built with --fmad=false, so the multiply
// and add round as on the host).
#include "core/cuda/stored_pixels.hpp"

#include <algorithm>
#include <cstdint>

#include "core/cuda/cuda_check.hpp"
#include "core/stored_value.hpp"

namespace celeris::cuda {

namespace {

__device__ inline uint32_t to_device_order(uint32_t big_endian) {
  return __byte_perm(big_endian, 0, 0x0123);
}
__device__ inline uint16_t to_device_order(uint16_t big_endian) {
  return static_cast<uint16_t>((big_endian >> 8) | (big_endian << 8));
}

template <typename Raw>
__global__ void convert_kernel(const void* from, uint32_t* to, size_t count, float bs, float bz,
                               bool has_blank, long long blank) {
  using U = StoredBits<Raw>;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const U bits = to_device_order(static_cast<const U*>(from)[i]);
    to[i] = bits_as<uint32_t>(stored_pixel<Raw>(bits, bs, bz, has_blank, blank));
  }
}

}  // namespace

void convert_stored(const void* from, float* to, size_t count, const StoredPixels& stored,
                    cudaStream_t stream) {
  if (stored.converted() || count == 0) return;
  constexpr int kThreads = 256;
  // A few waves of blocks, each thread a handful of values: the kernel is bound by memory.
  const unsigned blocks =
      static_cast<unsigned>(std::min<size_t>((count + kThreads - 1) / kThreads, 4096));
  uint32_t* words = reinterpret_cast<uint32_t*>(to);
  const float bs = stored.bscale, bz = stored.bzero;
  const bool has_blank = stored.has_blank;
  const long long blank = stored.blank;
  switch (stored.type) {
    case StoredPixels::Type::Float32:
      convert_kernel<float><<<blocks, kThreads, 0, stream>>>(from, words, count, bs, bz, false, 0);
      break;
    case StoredPixels::Type::Int32:
      convert_kernel<int32_t>
          <<<blocks, kThreads, 0, stream>>>(from, words, count, bs, bz, has_blank, blank);
      break;
    case StoredPixels::Type::Int16:
      convert_kernel<int16_t>
          <<<blocks, kThreads, 0, stream>>>(from, words, count, bs, bz, has_blank, blank);
      break;
    case StoredPixels::Type::Converted:
      return;
  }
  cuda_check_launch("convert_kernel");
}

}  // namespace celeris::cuda
