// core/cuda/buffer_pool.hpp, which is plain C++: reuse of what comes back, the kept bound, and
// the limit of those out at once (the GPU front end's two contexts), on the CPU.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/cuda/buffer_pool.hpp"
#include "core/cuda/context_pool.hpp"

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

// drop_idle frees those waiting in the pool, each after the caller's hook, and leaves those out
// alone: they come back to the pool as before.
TEST(BufferPool, DropIdleFreesThoseWaitingOnly) {
  const int before = Buffer::alive;
  celeris::cuda::BufferPool<Buffer> pool(4);
  auto out = pool.take(fits(1), make(1));
  {
    auto a = pool.take(fits(1), make(1));
    auto b = pool.take(fits(1), make(1));
  }
  EXPECT_EQ(pool.idle(), 2u);
  EXPECT_EQ(Buffer::alive - before, 3);
  int hooked = 0;
  pool.drop_idle([&](Buffer& b) {
    EXPECT_NE(&b, out.get());
    ++hooked;
  });
  EXPECT_EQ(hooked, 2);
  EXPECT_EQ(pool.idle(), 0u);
  EXPECT_EQ(Buffer::alive - before, 1);
  Buffer* kept = out.get();
  out.reset();
  EXPECT_EQ(pool.idle(), 1u);
  auto again = pool.take(fits(1), make(1));
  EXPECT_EQ(again.get(), kept);
}

// core/cuda/context_pool.hpp: a caller never shares a context with another caller at the same
// time, and a context given back is taken again rather than a new one made.
namespace {
struct StageContext {
  StageContext() { ++made; }
  int user = -1;  // the caller holding it
  static inline std::atomic<int> made{0};
};
}  // namespace

TEST(ContextPool, OneCallerPerContextAndReuseOfThoseGivenBack) {
  celeris::cuda::ContextPool<StageContext> pool;
  const int before = StageContext::made;
  StageContext *first = nullptr, *second = nullptr;
  {
    auto a = pool.take();
    auto b = pool.take();
    EXPECT_NE(a.get(), b.get());  // held at once: two contexts
    first = a.get(), second = b.get();
  }
  EXPECT_EQ(StageContext::made - before, 2);
  auto again = pool.take();
  EXPECT_TRUE(again.get() == first || again.get() == second);  // given back: reused
  EXPECT_EQ(StageContext::made - before, 2);
  again.reset();
  // Eight threads, each taking and holding a context many times: no context is ever held by two.
  std::atomic<bool> shared{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 2000; ++k) {
        auto c = pool.take();
        if (c->user != -1) shared = true;
        c->user = t;
        std::this_thread::yield();
        if (c->user != t) shared = true;
        c->user = -1;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_FALSE(shared);
  EXPECT_LE(StageContext::made - before, 8);  // never more than the callers at once
}

TEST(ContextPool, TakeWithAMakerUsesIt) {
  celeris::cuda::ContextPool<StageContext> pool;
  auto c = pool.take([] {
    auto made = std::make_unique<StageContext>();
    made->user = 7;
    return made;
  });
  EXPECT_EQ(c->user, 7);
}
