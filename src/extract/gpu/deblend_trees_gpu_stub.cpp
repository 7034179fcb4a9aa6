// Builds without CUDA: no GPU tree builder (the deblending stage builds every tree itself).
#include "extract/gpu/deblend_trees_gpu.hpp"

namespace celeris::extract::gpu {

std::unique_ptr<DeblendTreeBuilder> make_tree_builder() {
  return nullptr;
}

std::unique_ptr<DeblendTreeBuilder> prepare_trees(const DeviceDetections&, const PreparedTrees&,
                                                  cuda::StreamHandle) {
  return nullptr;
}

}  // namespace celeris::extract::gpu
