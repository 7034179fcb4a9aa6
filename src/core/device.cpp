#include "celeris/device.hpp"

#include "celeris/error.hpp"

namespace celeris {

#ifdef CELERIS_HAVE_CUDA
int cuda_device_count_impl();
std::string describe_devices_impl();
#endif

Backend parse_backend(const std::string& name) {
  if (name == "cpu") return Backend::Cpu;
  if (name == "gpu" || name == "cuda") return Backend::Cuda;
  if (name == "auto") return Backend::Auto;
  throw Error("unknown device '" + name + "': expected cpu, gpu or auto");
}

bool cuda_compiled() {
#ifdef CELERIS_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_device_count() {
#ifdef CELERIS_HAVE_CUDA
  return cuda_device_count_impl();
#else
  return 0;
#endif
}

Backend resolve_backend(Backend requested) {
  if (requested == Backend::Cpu) return Backend::Cpu;
  const bool have = cuda_device_count() > 0;
  if (requested == Backend::Auto) return have ? Backend::Cuda : Backend::Cpu;
  if (!cuda_compiled()) throw Error("device gpu requested but celeris was built without CUDA");
  if (!have) throw Error("device gpu requested but no CUDA device is available");
  return Backend::Cuda;
}

std::string describe_devices() {
#ifdef CELERIS_HAVE_CUDA
  return describe_devices_impl();
#else
  return "CUDA backend not compiled";
#endif
}

}  // namespace celeris
