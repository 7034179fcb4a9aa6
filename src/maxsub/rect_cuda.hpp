// Internal to src/maxsub: the CUDA rectangle searches (rect_cuda.cu: the fast tiled row-pair
// search; mesh_cuda.cu: the paper's mesh Algorithms 38 and 39). Plain types only, so that the .cu
// files compile whatever C++ dialect nvcc is given (C++17 or later).
#pragma once

#include <cstdint>

#include "maxsub/mesh.hpp"

namespace celeris::maxsub::detail {

// Stage times of the last GPU search, from device events (milliseconds).
struct CudaStageTimes {
  double upload_ms = 0;  // host -> device copy of the pixels (and blocked flags)
  double prep_ms = 0;    // layout as the grid and the vertical prefix tables
  double search_ms = 0;  // the search kernel(s) and the arg-max
};

// Where the pixels come from: src is row-major, src_width x src_height, of type In. The grid the
// search runs on is src (transpose_src false) or its transpose; grid rows must be the shorter
// axis (m <= n). swap_out: grid (row i, column j) is image (x = i, y = j), so results and the
// tie order are in image coordinates. blocked: src-shaped flags (cells excluded) or nullptr.
template <class In>
struct CudaSource {
  const In* src;
  int src_width, src_height;
  const uint8_t* blocked;
  bool transpose_src, swap_out;
};

// The fast search: every row pair on the GPU, tiles of pairs per block streaming the vertical
// prefix rows they need through shared memory. Best rectangle in the tie order of maxsub.hpp
// (top < 0: every cell blocked). Throws celeris::Error (no device, CUDA failure).
template <class T, class In>
MeshRect<T> cuda_rect_search(const CudaSource<In>& in, CudaStageTimes* times);

// The paper's Algorithm 38 (prefix = true) or 39 on the GPU: one thread per cell, m + n - 1
// synchronous steps (one launch each). Same result type and order.
template <class T, class In>
MeshRect<T> cuda_mesh_search(bool prefix, const CudaSource<In>& in, CudaStageTimes* times);

}  // namespace celeris::maxsub::detail
