// Built when the CUDA backend is off: spp_cuda reports that it is unavailable.
#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "spp_backends.hpp"

namespace celeris::hyperspectral {

namespace {
[[noreturn]] void no_cuda() {
  throw Error("spp: this build has no CUDA backend (configure with -DCELERIS_CUDA=ON)");
}
}  // namespace

bool spp_cuda_compiled() {
  return false;
}

std::vector<std::string> spp_cuda_kernels() {
  return {"block", "tile", "strip"};
}

SppResult spp_cuda(Cube&&, int, bool, const std::string&) {
  no_cuda();
}

SppResult spp_cuda(const Cube&, int, bool, const std::string&) {
  no_cuda();
}

SppDeviceTimes spp_cuda_device(float*, int, int, int, int, const std::string&, float*,
                               std::vector<double>*) {
  no_cuda();
}

}  // namespace celeris::hyperspectral
