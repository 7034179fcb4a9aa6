// core/reserved_cpu.hpp: a CPU kept for one serial step (the clean pass), the process's other
// threads moved off it while the reservation lives and given back their CPUs after.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "celeris/error.hpp"
#include "core/reserved_cpu.hpp"

using celeris::parse_cpu_list;
using celeris::ReservedCpu;

namespace {

std::vector<int> cpus_of(pid_t tid) {
  cpu_set_t m;
  CPU_ZERO(&m);
  EXPECT_EQ(sched_getaffinity(tid, sizeof m, &m), 0);
  std::vector<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &m)) out.push_back(c);
  return out;
}

bool contains(const std::vector<int>& v, int c) {
  return std::find(v.begin(), v.end(), c) != v.end();
}

// A thread that waits until told to end, its id known.
struct Waiter {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::atomic<pid_t> tid{0};
  std::thread t{[this] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [this] { return done; });
  }};
  Waiter() {
    while (tid.load() == 0) std::this_thread::yield();
  }
  ~Waiter() {
    {
      std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_all();
    t.join();
  }
};

}  // namespace

TEST(ParseCpuList, RangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("3-1").empty());
  EXPECT_TRUE(parse_cpu_list("a").empty());
  EXPECT_TRUE(parse_cpu_list("1,-2").empty());
}

TEST(ReservedCpu, OffDoesNothing) {
  const std::vector<int> before = cpus_of(0);
  ReservedCpu r(-1, {});
  EXPECT_FALSE(r.active());
  EXPECT_EQ(cpus_of(0), before);
}

// The caller on the CPU alone, a thread started before on the others, both given back after,
// and a thread started meanwhile given the caller's CPUs after.
TEST(ReservedCpu, PinsTheCallerAndMovesTheOthers) {
  const std::vector<int> all = cpus_of(0);
  if (all.size() < 2) GTEST_SKIP() << "one CPU only";
  const int cpu = all.back();
  Waiter before;
  const std::vector<int> before_cpus = cpus_of(before.tid);
  std::unique_ptr<Waiter> during;
  {
    ReservedCpu r(cpu, {});
    ASSERT_TRUE(r.active());
    EXPECT_GE(r.threads_moved(), 1u);
    EXPECT_EQ(cpus_of(0), std::vector<int>{cpu});
    const std::vector<int> moved = cpus_of(before.tid);
    EXPECT_FALSE(contains(moved, cpu));
    EXPECT_FALSE(moved.empty());
    // A second reservation meanwhile does nothing.
    ReservedCpu second(all.front(), {});
    EXPECT_FALSE(second.active());
    EXPECT_EQ(cpus_of(0), std::vector<int>{cpu});
    during = std::make_unique<Waiter>();  // started pinned to `cpu`, as its creator
  }
  EXPECT_EQ(cpus_of(0), all);
  EXPECT_EQ(cpus_of(before.tid), before_cpus);
  EXPECT_EQ(cpus_of(during->tid), all);
}

TEST(ReservedCpu, KeepFreeIsLeftIdleToo) {
  const std::vector<int> all = cpus_of(0);
  if (all.size() < 3) GTEST_SKIP() << "fewer than three CPUs";
  Waiter other;
  ReservedCpu r(all[0], {all[1]});
  ASSERT_TRUE(r.active());
  const std::vector<int> moved = cpus_of(other.tid);
  EXPECT_FALSE(contains(moved, all[0]));
  EXPECT_FALSE(contains(moved, all[1]));
}

TEST(ReservedCpu, RefusesACpuTheProcessMayNotUse) {
  EXPECT_THROW(ReservedCpu(CPU_SETSIZE + 5, {}), celeris::Error);
  const std::vector<int> all = cpus_of(0);
  // Every CPU kept free: none left for the others.
  EXPECT_THROW(ReservedCpu(all[0], all), celeris::Error);
  EXPECT_EQ(cpus_of(0), all);  // nothing moved
}
