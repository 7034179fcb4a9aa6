// The CUDA join (join_cuda.cu): phases 1-3 on one GPU, returning the same pairs as the CPU join.
#pragma once

#include <vector>

#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch::detail {

// All pairs (i, j) with chord2(left[i], right[j]) <= chord2_of_angle(radius_rad), sorted by
// (i, j); `self`: left == right and only j > i. `order`: index order; `neighbours`: pixel + 8
// neighbours search (else inclusive disc query at `order`).
std::vector<Pair> join_cuda(const std::vector<healpix::Vec3>& left,
                            const std::vector<healpix::Vec3>& right, int order, bool neighbours,
                            double radius_rad, bool self);

}  // namespace celeris::xmatch::detail
