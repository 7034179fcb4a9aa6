// Internal CUDA layer: BufferPool<B>, objects that hold large buffers (page-locked host memory,
// slow to allocate; device memory, whose cudaFree synchronises the device) reused from frame to
// frame. take() hands one out as a shared_ptr that comes back to the pool when its last copy
// goes, on whatever thread that happens (a frame's buffers outlive the stage that filled them:
// the GPU front end's images are read by the CPU stages after it). At most `kept` wait in the
// pool; more are freed.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace celeris::cuda {

template <class B>
class BufferPool {
 public:
  explicit BufferPool(size_t kept) : state_(std::make_shared<State>(kept)) {}

  // A waiting one that `fits(const B&)` accepts, else make() (a new one).
  template <class Fits, class Make>
  std::shared_ptr<B> take(Fits&& fits, Make&& make) {
    std::unique_ptr<B> got;
    {
      std::lock_guard<std::mutex> lock(state_->m);
      auto& free = state_->free;
      for (size_t k = 0; k < free.size(); ++k)
        if (fits(*free[k])) {
          got = std::move(free[k]);
          free.erase(free.begin() + static_cast<std::ptrdiff_t>(k));
          break;
        }
    }
    if (!got) got = make();
    std::shared_ptr<State> state = state_;
    return {got.release(), [state](B* b) {
              std::lock_guard<std::mutex> lock(state->m);
              if (state->free.size() < state->kept)
                state->free.emplace_back(b);
              else
                delete b;
            }};
  }

 private:
  struct State {
    explicit State(size_t k) : kept(k) {}
    std::mutex m;
    size_t kept;
    std::vector<std::unique_ptr<B>> free;
  };
  std::shared_ptr<State> state_;
};

}  // namespace celeris::cuda
