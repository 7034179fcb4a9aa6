// The process's threads by id, to count the threads a step starts: ids are not reused soon, so
// the ids at a step's end that were not there at its start are the threads it started and left
// running (an OpenMP team of the frame's size that a smaller one had cut: the test
// `OpenMpTeam.*` and `bench_extract_stages`' "threads started a frame"). Linux (/proc); empty
// elsewhere. Plain C++.
#pragma once

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace celeris {

// The ids in /proc/self/task, sorted (empty where there is no such directory).
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

}  // namespace celeris
