// gpu/background_finish.hpp: background.cpp's fill_bad_meshes, median_filter_meshes (the
// backgrounds' half) and spline_columns, a thread per mesh or mesh column, through the same
// CELERIS_HD steps (stages/background_grid.hpp, median_small.hpp, background_spline.hpp). Compiled
// without FMA contraction (src/CMakeLists.txt), as the host's arithmetic is.
#include <string>

#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/background_finish.hpp"
#include "extract/stages/background_grid.hpp"
#include "extract/stages/background_spline.hpp"
#include "extract/stages/median_small.hpp"

namespace celeris::extract::gpu {

namespace {

constexpr int kMaxWindow = kSmallMedian;  // the windows median_small takes

// fill_bad_meshes for the backgrounds.
__global__ void fill_kernel(const float* raw, int nx, int ny, float* filled) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nx * ny) return;
  if (raw[i] > kBadMesh) {
    filled[i] = raw[i];
    return;
  }
  const NearestGood g = nearest_good(raw, nullptr, nx, ny, i % nx, i / nx);
  filled[i] = g.back / static_cast<float>(g.count);
}

// median_filter_meshes for the backgrounds: a mesh takes its window's median where it departs
// from it by BACK_FILTTHRESH or more. (Without a filter the window is the mesh alone: the mesh
// keeps its value, as the host's early return leaves it.)
__global__ void median_kernel(const float* filled, BackGrid g, float* back) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.nx * g.ny) return;
  const int px = i % g.nx, py = i / g.nx;
  const int hx = edge_half_window(filter_half_window(g.filter_w, g.nx), px, g.nx);
  const int hy = edge_half_window(filter_half_window(g.filter_h, g.ny), py, g.ny);
  float v[kMaxWindow];
  int n = 0;
  for (int y = py - hy; y <= py + hy; ++y)
    for (int x = px - hx; x <= px + hx; ++x) v[n++] = filled[y * g.nx + x];
  const float med = median_small(v, n);
  back[i] = fabsf(med - filled[i]) >= g.filter_thresh ? med : filled[i];
}

// spline_columns: each column's second derivatives (spline::second_derivatives, the same steps
// the host takes a grid row at a time; zeros for a grid of one row).
__global__ void spline_kernel(const float* back, int nx, int ny, float* dback, float* u) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= nx) return;
  // u is second_derivatives' scratch of ny floats, unstrided: each column its own.
  spline::second_derivatives(back + x, ny, nx, dback + x, u + static_cast<size_t>(x) * ny);
}

}  // namespace

bool back_grid_on_device(const BackGrid& g) {
  const int npx = filter_half_window(g.filter_w, g.nx), npy = filter_half_window(g.filter_h, g.ny);
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
  median_kernel<<<blocks, block, 0, stream>>>(filled, g, back);
  cuda::cuda_check_launch("median_kernel");
  spline_kernel<<<(g.nx + block - 1) / block, block, 0, stream>>>(back, g.nx, g.ny, dback, u);
  cuda::cuda_check_launch("spline_kernel");
}

}  // namespace celeris::extract::gpu
