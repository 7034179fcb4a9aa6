// A serial step between OpenMP loops, run while the team's other threads sleep.
//
// After a parallel loop, libgomp's idle threads spin before they sleep (GOMP_SPINCOUNT: 300,000
// pauses by default, milliseconds on a recent Xeon). A serial step right after a loop therefore
// shares the machine with a spinning team, and on the H200's virtual host a spinning thread on
// another vCPU slowed the clean pass's one thread by 60% (stop 46: 4.7 -> 7.3-7.6 ms with one
// spinner on vCPU 1 or 2, none with one on vCPU 3, 8 or 15: vCPUs that share a physical core).
// Here the team's threads are docked in a region of their own and block on a condition variable
// (a futex: no spinning) until the step is done; the caller's thread runs the step.
#pragma once

#include <omp.h>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <utility>

namespace celeris {

// Runs step() on the calling thread while the other `threads` - 1 threads of its OpenMP team
// sleep; step() must not start OpenMP regions of its own (they would run on one thread).
template <class Step>
void run_with_team_asleep(int threads, Step&& step) {
  if (threads <= 1 || omp_in_parallel()) {
    step();
    return;
  }
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
#pragma omp parallel num_threads(threads)
  {
    if (omp_get_thread_num() == 0) {
      try {
        step();
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(m);
        done = true;
      }
      cv.notify_all();
    } else {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return done; });
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace celeris
