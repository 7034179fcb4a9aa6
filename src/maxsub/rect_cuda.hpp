// Internal to src/maxsub: the CUDA row-pair search (rect_cuda.cu). Plain types only, so that the
// .cu compiles whatever C++ dialect nvcc is given (C++17 or later).
#pragma once

namespace celeris::maxsub::detail {

// Best rectangle in image coordinates; top < 0: none (every cell blocked).
template <class T>
struct CudaBest {
  T sum;
  int top, left, bottom, right;
};

// vt: the grid's vertical prefix sums, column-major: vt[j * (m + 1) + i] = sum of rows < i of
// column j (n columns, m rows, m <= 65535). bt: the same for blocked-cell counts, or nullptr.
// transposed: grid row i is image column i. Throws celeris::Error (no device, CUDA failure).
CudaBest<double> cuda_pairs_search(const double* vt, const int* bt, int m, int n, bool transposed);
CudaBest<float> cuda_pairs_search(const float* vt, const int* bt, int m, int n, bool transposed);

}  // namespace celeris::maxsub::detail
