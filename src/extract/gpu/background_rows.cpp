#include "extract/gpu/background_rows.hpp"

#include "extract/gpu/background_finish.hpp"

namespace celeris::extract::gpu {

namespace {

// The map's x weights on the device, made and uploaded only when b holds another geometry's:
// they depend on the image's width and the mesh columns alone, the same from frame to frame.
XWeights upload_x_weights(const BackgroundMap& map, const MeshGeometry& g, BackgroundRows& b,
                          cudaStream_t s) {
  if (map.nx < 2 || map.mesh_w < 2) return {};
  const size_t wz = static_cast<size_t>(g.width);
  const bool same = b.xw_key[0] == g.width && b.xw_key[1] == map.nx && b.xw_key[2] == map.mesh_w;
  if (!same) {
    // Kept in b: the copies read it after this returns.
    b.host_xw = x_spline_weights(map.nx, map.mesh_w, g.width);
    b.lo.grow(wz);
    b.xw.grow(4 * wz);
    b.lo.upload_async(b.host_xw.lo.data(), wz, s);
    b.xw.upload_async(b.host_xw.cdx.data(), wz, s, 0);
    b.xw.upload_async(b.host_xw.cdx2m1.data(), wz, s, wz);
    b.xw.upload_async(b.host_xw.dx.data(), wz, s, 2 * wz);
    b.xw.upload_async(b.host_xw.dx2m1.data(), wz, s, 3 * wz);
    b.xw_key[0] = g.width, b.xw_key[1] = map.nx, b.xw_key[2] = map.mesh_w;
  }
  const float* x = b.xw.data();
  return {b.lo.data(), x, x + wz, x + 2 * wz, x + 3 * wz};
}

// Room for each image row's nodes (and, from `u`, the splines' scratch).
void grow_rows(const MeshGeometry& g, BackgroundRows& b) {
  const size_t nodes = static_cast<size_t>(g.height) * g.nx;
  b.node.grow(nodes);
  b.dnode.grow(nodes);
  b.u.grow(nodes);
}

}  // namespace

XWeights upload_background_rows(const BackgroundMap& map, const MeshGeometry& g, BackgroundRows& b,
                                cudaStream_t s) {
  const size_t meshes = map.back.size();
  b.back.grow(meshes);
  b.back.upload_async(map.back.data(), meshes, s);
  b.dback.grow(meshes);
  b.dback.upload_async(map.dback.data(), meshes, s);
  grow_rows(g, b);
  const XWeights xw = upload_x_weights(map, g, b, s);
  if (!map.manual)
    row_nodes(b.back.data(), b.dback.data(), g, b.node.data(), b.dnode.data(), b.u.data(), s);
  return xw;
}

XWeights finish_background_rows(const BackgroundMap& map, const MeshGeometry& g,
                                const Config& config, BackgroundRows& b, cudaStream_t s) {
  const size_t meshes = static_cast<size_t>(map.nx) * map.ny;
  const BackGrid grid = background_grid(map, config);
  b.dback.grow(meshes);
  grow_rows(g, b);  // u: height x nx floats, at least the grid's
  finish_back_grid(b.back.data(), grid, b.filled.grow(meshes), b.back.data(), b.dback.data(),
                   b.u.data(), s);
  const XWeights xw = upload_x_weights(map, g, b, s);
  row_nodes(b.back.data(), b.dback.data(), g, b.node.data(), b.dnode.data(), b.u.data(), s);
  return xw;
}

BackGrid background_grid(const BackgroundMap& map, const Config& config) {
  return {map.nx, map.ny, config.back_filter_width, config.back_filter_height,
          config.back_filtthresh};
}

bool background_rows_on_device(const BackgroundMap& map, const Config& config) {
  return !config.back_manual && back_grid_on_device(background_grid(map, config));
}

}  // namespace celeris::extract::gpu
