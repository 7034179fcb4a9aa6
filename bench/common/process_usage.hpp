// The process's resource use so far, from getrusage: what the benchmarks set beside their wall
// times (CPU time against wall time and cores says whether a run is bound by the cores).
#pragma once

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

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

// The process's threads by id (/proc/self/task; empty where there is none). Ids are not reused
// soon, so the ids at a step's end that were not there at its start are the threads it started
// and left running: the OpenMP threads a smaller team had ended and a full one started again.
inline std::vector<long> thread_ids() {
  std::vector<long> ids;
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ids.push_back(std::strtol(e->d_name, nullptr, 10));
    closedir(d);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// How many of `after`'s ids `before` lacks (both sorted).
inline long threads_started(const std::vector<long>& before, const std::vector<long>& after) {
  long n = 0;
  for (const long id : after)
    if (!std::binary_search(before.begin(), before.end(), id)) ++n;
  return n;
}

}  // namespace celeris::bench
