// Built when the CUDA backend is off: spp_cuda reports that it is unavailable.
#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"

namespace celeris::hyperspectral {

bool spp_cuda_compiled() {
  return false;
}

SppResult spp_cuda(Cube&&, int, bool, const std::string&) {
  throw Error("spp: this build has no CUDA backend (configure with -DCELERIS_CUDA=ON)");
}

SppResult spp_cuda(const Cube&, int, bool, const std::string&) {
  throw Error("spp: this build has no CUDA backend (configure with -DCELERIS_CUDA=ON)");
}

}  // namespace celeris::hyperspectral
