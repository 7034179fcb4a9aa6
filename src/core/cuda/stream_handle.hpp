// Internal CUDA layer: a CUDA stream named in a plain C++ header. cudaStream_t is a pointer to
// the runtime's opaque CUstream_st; declaring that struct here lets an interface that headers
// without CUDA include (a stage's, with its stub for builds without CUDA) pass a stream from one
// GPU stage to another, for work that must be ordered on it.
#pragma once

struct CUstream_st;

namespace celeris::cuda {

using StreamHandle = CUstream_st*;  // the same type as cudaStream_t

}  // namespace celeris::cuda
