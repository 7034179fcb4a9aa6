// The paper's mesh Algorithms 38 (2-D prefix sums) and 39 (mesh Kadane) on a GPU, as specified:
// one thread per cell, m + n - 1 synchronous steps, each cell reading only its own, its upper and
// its left neighbour's state of the previous step (mesh.hpp has the cell program). A step is one
// kernel launch over two state buffers (read one, write the other): the launch boundary is the
// paper's global clock. Kept for comparison with the row-pair search (rect_cuda.cu), which does
// the same O(m^2 n) work in one launch with O(mn) memory; the mesh moves O(mn) state per step.
#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "maxsub/rect_cuda.hpp"
#include "maxsub/to_grid.cuh"

namespace celeris::maxsub::detail {

using cuda::DeviceBuffer;

namespace {

constexpr int kThreads = 256;

// Launch: grid (ceil(min(k + 1, n) / 256), m); thread (x, y) is cell (i = y, j = x * 256 +
// threadIdx.x), only the active columns j <= k. Memory: per cell reads its own, the upper and the
// left state of step k - 1 (sizeof(MeshCell<T>) each, neighbours mostly from cache), one pixel
// and flag, writes its state once. Guarantees: after step k every active cell holds mesh.hpp's
// invariants for step k (inactive cells keep the initial state in both buffers).
template <class T>
__global__ void mesh_step_kernel(bool prefix, const MeshCell<T>* __restrict__ prev,
                                 MeshCell<T>* __restrict__ next, const T* __restrict__ a,
                                 const uint8_t* __restrict__ blocked, int m, int n, int k,
                                 bool swap_out) {
  const int i = blockIdx.y;
  const int j = blockIdx.x * kThreads + threadIdx.x;
  if (i >= m || j >= n || j > k) return;
  const size_t x = size_t(i) * n + j;
  next[x] =
      mesh_step(prefix, prev[x], i > 0 ? &prev[x - n] : nullptr, j > 0 ? &prev[x - 1] : nullptr,
                a[x], blocked != nullptr && blocked[x] != 0, i, j, k, swap_out);
}

template <class T>
__global__ void mesh_init_kernel(MeshCell<T>* s0, MeshCell<T>* s1, size_t cells) {
  const size_t x = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= cells) return;
  s0[x] = s1[x] = mesh_initial<T>();
}

}  // namespace

template <class T, class In>
MeshRect<T> cuda_mesh_search(bool prefix, const CudaSource<In>& in, CudaStageTimes* times) {
  cuda::cuda_require_device(prefix ? "maxsub: method alg38" : "maxsub: method alg39");
  const int m = in.transpose_src ? in.src_width : in.src_height;
  const int n = in.transpose_src ? in.src_height : in.src_width;
  if (m > 65535) throw Error("maxsub: mesh methods: images wider and taller than 65535 pixels");
  const size_t cells = size_t(m) * n;
  cuda::EventTimer timer(4);  // marks: start, uploaded, prepared, searched
  CudaStageTimes t;

  timer.mark(0);
  DeviceBuffer<In> d_src(cells);
  DeviceBuffer<uint8_t> d_bsrc(in.blocked ? cells : 0);
  d_src.upload(in.src, cells);
  if (in.blocked) d_bsrc.upload(in.blocked, cells);
  timer.mark(1);

  DeviceBuffer<T> d_a(cells);
  DeviceBuffer<uint8_t> d_blk(in.blocked ? cells : 0);
  DeviceBuffer<MeshCell<T>> d_s0(cells), d_s1(cells);
  const unsigned cell_blocks = unsigned((cells + kThreads - 1) / kThreads);
  to_grid_kernel<T, In><<<cell_blocks, kThreads>>>(
      d_src.data(), d_bsrc.data(), in.src_width, in.transpose_src, m, n, d_a.data(), d_blk.data());
  mesh_init_kernel<T><<<cell_blocks, kThreads>>>(d_s0.data(), d_s1.data(), cells);
  cuda::cuda_check_launch("to_grid_kernel / mesh_init_kernel");
  timer.mark(2);

  MeshCell<T>* prev = d_s0.data();
  MeshCell<T>* next = d_s1.data();
  for (int k = 0; k < m + n - 1; ++k) {
    const int active = k + 1 < n ? k + 1 : n;
    const dim3 grid((active + kThreads - 1) / kThreads, m);
    mesh_step_kernel<T>
        <<<grid, kThreads>>>(prefix, prev, next, d_a.data(), d_blk.data(), m, n, k, in.swap_out);
    std::swap(prev, next);
  }
  cuda::cuda_check_launch("mesh_step_kernel");
  MeshCell<T> last;
  CELERIS_CUDA_CHECK(cudaMemcpy(&last, prev + (cells - 1), sizeof last, cudaMemcpyDeviceToHost));
  timer.mark(3);
  t.upload_ms = timer.ms(0, 1);
  t.prep_ms = timer.ms(1, 2);
  t.search_ms = timer.ms(2, 3);
  if (times) *times = t;
  return last.sol;
}

template MeshRect<double> cuda_mesh_search<double, double>(bool, const CudaSource<double>&,
                                                           CudaStageTimes*);
template MeshRect<double> cuda_mesh_search<double, float>(bool, const CudaSource<float>&,
                                                          CudaStageTimes*);
template MeshRect<float> cuda_mesh_search<float, double>(bool, const CudaSource<double>&,
                                                         CudaStageTimes*);
template MeshRect<float> cuda_mesh_search<float, float>(bool, const CudaSource<float>&,
                                                        CudaStageTimes*);

}  // namespace celeris::maxsub::detail
