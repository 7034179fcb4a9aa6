// The bicubic-spline surface of the background mesh grid (SExtractor back.c subbackline), the
// arithmetic shared by the CPU (background.cpp) and the GPU (gpu/front_end_cuda.cu): each map
// row is a spline along y through each column of nodes, then a spline along x through the row
// of nodes. All in float, operation for operation as SExtractor, so maps agree to the last bit
// (the CUDA side is compiled without FMA contraction). Plain C++17 for nvcc.
#pragma once

#include "celeris/host_device.hpp"

namespace celeris::extract::spline {

// Second derivatives (divided by 6) of the natural cubic spline with unit node spacing through
// m[0], m[stride], ..., m[(n - 1) stride], into d (same stride), with SExtractor's
// back-substitution (each step reuses the already divided value of the next node). `u`: n
// floats of scratch.
CELERIS_HD inline void second_derivatives(const float* m, int n, int stride, float* d, float* u) {
  if (n < 2) {
    for (int i = 0; i < n; ++i) d[i * stride] = 0.0f;
    return;
  }
  d[0] = u[0] = 0.0f;
  for (int y = 1; y < n - 1; ++y) {
    float t = -1 / (d[(y - 1) * stride] + 4);
    d[y * stride] = t;
    t *= u[y - 1] - 6 * (m[(y + 1) * stride] + m[(y - 1) * stride] - 2 * m[y * stride]);
    u[y] = t;
  }
  d[(n - 1) * stride] = 0.0f;
  for (int y = n - 2; y >= 1; --y)
    d[y * stride] = static_cast<float>((d[y * stride] * d[(y + 1) * stride] + u[y]) / 6.0);
}

// The row of nx nodes at image row y, and their x-derivatives: node = the y-spline of each
// column of the grid (map, its y-derivatives d2map), dnode = second_derivatives(node). A grid
// of one row uses its (all-zero) y-derivatives as x-derivatives, as SExtractor, so the
// interpolation along x is then piecewise linear. `u`: nx floats of scratch.
CELERIS_HD inline void row_nodes(const float* map, const float* d2map, int nx, int ny, int mesh_h,
                                 int y, float* node, float* dnode, float* u) {
  if (ny > 1) {
    float dy = static_cast<float>(y) / mesh_h - 0.5f;
    int yl = static_cast<int>(dy);
    dy -= yl;
    if (yl < 0) {
      yl = 0;
      dy -= 1.0f;
    } else if (yl >= ny - 1) {
      yl = ny < 2 ? 0 : ny - 2;
      dy += 1.0f;
    }
    const float cdy = 1 - dy;
    const float dy3 = dy * dy * dy - dy, cdy3 = cdy * cdy * cdy - cdy;
    for (int x = 0; x < nx; ++x) {
      const int lo = yl * nx + x, hi = lo + nx;
      node[x] = cdy * map[lo] + dy * map[hi] + cdy3 * d2map[lo] + dy3 * d2map[hi];
    }
    second_derivatives(node, nx, 1, dnode, u);
  } else {
    for (int x = 0; x < nx; ++x) {
      node[x] = map[x];
      dnode[x] = d2map[x];
    }
  }
}

// One pixel of the row: between nodes lo and lo + 1 with SExtractor's per-column weights
// (XSplineWeights: 1 - dx, (1 - dx)^2 - 1, dx, dx^2 - 1).
CELERIS_HD inline float at(const float* node, const float* dnode, int lo, float cdx, float cdx2m1,
                           float dx, float dx2m1) {
  return cdx * (node[lo] + cdx2m1 * dnode[lo]) + dx * (node[lo + 1] + dx2m1 * dnode[lo + 1]);
}

}  // namespace celeris::extract::spline
