#include "celeris/device.hpp"

#include "celeris/error.hpp"

#include <string>

namespace celeris {

#ifdef CELERIS_HAVE_CUDA
int cuda_device_count_impl();
void select_cuda_device_impl(int ordinal);
std::string describe_devices_impl();
#endif

Device parse_device(const std::string& name) {
  if (name == "cpu") return Device::Cpu;
  if (name == "gpu" || name == "cuda") return Device::Cuda;
  if (name == "auto") return Device::Auto;
  throw Error("unknown device '" + name + "': expected cpu, cuda (or gpu) or auto");
}

const char* device_name(Device d) {
  switch (d) {
    case Device::Cpu:
      return "cpu";
    case Device::Cuda:
      return "cuda";
    case Device::Auto:
      return "auto";
  }
  return "?";
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

void select_cuda_device(int ordinal) {
#ifdef CELERIS_HAVE_CUDA
  select_cuda_device_impl(ordinal);
#else
  throw Error("cannot select GPU " + std::to_string(ordinal) + ": celeris was built without CUDA");
#endif
}

Device resolve_device(Device requested) {
  if (requested == Device::Cpu) return Device::Cpu;
  const bool have = cuda_device_count() > 0;
  if (requested == Device::Auto) return have ? Device::Cuda : Device::Cpu;
  if (!cuda_compiled()) throw Error("device cuda requested but celeris was built without CUDA");
  if (!have) throw Error("device cuda requested but no CUDA device is available");
  return Device::Cuda;
}

std::string describe_devices() {
#ifdef CELERIS_HAVE_CUDA
  return describe_devices_impl();
#else
  return "CUDA backend not compiled";
#endif
}

}  // namespace celeris
