// Builds without CUDA: no choice is made on a GPU; the host makes them all.
#include "extract/gpu/deblend_children_gpu.hpp"

namespace celeris::extract::gpu {

void choose_deblend_children(const DeblendChildrenJob& job, std::vector<int32_t>&,
                             std::vector<uint8_t>& done,
                             std::vector<std::pair<std::string, double>>*) {
  done.assign(job.plans.size(), 0);
}

}  // namespace celeris::extract::gpu
