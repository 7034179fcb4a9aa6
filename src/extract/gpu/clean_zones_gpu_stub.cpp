// Builds without CUDA: the GPU's clean zones are not there, and asking for them is an error.
#include "celeris/error.hpp"
#include "extract/gpu/clean_zones_gpu.hpp"

namespace celeris::extract::gpu {

bool clean_zones_gpu(const std::vector<Shape>&, int64_t, int64_t, int, CleanZones&,
                     std::vector<std::pair<std::string, double>>*) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

bool clean_zones_gpu(const std::vector<Shape>&, size_t, size_t, int64_t, int64_t, int, CleanZones&,
                     std::vector<std::pair<std::string, double>>*, const ZonePairsRequest*,
                     ZonePairCodes*, uint64_t) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

std::shared_ptr<ZonesAfterShapes> zones_after_shapes(int64_t, int64_t, double, bool) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

bool collect_zones(ZonesAfterShapes&, size_t, CleanZones&, ZonePairCodes*,
                   std::vector<std::pair<std::string, double>>*) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

}  // namespace celeris::extract::gpu
