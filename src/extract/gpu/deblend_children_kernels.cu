#include <cub/block/block_scan.cuh>

#include "core/cuda/cuda_check.hpp"
#include "extract/gpu/deblend_children_kernels.hpp"
#include "extract/gpu/glibc_listed.cuh"

namespace celeris::extract::gpu {

namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) choose_kernel(ChildrenArgs a) {
  using Scan = cub::BlockScan<int, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  const ChildrenDetection d = a.detections[blockIdx.x];
  const DeblendChild* ch = a.children + d.child_begin;
  bool outside = false;
  const ListedExpf exp{&a.lists, &outside};
  int64_t draw = 0;  // the draws of the pixels before this round's
  for (int64_t first = 0; first < d.pixels; first += kThreads) {
    const int64_t i = first + threadIdx.x;
    const int64_t p = d.pixel_begin + i;
    const bool live = i < d.pixels && !a.in_core[p];
    int nearest = 0, x = 0, y = 0;
    float total = 0.0f;
    if (live) {
      x = a.x[p];
      y = a.y[p];
      total = profile_total(ch, d.children, x, y, exp, nearest);
    }
    const int takes = live && takes_draw(total);
    int before = 0, taken = 0;
    Scan(scan).ExclusiveSum(takes, before, taken);
    if (live) {
      int c = nearest;
      if (takes) {
        const int64_t k = draw + before;
        if (k < d.draws)
          c = drawn_child(ch, d.children, x, y,
                          draw_threshold(total, a.random[d.first_draw + k], a.rand_max), nearest,
                          exp);
        else
          outside = true;
      }
      a.chosen[p] = c;
    } else if (i < d.pixels) {
      a.chosen[p] = -1;
    }
    draw += taken;
    __syncthreads();  // the scan's storage is taken again
  }
  if (outside) a.unsure[blockIdx.x] = 1;
  if (threadIdx.x == 0) a.draws[blockIdx.x] = draw;
}

}  // namespace

void choose_children(const ChildrenArgs& a, cudaStream_t s) {
  if (a.count == 0) return;
  choose_kernel<<<static_cast<unsigned>(a.count), kThreads, 0, s>>>(a);
  CELERIS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace celeris::extract::gpu
