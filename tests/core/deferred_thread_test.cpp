// core/deferred_thread.hpp: a thread started ahead of its job, which runs only after go().
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/deferred_thread.hpp"

using celeris::DeferredThread;

TEST(DeferredThread, RunsTheJobOnlyAfterGoAndSeesWhatWasWrittenBefore) {
  std::atomic<int> runs{0};
  int written = 0, seen = -1;
  DeferredThread t([&] {
    ++runs;
    seen = written;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(runs.load(), 0);  // started, waiting
  written = 42;
  t.go();
  t.join();
  EXPECT_EQ(runs.load(), 1);
  EXPECT_TRUE(t.ran());
  EXPECT_EQ(seen, 42);
  EXPECT_EQ(t.error(), nullptr);
  t.go();  // after join: nothing more
  t.join();
  EXPECT_EQ(runs.load(), 1);
}

TEST(DeferredThread, JoinedWithoutGoItEndsWithoutTheJob) {
  std::atomic<int> runs{0};
  {
    DeferredThread t([&] { ++runs; });
    t.join();
    EXPECT_FALSE(t.ran());
    t.go();  // too late: the thread has ended
  }
  {
    DeferredThread t([&] { ++runs; });  // destroyed without go(): ends, does not run
  }
  EXPECT_EQ(runs.load(), 0);
}

TEST(DeferredThread, KeepsTheJobsException) {
  DeferredThread t([] { throw std::runtime_error("job failed"); });
  t.go();
  t.join();
  EXPECT_TRUE(t.ran());
  ASSERT_NE(t.error(), nullptr);
  EXPECT_THROW(std::rethrow_exception(t.error()), std::runtime_error);
}
