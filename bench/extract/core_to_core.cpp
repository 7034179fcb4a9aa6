// The round trip of one cache line between two cores: thread A on cpu a writes a counter,
// thread B on cpu b answers on another line, N times; printed: the mean round trip. A serial
// step split over two threads (the clean pass as a decider and a bookkeeper, tried at stop 76:
// branch wip/split-pass) hands records and answers across cores, so its speed depends on this
// latency, which a virtual machine may make several times a bare host's.
//   core_to_core [A B]...   (pairs of vCPUs; default 0 1)
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

struct alignas(64) Line {
  std::atomic<long> v{0};
};

double round_trip_ns(int a, int b, long n) {
  Line ping, pong;
  std::thread t([&] {
    pin(b);
    for (long i = 1; i <= n; ++i) {
      while (ping.v.load(std::memory_order_acquire) != i) __builtin_ia32_pause();
      pong.v.store(i, std::memory_order_release);
    }
  });
  pin(a);
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 1; i <= n; ++i) {
    ping.v.store(i, std::memory_order_release);
    while (pong.v.load(std::memory_order_acquire) != i) __builtin_ia32_pause();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.join();
  return s / static_cast<double>(n) * 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> cpus;
  for (int i = 1; i < argc; ++i) cpus.push_back(std::atoi(argv[i]));
  if (cpus.empty()) cpus = {0, 1};
  for (size_t p = 0; p + 1 < cpus.size(); p += 2)
    std::printf("vCPUs %d and %d: round trip %.0f ns\n", cpus[p], cpus[p + 1],
                round_trip_ns(cpus[p], cpus[p + 1], 200000));
  return 0;
}
