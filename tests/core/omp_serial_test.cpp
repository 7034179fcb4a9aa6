// core/omp_serial.hpp: a serial step run on the calling thread while the rest of its OpenMP team
// waits in a region of its own (asleep on a condition variable).
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "core/omp_serial.hpp"

using celeris::run_with_team_asleep;

TEST(RunWithTeamAsleep, RunsTheStepOnceOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  for (int threads : {1, 2, 4, 8}) {
    std::atomic<int> runs{0};
    bool on_caller = false;
    run_with_team_asleep(threads, [&] {
      ++runs;
      on_caller = std::this_thread::get_id() == caller;
    });
    EXPECT_EQ(runs.load(), 1) << threads << " threads";
    EXPECT_TRUE(on_caller) << threads << " threads";
  }
}

// After the step the team is free again: a parallel loop covers every index, and another step
// runs (a thread left waiting would hang either).
TEST(RunWithTeamAsleep, TheTeamIsFreeAfterTheStep) {
  for (int round = 0; round < 50; ++round) {
    int ran = 0;
    run_with_team_asleep(4, [&] { ++ran; });
    ASSERT_EQ(ran, 1);
    std::atomic<int> sum{0};
#pragma omp parallel for num_threads(4)
    for (int i = 0; i < 1000; ++i) sum += i;
    ASSERT_EQ(sum.load(), 999 * 1000 / 2);
  }
}

TEST(RunWithTeamAsleep, TheStepsExceptionReachesTheCaller) {
  EXPECT_THROW(run_with_team_asleep(4, [] { throw std::runtime_error("step failed"); }),
               std::runtime_error);
  // And the team is left in a usable state.
  int ran = 0;
  run_with_team_asleep(4, [&] { ++ran; });
  EXPECT_EQ(ran, 1);
}

// Inside a parallel region (no team of its own to dock), each caller runs its step directly.
TEST(RunWithTeamAsleep, InsideAParallelRegionEachThreadRunsItsStep) {
  std::atomic<int> runs{0}, team{0};
#pragma omp parallel num_threads(3)
  {
#pragma omp single
    team = omp_get_num_threads();
    run_with_team_asleep(4, [&] { ++runs; });
  }
  EXPECT_EQ(runs.load(), team.load());
}
