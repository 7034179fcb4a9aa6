// core/cuda/buffer_pool.hpp, which is plain C++: reuse of what comes back, the kept bound, and
// the limit of those out at once (the GPU front end's two contexts), on the CPU.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "core/cuda/buffer_pool.hpp"

namespace {

struct Buffer {
  explicit Buffer(int n) : size(n) { ++alive; }
  ~Buffer() { --alive; }
  int size;
  static inline std::atomic<int> alive{0};
};

auto make(int n) {
  return [n] { return std::make_unique<Buffer>(n); };
}
auto fits(int n) {
  return [n](const Buffer& b) { return b.size >= n; };
}

}  // namespace

TEST(BufferPool, ReusesWhatFitsAndKeepsAtMostKept) {
  {
    celeris::cuda::BufferPool<Buffer> pool(1);
    Buffer* first = nullptr;
    {
      auto a = pool.take(fits(10), make(10));
      first = a.get();
    }
    auto again = pool.take(fits(5), make(5));
    EXPECT_EQ(again.get(), first);  // came back and fits: the same one
    auto larger = pool.take(fits(20), make(20));
    EXPECT_NE(larger.get(), first);
    again.reset();
    larger.reset();  // a second one back: past `kept`, freed
    EXPECT_EQ(Buffer::alive.load(), 1);
  }
  EXPECT_EQ(Buffer::alive.load(), 0);
}

TEST(BufferPool, LimitMakesTheNextTakerWait) {
  celeris::cuda::BufferPool<Buffer> pool(2, 2);
  auto a = pool.take(fits(1), make(1));
  auto b = pool.take(fits(1), make(1));
  std::atomic<bool> got{false};
  Buffer* third = nullptr;
  std::thread taker([&] {
    auto c = pool.take(fits(1), make(1));
    third = c.get();
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(got.load());
  Buffer* back = a.get();
  a.reset();
  taker.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(third, back);  // the one given back, not a third
  EXPECT_EQ(Buffer::alive.load(), 2);
}

TEST(BufferPool, FailedMakeFreesItsPlaceUnderTheLimit) {
  celeris::cuda::BufferPool<Buffer> pool(1, 1);
  EXPECT_THROW(
      pool.take(fits(1),
                []() -> std::unique_ptr<Buffer> { throw std::runtime_error("no memory"); }),
      std::runtime_error);
  auto a = pool.take(fits(1), make(1));  // would wait for ever if the failure held the place
  EXPECT_NE(a.get(), nullptr);
}
