// The device choice shared by every module: each module's options carry a `Device` (cpu, cuda
// or auto), and, where a module has several algorithms, the algorithm is chosen separately.
// `Auto` runs on CUDA when celeris was built with it and a device exists, else on the CPU.
#pragma once

#include <string>

namespace celeris {

enum class Device { Cpu, Cuda, Auto };
// The former name of the choice, kept so existing callers compile.
using Backend = Device;

// "cpu" | "cuda" (or "gpu") | "auto"; anything else is a celeris::Error.
Device parse_device(const std::string& name);
const char* device_name(Device d);  // "cpu" | "cuda" | "auto"
bool cuda_compiled();               // built with the CUDA backend
int cuda_device_count();            // 0 when none or not compiled
// Makes CUDA device `ordinal` the calling thread's current device (one GPU per MPI rank: the
// rank's place on its host modulo cuda_device_count()); throws naming the device when it cannot.
void select_cuda_device(int ordinal);
// Auto -> Cuda or Cpu; Cuda without CUDA compiled in, or without a device, throws.
Device resolve_device(Device requested);
std::string describe_devices();  // one line per device, for --version

// Former names.
inline Device parse_backend(const std::string& name) {
  return parse_device(name);
}
inline Device resolve_backend(Device requested) {
  return resolve_device(requested);
}

}  // namespace celeris
