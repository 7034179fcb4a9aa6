#include "core/cuda/staged_upload.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/pinned_buffer_pool.hpp"

namespace celeris::cuda {

void copy_in_slices(void* to, const void* from, size_t bytes, int threads) {
  constexpr size_t kSlice = size_t(512) << 10;
  const int64_t slices = static_cast<int64_t>((bytes + kSlice - 1) / kSlice);
  unsigned char* t = static_cast<unsigned char*>(to);
  const unsigned char* f = static_cast<const unsigned char*>(from);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t j = 0; j < slices; ++j) {
    const size_t at = static_cast<size_t>(j) * kSlice;
    std::memcpy(t + at, f + at, std::min(kSlice, bytes - at));
  }
}

void StagedUpload::upload(void* device, const void* host, size_t bytes, cudaStream_t stream,
                          int threads) {
  if (bytes == 0) return;
  if (is_page_locked(host)) {
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
    return;
  }
  constexpr size_t kChunk = size_t(8) << 20;
  for (size_t off = 0, k = 0; off < bytes; off += kChunk, ++k) {
    Chunk& c = chunks_[k % 2];
    c.buffer.grow(kChunk);
    c.free.synchronize();  // its previous copy has crossed (never recorded: returns at once)
    const size_t len = std::min(kChunk, bytes - off);
    copy_in_slices(c.buffer.data(), static_cast<const char*>(host) + off, len, threads);
    CELERIS_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(device) + off, c.buffer.data(), len,
                                       cudaMemcpyHostToDevice, stream));
    c.free.record(stream);
  }
}

}  // namespace celeris::cuda
