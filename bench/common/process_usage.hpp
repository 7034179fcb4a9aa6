// The process's resource use so far, from getrusage: what the benchmarks set beside their wall
// times (CPU time against wall time and cores says whether a run is bound by the cores).
#pragma once

#include <sys/resource.h>

namespace celeris::bench {

struct ProcessUsage {
  double user_seconds = 0, system_seconds = 0;
  long minor_faults = 0;
};

inline ProcessUsage process_usage() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; };
  return {sec(u.ru_utime), sec(u.ru_stime), u.ru_minflt};
}

}  // namespace celeris::bench
