// Builds without CUDA: the GPU measurement is not there, and asking for it is an error.
#include "celeris/error.hpp"
#include "extract/gpu/measure_gpu.hpp"

namespace celeris::extract::gpu {

PhotometryColumns measure_photometry(const PhotometryField&, const std::vector<ApertureShape>&,
                                     const PhotometryRequest&) {
  throw Error("--device cuda: this celeris was built without CUDA");
}

}  // namespace celeris::extract::gpu
