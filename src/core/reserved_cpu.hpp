// A logical CPU kept for one serial step: the calling thread pinned to it, every other thread of
// the process moved off it and off the CPUs that share its physical core, for as long as the
// object lives. Why: the clean pass, the GPU path's longest serial step, runs about half as fast
// again while another thread is busy on its core's SMT sibling (an H100's host: 27 ms alone,
// 45 ms beside 15 spinning vCPUs, 28 ms beside 8 spinning vCPUs that are not its sibling;
// bench/results/extract-dense-h100-2026-12-07-stop79.md), and the stages beside it keep every
// vCPU busy. Linux (sched_setaffinity on each thread of /proc/self/task, the siblings from
// sysfs); elsewhere it does nothing.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace celeris {

// The logical CPUs of a sysfs CPU list ("0-3,8,10-11"); empty for an empty or malformed list.
std::vector<int> parse_cpu_list(const std::string& list);

// The other logical CPUs that share `cpu`'s physical core, as the kernel's topology lists them
// (empty where it lists none: a virtual machine's vCPUs often hide theirs).
std::vector<int> smt_siblings(int cpu);

class ReservedCpu {
 public:
  // Does nothing for cpu < 0, or while another ReservedCpu of the process holds a CPU (frames
  // in a stream: the first pass keeps it). Else pins the calling thread to `cpu` and keeps the
  // process's other threads off it, its SMT siblings and `keep_free` (CPUs to keep idle beside
  // it: siblings a virtual machine does not list). Throws celeris::Error where `cpu` is not
  // among the CPUs the calling thread may use, or where no CPU is left for the others.
  ReservedCpu(int cpu, const std::vector<int>& keep_free);
  // Every thread moved back to the CPUs it had (one started meanwhile: the caller's).
  ~ReservedCpu();
  ReservedCpu(const ReservedCpu&) = delete;
  ReservedCpu& operator=(const ReservedCpu&) = delete;

  bool active() const { return active_; }
  // The threads moved off the reserved CPUs (the calling thread not counted).
  size_t threads_moved() const { return saved_.size(); }

 private:
  bool active_ = false;
  // (thread, its mask's bytes: a cpu_set_t, kept out of this header), the calling thread's.
  std::vector<std::pair<long, std::vector<unsigned char>>> saved_;
  std::vector<unsigned char> own_;
  std::vector<long> seen_;  // the process's threads when it began, sorted
};

}  // namespace celeris
