// A thread started ahead of the moment its job may run: it waits until go(), then runs the job, or
// ends without running it when joined first. Starting a thread cost 0.05-0.1 ms on the H200's
// host; started during earlier work, it costs the moment that says go() nothing (the clean pass's
// start, where the extraction's helpers beside the pass begin: stages/measure_beside_pass.hpp,
// pipeline.cpp).
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace celeris {

class DeferredThread {
 public:
  DeferredThread() = default;
  // Starts the thread; `job` runs on it after go(). An exception the job throws is kept
  // (error()).
  explicit DeferredThread(std::function<void()> job) : job_(std::move(job)) {
    thread_ = std::thread([this] { wait_then_run(); });
  }
  ~DeferredThread() { join(); }
  DeferredThread(const DeferredThread&) = delete;
  DeferredThread& operator=(const DeferredThread&) = delete;

  // Lets the job run (what the caller wrote before is visible to it).
  void go() { tell(true); }
  // Waits for the job when go() came first; otherwise the thread ends without it. After join(),
  // ran() says whether the job ran.
  void join() {
    if (!thread_.joinable()) return;
    tell(false);
    thread_.join();
  }
  bool ran() const { return ran_; }
  std::exception_ptr error() const { return error_; }

 private:
  // The first word decides: go() or join().
  void tell(bool run) {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (told_) return;
      told_ = true;
      run_ = run;
    }
    cv_.notify_one();
  }
  void wait_then_run() {
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return told_; });
      if (!run_) return;
    }
    try {
      job_();
    } catch (...) {
      error_ = std::current_exception();
    }
    ran_ = true;
  }

  std::function<void()> job_;
  std::mutex m_;
  std::condition_variable cv_;
  bool told_ = false, run_ = false, ran_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace celeris
