// Internal to src/maxsub: the one tie order of maxsub.hpp (larger sum first, then smaller top,
// left, bottom, right), for any rectangle type with those fields. The public `better`, the CPU
// searches and the CUDA kernels all compare through it, so every method and backend breaks ties
// identically. Plain C++17: the .cu files include this.
#pragma once

#include "celeris/host_device.hpp"

namespace celeris::maxsub::detail {

template <class R>
CELERIS_HD inline bool tie_order_better(const R& a, const R& b) {
  if (a.sum != b.sum) return a.sum > b.sum;
  if (a.top != b.top) return a.top < b.top;
  if (a.left != b.left) return a.left < b.left;
  if (a.bottom != b.bottom) return a.bottom < b.bottom;
  return a.right < b.right;
}

}  // namespace celeris::maxsub::detail
