// Internal CUDA layer: BufferPool<B>, objects that hold large buffers (page-locked host memory,
// slow to allocate; device memory, whose cudaFree synchronises the device) reused from frame to
// frame. take() hands one out as a shared_ptr that comes back to the pool when its last copy
// goes, on whatever thread that happens (a frame's buffers outlive the stage that filled them:
// the GPU front end's images are read by the CPU stages after it). At most `kept` wait in the
// pool; more are freed. With a `limit`, at most that many are out at once: take() waits for one
// to come back (the GPU front end's contexts: two frames at once, each a stream and buffers).
// Plain C++.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace celeris::cuda {

template <class B>
class BufferPool {
 public:
  explicit BufferPool(size_t kept, size_t limit = SIZE_MAX)
      : state_(std::make_shared<State>(kept, limit)) {}

  // A waiting one that `fits(const B&)` accepts, else make() (a new one); with `limit` out
  // already, waits for one to come back first.
  template <class Fits, class Make>
  std::shared_ptr<B> take(Fits&& fits, Make&& make) {
    std::unique_ptr<B> got;
    {
      std::unique_lock<std::mutex> lock(state_->m);
      state_->returned.wait(lock, [&] { return state_->out < state_->limit; });
      ++state_->out;
      auto& free = state_->free;
      for (size_t k = 0; k < free.size(); ++k)
        if (fits(*free[k])) {
          got = std::move(free[k]);
          free.erase(free.begin() + static_cast<std::ptrdiff_t>(k));
          break;
        }
    }
    if (!got) try {
        got = make();
      } catch (...) {
        state_->give_back(nullptr);
        throw;
      }
    std::shared_ptr<State> state = state_;
    return {got.release(), [state](B* b) { state->give_back(b); }};
  }

  // Frees those waiting in the pool (not those out), each after `before(B&)`: a stream that
  // lets in a frame larger than its plan gives back what the plan does not count.
  template <class Before>
  void drop_idle(Before&& before) {
    std::vector<std::unique_ptr<B>> dropped;
    {
      std::lock_guard<std::mutex> lock(state_->m);
      dropped.swap(state_->free);
    }
    for (std::unique_ptr<B>& b : dropped) before(*b);
  }
  size_t idle() const {
    std::lock_guard<std::mutex> lock(state_->m);
    return state_->free.size();
  }

 private:
  struct State {
    State(size_t k, size_t l) : kept(k), limit(l) {}
    // `b` back (nullptr: one whose make() failed), kept or freed.
    void give_back(B* b) {
      {
        std::lock_guard<std::mutex> lock(m);
        --out;
        if (b && free.size() < kept)
          free.emplace_back(b);
        else
          delete b;
      }
      returned.notify_one();
    }
    std::mutex m;
    std::condition_variable returned;
    size_t kept, limit, out = 0;
    std::vector<std::unique_ptr<B>> free;
  };
  std::shared_ptr<State> state_;
};

}  // namespace celeris::cuda
