// Internal CUDA layer: turning CUDA runtime errors into celeris::Error.
//
// Every CUDA runtime call in celeris goes through CELERIS_CUDA_CHECK(call), or cuda_check(status,
// what) where the call is not a single expression, so a failure is one line naming the call and
// the CUDA error, e.g.
//   "CUDA error in cudaMalloc(1073741824 bytes): out of memory (cudaErrorMemoryAllocation)".
// Kernel launches report through cuda_check_launch("kernel name") right after the launch.
// Plain C++ (needs only cuda_runtime.h), so host .cpp files and .cu files both include it.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "celeris/error.hpp"

namespace celeris::cuda {

// The one-line message for a failed call; separate so tests can check it without a device.
inline std::string cuda_error_message(cudaError_t status, const std::string& what) {
  return "CUDA error in " + what + ": " + cudaGetErrorString(status) + " (" +
         cudaGetErrorName(status) + ")";
}

// Throws celeris::Error naming `what` (the call) and the CUDA error when status is not success.
// A failed runtime call also leaves its error as the thread's "last error", which the next
// cuda_check_launch would read and blame on its kernel (a device run of stop 38: an event
// without timing given to cudaEventElapsedTime, caught by its caller, failed the next test's
// launch with "invalid resource handle"); so the failure is consumed here. A sticky error (a
// fault in a kernel) cannot be consumed: every later call reports it anyway.
inline void cuda_check(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw Error(cuda_error_message(status, what));
  }
}

// After a kernel launch: a bad launch configuration (or an earlier asynchronous fault) surfaces
// here, named after the kernel.
inline void cuda_check_launch(const char* kernel) {
  cuda_check(cudaGetLastError(), std::string("launch of ") + kernel);
}

// Throws celeris::Error ("<who>: no CUDA device") unless at least one device is usable. Clears
// the runtime's sticky "no device" error so later queries start clean.
inline void cuda_require_device(const std::string& who) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw Error(who + ": no CUDA device");
  }
}

}  // namespace celeris::cuda

// CELERIS_CUDA_CHECK(cudaMemset(p, 0, n)) -> throws "CUDA error in cudaMemset(p, 0, n): ...".
#define CELERIS_CUDA_CHECK(call) ::celeris::cuda::cuda_check((call), #call)
