// The background mesh grid's finish, the steps the host (background.cpp finish_background) and
// the GPU (gpu/background_finish_kernels.cu) both take: the bad meshes' mark, their filling from
// the nearest good meshes and the median filter's window. One definition, so that both give the
// same grid bit for bit (both sides compiled without FMA contraction). Plain C++17 (CELERIS_HD).
#pragma once

#include "celeris/host_device.hpp"

namespace celeris::extract {

// A mesh with too few valid pixels (-FLT_MAX), as the mesh statistics leave it.
constexpr float kBadMesh = -3.40282347e+38f;

// The median filter's half window along an axis of n meshes for BACK_FILTERSIZE `filter` (none
// along an axis of one mesh).
CELERIS_HD inline int filter_half_window(int filter, int n) {
  return (n > 1 ? filter : 1) / 2;
}

// The half window at mesh p of n along one axis: the window shrinks symmetrically at the grid's
// edges (edge meshes are filtered along the other axis only, corners not at all).
CELERIS_HD inline int edge_half_window(int half, int p, int n) {
  const int to_edge = p < n - 1 - p ? p : n - 1 - p;
  return half < to_edge ? half : to_edge;
}

// Bad mesh (px, py)'s fill (SExtractor filterback): the float sums, in raster order, of the good
// meshes at the least distance, of `back` and (where given) of `sigma`, and their count.
struct NearestGood {
  float back = 0, sigma = 0;
  int count = 0;
};
CELERIS_HD inline NearestGood nearest_good(const float* back, const float* sigma, int nx, int ny,
                                           int px, int py) {
  NearestGood g;
  float d2min = 3.40282347e+38f;  // FLT_MAX
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const int j = y * nx + x;
      if (back[j] <= kBadMesh) continue;
      const float d2 = static_cast<float>((x - px) * (x - px) + (y - py) * (y - py));
      if (d2 < d2min) {
        d2min = d2;
        g.back = back[j];
        if (sigma) g.sigma = sigma[j];
        g.count = 1;
      } else if (d2 == d2min) {
        g.back += back[j];
        if (sigma) g.sigma += sigma[j];
        ++g.count;
      }
    }
  return g;
}

}  // namespace celeris::extract
