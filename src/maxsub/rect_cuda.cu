// The maximum-sum rectangle on a GPU: every row pair (t, b) at once, each on one thread running
// Kadane over the column sums of rows t..b, read as differences of a column-major vertical
// prefix table (the paper's Algorithms 38/39 give every cell a processor; here every row pair
// gets one, which keeps the O(m^2 n) work and needs only O(mn) memory).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "maxsub/rect_cuda.hpp"

namespace celeris::maxsub::detail {

namespace {

constexpr int kThreads = 256;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(std::string("maxsub: cuda ") + what + ": " + cudaGetErrorString(e));
}

template <class T>
struct DevCand {
  T sum;
  int top, left, bottom, right;  // image coordinates; top < 0: none
};

template <class T>
__device__ __host__ inline bool dev_better(const DevCand<T>& a, const DevCand<T>& b) {
  if (a.top < 0) return false;
  if (b.top < 0) return true;
  if (a.sum != b.sum) return a.sum > b.sum;
  if (a.top != b.top) return a.top < b.top;
  if (a.left != b.left) return a.left < b.left;
  if (a.bottom != b.bottom) return a.bottom < b.bottom;
  return a.right < b.right;
}

// Launch: grid (ceil(m / 256), m), 256 threads; thread (x, y) takes rows t = y, b = x * 256 +
// threadIdx.x (idle when b < t or b >= m). Memory: per pair 2n reads of the prefix table
// vt[j * (m + 1) + i] (coalesced across b, broadcast for t), plus 2n of the blocked-count table
// when given. Guarantees: each block writes the best rectangle of its pairs in the tie order of
// maxsub.hpp (or top = -1) to out[y * gridDim.x + x].
template <class T>
__global__ void pairs_kernel(const T* __restrict__ vt, const int* __restrict__ bt, int m, int n,
                             bool transposed, DevCand<T>* __restrict__ out) {
  __shared__ DevCand<T> red[kThreads];
  const int t = blockIdx.y;
  const int b = blockIdx.x * kThreads + threadIdx.x;
  DevCand<T> best{T(0), -1, 0, 0, 0};
  if (b >= t && b < m) {
    bool have = false;
    T cur = T(0), bs = T(0);
    int cl = 0, bl = -1, br = 0;
    const size_t stride = size_t(m) + 1;
    for (int j = 0; j < n; ++j) {
      const size_t base = size_t(j) * stride;
      if (bt && bt[base + b + 1] - bt[base + t] > 0) {
        have = false;
        continue;
      }
      const T c = vt[base + b + 1] - vt[base + t];
      if (have && cur >= T(0)) {
        cur += c;
      } else {
        cur = c;
        cl = j;
        have = true;
      }
      // Within one pair the tie order is: larger sum, then smaller start, then smaller end.
      if (bl < 0 || cur > bs || (cur == bs && cl < bl)) {
        bs = cur;
        bl = cl;
        br = j;
      }
    }
    if (bl >= 0) {
      best = transposed ? DevCand<T>{bs, bl, t, br, b} : DevCand<T>{bs, t, bl, b, br};
    }
  }
  red[threadIdx.x] = best;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && dev_better(red[threadIdx.x + s], red[threadIdx.x]))
      red[threadIdx.x] = red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[size_t(blockIdx.y) * gridDim.x + blockIdx.x] = red[0];
}

template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(size_t n) { check(cudaMalloc(&p, n * sizeof(T) + 1), "malloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <class T>
CudaBest<T> search_impl(const T* vt, const int* bt, int m, int n, bool transposed) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw Error("maxsub: method cuda: no CUDA device");
  }
  if (m > 65535) throw Error("maxsub: method cuda: images wider and taller than 65535 pixels");
  const size_t cells = size_t(n) * (size_t(m) + 1);
  const dim3 grid((m + kThreads - 1) / kThreads, m);
  const size_t nblocks = size_t(grid.x) * grid.y;
  DeviceBuffer<T> d_vt(cells);
  DeviceBuffer<int> d_bt(bt ? cells : 0);
  DeviceBuffer<DevCand<T>> d_out(nblocks);
  check(cudaMemcpy(d_vt.p, vt, cells * sizeof(T), cudaMemcpyHostToDevice), "copy");
  if (bt) check(cudaMemcpy(d_bt.p, bt, cells * sizeof(int), cudaMemcpyHostToDevice), "copy");
  pairs_kernel<T><<<grid, kThreads>>>(d_vt.p, bt ? d_bt.p : nullptr, m, n, transposed, d_out.p);
  check(cudaGetLastError(), "launch");
  std::vector<DevCand<T>> out(nblocks);
  check(cudaMemcpy(out.data(), d_out.p, nblocks * sizeof(DevCand<T>), cudaMemcpyDeviceToHost),
        "copy back");
  DevCand<T> best{T(0), -1, 0, 0, 0};
  for (const DevCand<T>& c : out)
    if (dev_better(c, best)) best = c;
  return {best.sum, best.top, best.left, best.bottom, best.right};
}

}  // namespace

CudaBest<double> cuda_pairs_search(const double* vt, const int* bt, int m, int n, bool transposed) {
  return search_impl(vt, bt, m, n, transposed);
}
CudaBest<float> cuda_pairs_search(const float* vt, const int* bt, int m, int n, bool transposed) {
  return search_impl(vt, bt, m, n, transposed);
}

}  // namespace celeris::maxsub::detail
