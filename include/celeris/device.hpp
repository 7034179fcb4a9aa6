// Backend choice shared by every algorithm: CPU or CUDA, or `auto` (CUDA when a device exists).
#pragma once

#include <string>

namespace celeris {

enum class Backend { Cpu, Cuda, Auto };

Backend parse_backend(const std::string& name);  // "cpu" | "gpu" | "cuda" | "auto"
bool cuda_compiled();                            // built with the CUDA backend
int cuda_device_count();                         // 0 when none or not compiled
Backend resolve_backend(Backend requested);      // Auto -> Cuda or Cpu; Cuda without a GPU throws
std::string describe_devices();                  // one line per device, for --version

}  // namespace celeris
