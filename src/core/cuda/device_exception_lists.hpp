// Internal CUDA layer: glibc's exception lists (core/glibc_float_math_tables.hpp) on the device,
// for kernels that reproduce glibc's log and expf bit for bit (core/glibc_float_math.hpp).
// Uploaded once per process, on the first call, and kept (never freed: kernels may read them
// until exit). A function's lists are given only where they describe this process's glibc
// (log_exceptions_mismatch / expf_exceptions_mismatch empty); otherwise that function's flag is
// false, its lists empty, and a stage keeps the function on the host. Thread-safe; the caller
// has a CUDA device.
#pragma once

#include "core/glibc_float_math.hpp"

namespace celeris::cuda {

struct DeviceExceptionLists {
  glibcmath::ExceptionLists lists;  // device addresses
  bool log = false;                 // lists.log describes this process's glibc log
  bool expf = false;                // lists.expf_below and expf_above its expf
};

const DeviceExceptionLists& device_exception_lists();

}  // namespace celeris::cuda
