// PinnedFramePool (pinned_buffer_pool.hpp): the slots' bookkeeping in plain C++; the memory
// through PinnedBuffer in CUDA builds, none in the others.
#include "core/cuda/pinned_buffer_pool.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#ifdef CELERIS_HAVE_CUDA
#include "core/cuda/pinned_buffer.hpp"
#endif

namespace celeris::cuda {

namespace {

#ifdef CELERIS_HAVE_CUDA
using Memory = PinnedBuffer<float>;

bool have_device() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

// n floats of page-locked memory, or an empty buffer where the driver refuses.
Memory allocate(size_t n) {
  try {
    return Memory(n);
  } catch (...) {
    cudaGetLastError();
    return {};
  }
}
#else
struct Memory {
  float* data() { return nullptr; }
  size_t size() const { return 0; }
};
bool have_device() {
  return false;
}
Memory allocate(size_t) {
  return {};
}
#endif

}  // namespace

struct PinnedFramePool::Lease::State {
  std::mutex m;
  std::condition_variable freed;
  std::vector<Memory> memory;  // one per slot
  std::vector<bool> lent;
  bool page_locked = false;
  size_t budget_bytes = 0, bytes = 0;
};

PinnedFramePool::PinnedFramePool(size_t slots, bool page_locked, size_t budget_bytes)
    : state_(std::make_shared<Lease::State>()) {
  slots = std::max<size_t>(slots, 1);
  state_->memory.resize(slots);
  state_->lent.assign(slots, false);
  // Asked once: without a device no slot ever holds memory.
  state_->page_locked = page_locked && have_device();
  state_->budget_bytes = budget_bytes;
}

PinnedFramePool::~PinnedFramePool() = default;

std::shared_ptr<PinnedFramePool::Lease> PinnedFramePool::take() {
  std::shared_ptr<Lease::State> state = state_;
  std::unique_lock<std::mutex> lock(state->m);
  size_t slot = 0;
  state->freed.wait(lock, [&] {
    const auto it = std::find(state->lent.begin(), state->lent.end(), false);
    slot = static_cast<size_t>(it - state->lent.begin());
    return it != state->lent.end();
  });
  state->lent[slot] = true;
  auto lease = new Lease;
  lease->state_ = state;
  lease->slot_ = slot;
  return {lease, [](Lease* l) {
            {
              std::lock_guard<std::mutex> g(l->state_->m);
              l->state_->lent[l->slot_] = false;
            }
            l->state_->freed.notify_one();
            delete l;
          }};
}

float* PinnedFramePool::Lease::floats(size_t n) {
  State& s = *state_;
  Memory& mine = s.memory[slot_];  // this slot's, touched by its one lease at a time
  if (n == 0) return nullptr;
  if (mine.size() >= n) return mine.data();
  if (!s.page_locked) return nullptr;
  {
    std::lock_guard<std::mutex> g(s.m);
    if (s.bytes - mine.size() * sizeof(float) + n * sizeof(float) > s.budget_bytes) return nullptr;
  }
  const auto t = std::chrono::steady_clock::now();
  const size_t old_bytes = mine.size() * sizeof(float);
  mine = Memory{};  // the old buffer goes first: both would not fit the budget
  mine = allocate(n);
  allocation_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  std::lock_guard<std::mutex> g(s.m);
  s.bytes = s.bytes - old_bytes + mine.size() * sizeof(float);
  return mine.size() >= n ? mine.data() : nullptr;
}

size_t PinnedFramePool::slots() const {
  return state_->memory.size();
}

size_t PinnedFramePool::page_locked_bytes() const {
  std::lock_guard<std::mutex> g(state_->m);
  return state_->bytes;
}

bool is_page_locked(const void* p) {
#ifdef CELERIS_HAVE_CUDA
  if (!p || !have_device()) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
#else
  (void)p;
  return false;
#endif
}

}  // namespace celeris::cuda
