// gpu/background_finish.hpp: background.cpp's fill_bad_meshes, median_filter_meshes (the
// backgrounds' half) and spline_columns, a thread per mesh or mesh column. Compiled without FMA
// contraction (src/CMakeLists.txt), as the host's arithmetic is.
#include <string>

#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/background_finish.hpp"
#include "extract/stages/background_spline.hpp"
#include "extract/stages/median_small.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kMaxWindow = kSmallMedian;      // the windows median_small takes
constexpr float kBadMesh = -3.40282347e+38f;  // background.hpp kBadMesh (-FLT_MAX)

// The half window along each axis (median_filter_meshes' npx, npy).
__host__ __device__ inline int half_window(int filter, int n) {
  return (n > 1 ? filter : 1) / 2;
}

// fill_bad_meshes: a bad mesh takes the float mean of the good meshes at the least distance,
// summed in raster order.
__global__ void fill_kernel(const float* raw, int nx, int ny, float* filled) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nx * ny) return;
  if (raw[i] > kBadMesh) {
    filled[i] = raw[i];
    return;
  }
  const int px = i % nx, py = i / nx;
  float d2min = 3.40282347e+38f, vb = 0;
  int count = 0;
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const float v = raw[y * nx + x];
      if (v <= kBadMesh) continue;
      const float d2 = static_cast<float>((x - px) * (x - px) + (y - py) * (y - py));
      if (d2 < d2min) {
        d2min = d2;
        vb = v;
        count = 1;
      } else if (d2 == d2min) {
        vb += v;
        ++count;
      }
    }
  filled[i] = vb / static_cast<float>(count);
}

// median_filter_meshes for the backgrounds: the window shrinks symmetrically at the edges; a mesh
// takes its window's median where it departs from it by BACK_FILTTHRESH or more.
__global__ void median_kernel(const float* filled, BackGrid g, float* back) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.nx * g.ny) return;
  const int px = i % g.nx, py = i / g.nx;
  const int npx = half_window(g.filter_w, g.nx), npy = half_window(g.filter_h, g.ny);
  const int hx = min(npx, min(px, g.nx - 1 - px)), hy = min(npy, min(py, g.ny - 1 - py));
  float v[kMaxWindow];
  int n = 0;
  for (int y = py - hy; y <= py + hy; ++y)
    for (int x = px - hx; x <= px + hx; ++x) v[n++] = filled[y * g.nx + x];
  const float med = median_small(v, n);
  back[i] = fabsf(med - filled[i]) >= g.filter_thresh ? med : filled[i];
}

__global__ void copy_kernel(const float* from, int n, float* to) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) to[i] = from[i];
}

// spline_columns: each column's second derivatives (spline::second_derivatives, the same steps
// the host takes a grid row at a time).
__global__ void spline_kernel(const float* back, int nx, int ny, float* dback, float* u) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= nx) return;
  if (ny < 2) {
    for (int y = 0; y < ny; ++y) dback[y * nx + x] = 0.0f;
    return;
  }
  // u is second_derivatives' scratch of ny floats, unstrided: each column its own.
  spline::second_derivatives(back + x, ny, nx, dback + x, u + static_cast<size_t>(x) * ny);
}

}  // namespace

bool back_grid_on_device(const BackGrid& g) {
  const int npx = half_window(g.filter_w, g.nx), npy = half_window(g.filter_h, g.ny);
  return (2 * npx + 1) * (2 * npy + 1) <= kMaxWindow;
}

void finish_back_grid(const float* raw, const BackGrid& g, float* filled, float* back, float* dback,
                      float* u, cudaStream_t stream) {
  if (!back_grid_on_device(g))
    throw Error("internal: finish_back_grid with a median filter's window of more than " +
                std::to_string(kMaxWindow) + " meshes");
  const int n = g.nx * g.ny, block = 128, blocks = (n + block - 1) / block;
  fill_kernel<<<blocks, block, 0, stream>>>(raw, g.nx, g.ny, filled);
  cuda::cuda_check_launch("fill_kernel");
  if (half_window(g.filter_w, g.nx) == 0 && half_window(g.filter_h, g.ny) == 0) {
    copy_kernel<<<blocks, block, 0, stream>>>(filled, n, back);
    cuda::cuda_check_launch("copy_kernel");
  } else {
    median_kernel<<<blocks, block, 0, stream>>>(filled, g, back);
    cuda::cuda_check_launch("median_kernel");
  }
  spline_kernel<<<(g.nx + block - 1) / block, block, 0, stream>>>(back, g.nx, g.ny, dback, u);
  cuda::cuda_check_launch("spline_kernel");
}

}  // namespace celeris::extract::gpu
