// Builds without CUDA: no device levels.
#include "celeris/error.hpp"
#include "extract/gpu/deblend_levels_gpu.hpp"

namespace celeris::extract::gpu {

void device_exponential_levels(const std::vector<float>&, const std::vector<float>&,
                               const std::vector<int>&, int, std::vector<float>&,
                               std::vector<int>&) {
  throw Error("the deblending's levels on the GPU need a CUDA build");
}

}  // namespace celeris::extract::gpu
