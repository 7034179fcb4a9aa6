// Deblending's prune of a threshold tree (refine.c's gatherup test, from the top level down): a
// node with two or more significant sons splits into those of them that do not split
// themselves; the detection splits when its root does. Written once for the host's plans
// (deblend.cpp) and the GPU's (gpu/deblend_core_kernels.cu), on raw arrays, CELERIS_HD.
#pragma once

#include <cstdint>

#include "celeris/host_device.hpp"

namespace celeris::extract {

// A branch's flux above its level against the contrast's share of the detection (value0):
// fdflux - thresh * npix in float, neither side fused (the GPU's multiply and subtract are
// rounded apart, as the host's, which is built without contraction).
CELERIS_HD inline bool deblend_significant(float fdflux, float thresh, int32_t npix,
                                           double value0) {
#ifdef __CUDA_ARCH__
  const float d = __fsub_rn(fdflux, __fmul_rn(thresh, static_cast<float>(npix)));
#else
  const float d = fdflux - thresh * static_cast<float>(npix);
#endif
  return d > value0;
}

// The cores of a tree whose nodes of level k are [level[k], level[k + 1]) (nthresh + 1 entries;
// Node has fdflux, thresh, npix, first_son, sons), in the order the host's plan takes them: the
// levels from nthresh - 2 down, each node's sons in order. `ok` holds a byte per node; the
// cores go to kept_level / kept_node (room for every node). Returns how many, 0 when the
// detection does not split.
template <class Node>
CELERIS_HD int prune_deblend_tree(const Node* nodes, const int32_t* level, int nthresh,
                                  double value0, uint8_t* ok, int32_t* kept_level,
                                  int32_t* kept_node) {
  const int32_t count = level[nthresh];
  for (int32_t j = 0; j < count; ++j) ok[j] = 1;
  int kept = 0;
  for (int k = nthresh - 2; k >= 0; --k)
    for (int32_t j = level[k]; j < level[k + 1]; ++j) {
      const Node& node = nodes[j];
      int m = 0;
      for (int32_t son = node.first_son; son < node.first_son + node.sons; ++son) {
        const Node& s = nodes[son];
        if (deblend_significant(s.fdflux, s.thresh, s.npix, value0)) ++m;
        ok[j] = ok[j] && ok[son];
      }
      if (m > 1) {
        for (int32_t son = node.first_son; son < node.first_son + node.sons; ++son) {
          const Node& s = nodes[son];
          if (ok[son] && deblend_significant(s.fdflux, s.thresh, s.npix, value0)) {
            kept_level[kept] = k + 1;
            kept_node[kept] = son;
            ++kept;
          }
        }
        ok[j] = 0;
      }
    }
  return ok[0] ? 0 : kept;
}

}  // namespace celeris::extract
