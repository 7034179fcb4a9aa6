// An extraction keeps its OpenMP team at one size from stage to stage. libgomp ends the threads
// a smaller team leaves out, and the next full team starts them again: the background's median
// filter on 3 of 8 threads (its old one thread per 512 meshes) cost five thread starts a frame,
// and on the H200's host, with the columns' copy on 8 of 16 as well, 2.6-4.6 ms of a crowded
// 4096^2 frame (stop 47). So a frame after the first starts no thread, on the CPU and with a
// device on the GPU path. The threads are counted by id (core/thread_ids.hpp).
#include <gtest/gtest.h>
#include <omp.h>

#include <vector>

#include "celeris/device.hpp"
#include "celeris/extract.hpp"
#include "celeris/simulate.hpp"
#include "core/thread_ids.hpp"

namespace celeris::extract {
namespace {

// The threads a second extraction of the same frame starts, with OpenMP's count at 8 and the
// extraction's left to pick (Config::threads 0: 8 for this frame).
long threads_started_by_second_frame(Backend device) {
  if (thread_ids().empty()) return -1;  // no /proc: nothing to count
  sim::ImageParams p;
  // 2048^2: 1024 background meshes, for which the old count was 3 threads.
  p.width = p.height = 2048;
  p.seed = 5;
  p.n_stars = 600;
  const Image<float> image = sim::simulate_image(p).pixels;
  Config config;
  config.device = device;
  config.threads = 0;
  const int before = omp_get_max_threads();
  omp_set_num_threads(8);
  extract(image.view(), config);
  const std::vector<long> start = thread_ids();
  const Result r = extract(image.view(), config);
  const std::vector<long> end = thread_ids();
  omp_set_num_threads(before);
  EXPECT_GT(r.objects.size(), 100u);
  return threads_started(start, end);
}

TEST(OpenMpTeam, ASecondFrameStartsNoThreadOnTheCpu) {
  const long started = threads_started_by_second_frame(Backend::Cpu);
  if (started < 0) GTEST_SKIP() << "no /proc/self/task";
  EXPECT_EQ(started, 0);
}

TEST(OpenMpTeam, ASecondFrameStartsNoThreadOnTheGpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const long started = threads_started_by_second_frame(Backend::Cuda);
  if (started < 0) GTEST_SKIP() << "no /proc/self/task";
  EXPECT_EQ(started, 0);
}

}  // namespace
}  // namespace celeris::extract
