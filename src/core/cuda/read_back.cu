// read_back.hpp's kernel: a few words from device memory into mapped host memory.
#include "core/cuda/read_back.hpp"

#include <algorithm>
#include <cstdint>

#include "celeris/error.hpp"

namespace celeris::cuda {

namespace {

__global__ void copy_words_kernel(const uint32_t* from, volatile uint32_t* to, int64_t words) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += stride)
    to[i] = from[i];
}

}  // namespace

void read_back_bytes(const void* from, void* to, size_t bytes, cudaStream_t stream) {
  if (bytes % 4 != 0) throw Error("internal: read_back of " + std::to_string(bytes) + " bytes");
  if (bytes == 0) return;
  const int64_t words = static_cast<int64_t>(bytes / 4);
  // A few words: one warp, as before; more: a block of 256 per 4096 words, at most 64 blocks
  // (PCIe, not the SMs, sets the pace).
  const int threads = words <= 32 ? 32 : 256;
  const int64_t blocks = std::min<int64_t>(64, (words + 4095) / 4096);
  copy_words_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      static_cast<const uint32_t*>(from), static_cast<uint32_t*>(to), words);
  cuda_check_launch("copy_words_kernel");
}

}  // namespace celeris::cuda
