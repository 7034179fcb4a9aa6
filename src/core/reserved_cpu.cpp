#include "core/reserved_cpu.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <fstream>

#include "celeris/error.hpp"

#if defined(__linux__)
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/thread_ids.hpp"
#endif

namespace celeris {

std::vector<int> parse_cpu_list(const std::string& list) {
  std::vector<int> cpus;
  size_t i = 0;
  auto number = [&](int& v) {
    if (i >= list.size() || !std::isdigit(static_cast<unsigned char>(list[i]))) return false;
    long n = 0;
    while (i < list.size() && std::isdigit(static_cast<unsigned char>(list[i])) && n < 1 << 20)
      n = n * 10 + (list[i++] - '0');
    v = static_cast<int>(n);
    return n < 1 << 20;
  };
  while (i < list.size() && !std::isspace(static_cast<unsigned char>(list[i]))) {
    int a = 0, b = 0;
    if (!number(a)) return {};
    b = a;
    if (i < list.size() && list[i] == '-') {
      ++i;
      if (!number(b) || b < a) return {};
    }
    for (int c = a; c <= b; ++c) cpus.push_back(c);
    if (i < list.size() && list[i] == ',') ++i;
  }
  return cpus;
}

std::vector<int> smt_siblings(int cpu) {
  std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                   "/topology/thread_siblings_list");
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  std::vector<int> out;
  for (const int c : parse_cpu_list(line))
    if (c != cpu) out.push_back(c);
  return out;
}

#if defined(__linux__)

namespace {

// One reservation at a time in the process: a second pass beside the first runs unpinned.
std::atomic<bool> g_reserved{false};

std::vector<unsigned char> bytes_of(const cpu_set_t& m) {
  std::vector<unsigned char> b(sizeof m);
  std::memcpy(b.data(), &m, sizeof m);
  return b;
}
cpu_set_t mask_of(const std::vector<unsigned char>& b) {
  cpu_set_t m;
  std::memcpy(&m, b.data(), sizeof m);
  return m;
}
long own_id() {
  return static_cast<long>(syscall(SYS_gettid));
}

}  // namespace

ReservedCpu::ReservedCpu(int cpu, const std::vector<int>& keep_free) {
  if (cpu < 0) return;
  bool expected = false;
  if (!g_reserved.compare_exchange_strong(expected, true)) return;
  // Given back unless the reservation is made (a refusal below throws).
  struct Claim {
    bool held = true;
    ~Claim() {
      if (held) g_reserved.store(false);
    }
  } claim;
  cpu_set_t own;
  CPU_ZERO(&own);
  if (sched_getaffinity(0, sizeof own, &own) != 0) return;
  if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &own))
    throw Error("pass_cpu " + std::to_string(cpu) + " is not among the CPUs this process may use");
  cpu_set_t others = own;
  CPU_CLR(cpu, &others);
  for (const int c : smt_siblings(cpu))
    if (c < CPU_SETSIZE) CPU_CLR(c, &others);
  for (const int c : keep_free)
    if (c >= 0 && c < CPU_SETSIZE) CPU_CLR(c, &others);
  if (CPU_COUNT(&others) == 0)
    throw Error("pass_cpu " + std::to_string(cpu) +
                " leaves no CPU for the other threads once its siblings are kept free");
  claim.held = false;
  active_ = true;
  own_ = bytes_of(own);
  const long self = own_id();
  seen_ = thread_ids();
  for (const long id : seen_) {
    if (id == self) continue;
    cpu_set_t m;
    CPU_ZERO(&m);
    // A thread that has ended meanwhile answers ESRCH: nothing to move or restore.
    if (sched_getaffinity(static_cast<pid_t>(id), sizeof m, &m) != 0) continue;
    cpu_set_t moved;
    CPU_AND(&moved, &m, &others);
    // A thread pinned by someone else to the reserved CPUs alone keeps its place.
    if (CPU_COUNT(&moved) == 0) continue;
    if (sched_setaffinity(static_cast<pid_t>(id), sizeof moved, &moved) != 0) continue;
    saved_.emplace_back(id, bytes_of(m));
  }
  cpu_set_t mine;
  CPU_ZERO(&mine);
  CPU_SET(cpu, &mine);
  sched_setaffinity(0, sizeof mine, &mine);
}

ReservedCpu::~ReservedCpu() {
  if (!active_) return;
  const cpu_set_t own = mask_of(own_);
  sched_setaffinity(0, sizeof own, &own);
  for (const auto& [id, bytes] : saved_) {
    const cpu_set_t m = mask_of(bytes);
    sched_setaffinity(static_cast<pid_t>(id), sizeof m, &m);
  }
  // Threads started meanwhile inherited a restricted mask from their creator: they get the
  // calling thread's, as if started before.
  for (const long id : thread_ids())
    if (!std::binary_search(seen_.begin(), seen_.end(), id))
      sched_setaffinity(static_cast<pid_t>(id), sizeof own, &own);
  g_reserved.store(false);
}

#else

ReservedCpu::ReservedCpu(int, const std::vector<int>&) {}
ReservedCpu::~ReservedCpu() = default;

#endif

}  // namespace celeris
