#include "extract/gpu/background_rows.hpp"

namespace celeris::extract::gpu {

XWeights upload_background_rows(const BackgroundMap& map, const MeshGeometry& g, BackgroundRows& b,
                                cudaStream_t s) {
  const size_t meshes = map.back.size();
  b.back.grow(meshes);
  b.back.upload_async(map.back.data(), meshes, s);
  b.dback.grow(meshes);
  b.dback.upload_async(map.dback.data(), meshes, s);
  const size_t nodes = static_cast<size_t>(g.height) * map.nx;
  b.node.grow(nodes);
  b.dnode.grow(nodes);
  b.u.grow(nodes);
  XWeights xw{};
  if (map.nx >= 2 && map.mesh_w > 1) {
    const size_t wz = static_cast<size_t>(g.width);
    int* lo = b.lo.grow(wz);
    float* x = b.xw.grow(4 * wz);
    b.lo.upload_async(map.xweights.lo.data(), wz, s);
    b.xw.upload_async(map.xweights.cdx.data(), wz, s, 0);
    b.xw.upload_async(map.xweights.cdx2m1.data(), wz, s, wz);
    b.xw.upload_async(map.xweights.dx.data(), wz, s, 2 * wz);
    b.xw.upload_async(map.xweights.dx2m1.data(), wz, s, 3 * wz);
    xw = {lo, x, x + wz, x + 2 * wz, x + 3 * wz};
  }
  if (!map.manual)
    row_nodes(b.back.data(), b.dback.data(), g, b.node.data(), b.dnode.data(), b.u.data(), s);
  return xw;
}

}  // namespace celeris::extract::gpu
