// SExtractor's BACKGROUND column: the mesh grid's bilinear interpolation at an object's
// barycentre. Written once for the host (isophotal.cpp iso_background) and the GPU shapes
// (gpu/shape_kernels.cu, the FWHM fit's bounds on the device); plain C++17 (CELERIS_HD), the
// same arithmetic on both (the kernels are compiled without contraction).
#pragma once

#include <cstddef>

#include "celeris/host_device.hpp"

namespace celeris::extract {

// A background's mesh grid: nx x ny values (row-major, host or device memory), meshes
// mesh_w x mesh_h pixels (BackgroundMap::grid).
struct MeshGrid {
  const float* back = nullptr;
  int nx = 0, ny = 0, mesh_w = 0, mesh_h = 0;
};

// The grid's bilinear interpolation at pixel (x, y).
CELERIS_HD inline float back_bilinear(const MeshGrid& g, int x, int y) {
  const float* back = g.back;
  const int nx = g.nx, ny = g.ny, mesh_w = g.mesh_w, mesh_h = g.mesh_h;
  // Beyond half a mesh left of or below the image (a centroid made non-finite by overflowing
  // pixel sums lands at INT_MIN) the index below would fall before the mesh; nearer positions
  // extrapolate from the first mesh as before.
  const int xfloor = -((mesh_w - 1) / 2), yfloor = -((mesh_h - 1) / 2);
  if (x < xfloor) x = xfloor;
  if (y < yfloor) y = yfloor;
  double dx = static_cast<double>(x) / mesh_w - 0.5, dy = static_cast<double>(y) / mesh_h - 0.5;
  int xl = static_cast<int>(dx), yl = static_cast<int>(dy);
  dx -= xl;
  dy -= yl;
  if (xl >= nx - 1) {
    xl = nx < 2 ? 0 : nx - 2;
    dx += 1.0;
  }
  if (yl >= ny - 1) {
    yl = ny < 2 ? 0 : ny - 2;
    dy += 1.0;
  }
  const float* row = back + static_cast<size_t>(yl) * nx;
  const float b0 = row[xl];
  const float b1 = nx < 2 ? b0 : row[xl + 1];
  const float* next = ny < 2 ? row : row + nx;
  const float b2 = nx < 2 ? next[xl] : next[xl + 1];
  const float b3 = nx < 2 ? b2 : next[xl];
  return static_cast<float>((1 - dy) * ((1 - dx) * b0 + dx * b1) + dy * (dx * b2 + (1 - dx) * b3));
}

// BACKGROUND of an object whose barycentre is (mx, my): the grid at its nearest pixel, plus the
// local background dbkg.
CELERIS_HD inline float back_at_barycentre(const MeshGrid& g, double mx, double my, float dbkg) {
  return back_bilinear(g, static_cast<int>(mx + 0.5), static_cast<int>(my + 0.5)) + dbkg;
}

}  // namespace celeris::extract
