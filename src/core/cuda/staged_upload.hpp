// Internal CUDA layer: StagedUpload, host memory to device memory at the bus's speed. A copy
// from pageable memory goes through the driver's own staging at one host thread's memcpy speed
// (about 8 GB/s on the H200's host, a sixth of the bus's); here it is copied into two
// page-locked chunks by the caller's threads, each chunk crossing the bus while the next one is
// filled. Page-locked memory is copied straight.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/stream.hpp"

namespace celeris::cuda {

// `bytes` from `from` to `to` in 512 KB slices over `threads` threads (one thread's memcpy into
// page-locked memory is far below the bus's speed).
void copy_in_slices(void* to, const void* from, size_t bytes, int threads);

class StagedUpload {
 public:
  // `bytes` of host memory at `host` into `device` on `stream`, with `threads` host threads;
  // returns when the last chunk is queued (the host memory may be reused then).
  void upload(void* device, const void* host, size_t bytes, cudaStream_t stream, int threads);

 private:
  struct Chunk {
    PinnedBuffer<unsigned char> buffer;
    OrderEvent free;  // recorded after its copy crossed
  };
  Chunk chunks_[2];
};

}  // namespace celeris::cuda
