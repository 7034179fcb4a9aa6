// Builds without CUDA: the GPU measurement is not there, and asking for it is an error.
#include "celeris/error.hpp"
#include "extract/gpu/measure_gpu.hpp"

namespace celeris::extract::gpu {

PhotometryColumns measure_photometry(const PhotometryField&, const std::vector<ApertureShape>&,
                                     const PhotometryRequest&) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

struct PhotometryBatches::State {};

PhotometryBatches::PhotometryBatches(const PhotometryField&, const BlankingView&,
                                     const PhotometryRequest&, size_t, const float*) {
  throw Error("--device cuda: this celeris was built without CUDA");
}
PhotometryBatches::~PhotometryBatches() = default;
cuda::StreamHandle PhotometryBatches::stream() const {
  return nullptr;
}
void PhotometryBatches::measure(const ApertureShape*, size_t) {}
PhotometryColumns PhotometryBatches::finish(const std::function<void()>&) {
  return {};
}

}  // namespace celeris::extract::gpu
