#include "core/cuda/device_exception_lists.hpp"

#include <algorithm>
#include <cstdint>

#include "core/cuda/device_buffer.hpp"
#include "core/glibc_float_math_tables.hpp"

namespace celeris::cuda {

namespace {

struct Uploaded {
  DeviceBuffer<uint32_t> log, below, above;
  DeviceExceptionLists device;

  Uploaded() {
    const glibcmath::ExceptionLists& host = glibcmath::host_exception_lists();
    auto copy = [](const glibcmath::ExceptionList& from, DeviceBuffer<uint32_t>& to) {
      to.reset(static_cast<size_t>(std::max<int64_t>(from.size, 1)));
      to.upload(from.entries, static_cast<size_t>(from.size));
      return glibcmath::ExceptionList{to.data(), from.size};
    };
    if (glibcmath::log_exceptions_mismatch().empty()) {
      device.lists.log = copy(host.log, log);
      device.log = true;
    }
    if (glibcmath::expf_exceptions_mismatch().empty()) {
      device.lists.expf_below = copy(host.expf_below, below);
      device.lists.expf_above = copy(host.expf_above, above);
      device.expf = true;
    }
  }
};

}  // namespace

const DeviceExceptionLists& device_exception_lists() {
  static const Uploaded* u = new Uploaded;  // never destroyed (see the header)
  return u->device;
}

}  // namespace celeris::cuda
