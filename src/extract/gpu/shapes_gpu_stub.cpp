// Builds without CUDA: the GPU's shapes are not there, and asking for them is an error.
#include "celeris/error.hpp"
#include "extract/gpu/shapes_gpu.hpp"

namespace celeris::extract::gpu {

bool shapes_supported(const IsoParams&, bool) {
  return false;
}

bool finish_on_gpu() {
  return false;
}

void shapes_and_isophotal(const ObjectList&, const float*, const float*, int64_t, const IsoParams&,
                          int, std::vector<Shape>&, std::vector<Iso>&,
                          std::vector<std::pair<std::string, double>>*, const DeviceWeights&) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

void shapes_and_isophotal(const ObjectList&, size_t, size_t, const float*, const float*, int64_t,
                          const IsoParams&, int, std::vector<Shape>&, std::vector<Iso>&,
                          std::vector<std::pair<std::string, double>>*, BlankingDraft*,
                          const DeviceWeights&, ZonesAfterShapes*) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

}  // namespace celeris::extract::gpu
