// The CPU time of each of the process's threads so far, to see which threads ran beside a serial
// step (the clean pass, which a thread spinning on a sibling vCPU slows by half: bench/results/
// extract-gpu-h200-2026-11-30-stop46.md, call 10). Linux (/proc/self/task lists the threads,
// each thread's CPU clock gives its time); empty elsewhere. Plain C++; a census reads a file
// and a clock per thread, so it is for benchmarks, not every frame.
#pragma once

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "core/thread_ids.hpp"

namespace celeris {

struct ThreadCpu {
  long id = 0;
  std::string name;  // /proc's comm: the process's name unless the thread was named
  uint64_t ns = 0;   // time on a CPU so far
};

// The calling thread's id, as /proc/self/task names it.
inline long current_thread_id() {
  return static_cast<long>(syscall(SYS_gettid));
}

// A thread's CPU time so far, in nanoseconds (0 where it cannot be read): Linux's CPUCLOCK_SCHED
// of its id, which clock_gettime answers for any thread of the process, exact to the moment
// (schedstat's count, read for a thread that is running, lags by up to a scheduler tick: 4 ms
// on the H200's host).
inline uint64_t thread_cpu_ns(long id) {
  const clockid_t clock = static_cast<clockid_t>((~static_cast<unsigned>(id) << 3) | 6u);
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The calling thread's CPU time so far, in seconds.
inline double thread_cpu_seconds() {
  return 1e-9 * static_cast<double>(thread_cpu_ns(current_thread_id()));
}

// The calling thread's minor page faults so far (first touches of memory the kernel then zeroes
// or maps; 0 where it cannot be read).
inline long thread_minor_faults() {
  rusage r{};
  if (getrusage(RUSAGE_THREAD, &r) != 0) return 0;
  return r.ru_minflt;
}

// Every thread's, by id (core/thread_ids.hpp's list).
inline std::vector<ThreadCpu> thread_cpu_times() {
  std::vector<ThreadCpu> out;
  for (const long id : thread_ids()) {
    ThreadCpu t;
    t.id = id;
    t.ns = thread_cpu_ns(id);
    if (FILE* f = std::fopen(("/proc/self/task/" + std::to_string(id) + "/comm").c_str(), "r")) {
      char buf[64] = {};
      if (std::fgets(buf, sizeof buf, f)) {
        t.name = buf;
        while (!t.name.empty() && t.name.back() == '\n') t.name.pop_back();
      }
      std::fclose(f);
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Each thread's CPU time from `before` to `after` (both by id), threads started in between
// counted from zero; the largest first.
inline std::vector<ThreadCpu> thread_cpu_between(const std::vector<ThreadCpu>& before,
                                                 const std::vector<ThreadCpu>& after) {
  std::vector<ThreadCpu> out;
  for (const ThreadCpu& a : after) {
    auto it = std::lower_bound(before.begin(), before.end(), a.id,
                               [](const ThreadCpu& t, long id) { return t.id < id; });
    ThreadCpu t = a;
    if (it != before.end() && it->id == a.id) t.ns = a.ns >= it->ns ? a.ns - it->ns : 0;
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const ThreadCpu& a, const ThreadCpu& b) { return a.ns > b.ns; });
  return out;
}

}  // namespace celeris
