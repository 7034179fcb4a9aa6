// read_back.hpp's kernel: a few words from device memory into mapped host memory.
#include "core/cuda/read_back.hpp"

#include <cstdint>

#include "celeris/error.hpp"

namespace celeris::cuda {

namespace {

__global__ void copy_words_kernel(const uint32_t* from, volatile uint32_t* to, int words) {
  for (int i = threadIdx.x; i < words; i += blockDim.x) to[i] = from[i];
}

}  // namespace

void read_back_bytes(const void* from, void* to, size_t bytes, cudaStream_t stream) {
  if (bytes % 4 != 0 || bytes > 1024)
    throw Error("internal: read_back of " + std::to_string(bytes) + " bytes");
  if (bytes == 0) return;
  copy_words_kernel<<<1, 32, 0, stream>>>(static_cast<const uint32_t*>(from),
                                          static_cast<uint32_t*>(to), static_cast<int>(bytes / 4));
  cuda_check_launch("copy_words_kernel");
}

}  // namespace celeris::cuda
