// The CUDA layer (src/core/cuda/) on a GPU: copies both ways (synchronous, and asynchronous on
// a stream through pinned memory), ownership moving with the allocation, stream ordering through
// events, the event timer, the scratch pool's reuse, launch errors named after the kernel, small
// read-backs through mapped host memory (read_back.hpp), and one CELERIS_HD function giving the
// same bits on host and device. Skipped without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/host_device.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/read_back.hpp"
#include "core/cuda/scratch_pool.hpp"
#include "core/cuda/stream.hpp"

namespace cu = celeris::cuda;

namespace {

// No multiply followed by an add: nvcc would fuse it (-fmad) and the bits would differ by design;
// IEEE division and addition are exact-rounded on both.
CELERIS_HD inline double shared_math(double x) {
  return (x + 1.0) / (x - 3.0);
}

__global__ void add_kernel(double* v, size_t n, double add) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) v[k] += add;
}

__global__ void shared_math_kernel(const double* in, double* out, size_t n) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) out[k] = shared_math(in[k]);
}

#define REQUIRE_DEVICE() \
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

}  // namespace

TEST(CudaLayerGpu, SynchronousRoundTrip) {
  REQUIRE_DEVICE();
  std::vector<double> h(1000);
  std::iota(h.begin(), h.end(), 0.5);
  cu::DeviceBuffer<double> d(h.size());
  EXPECT_EQ(d.size(), h.size());
  EXPECT_EQ(d.bytes(), h.size() * sizeof(double));
  d.upload(h.data(), h.size());
  add_kernel<<<4, 256>>>(d.data(), d.size(), 2.0);
  cu::cuda_check_launch("add_kernel");
  std::vector<double> back(h.size());
  d.download(back.data(), back.size());
  for (size_t k = 0; k < h.size(); ++k) ASSERT_EQ(back[k], h[k] + 2.0) << k;
  // Offsets address part of the buffer.
  double two[2] = {-1, -2};
  d.upload(two, 2, 10);
  double got[3];
  d.download(got, 3, 9);
  EXPECT_EQ(got[0], h[9] + 2.0);
  EXPECT_EQ(got[1], -1);
  EXPECT_EQ(got[2], -2);
}

TEST(CudaLayerGpu, AsyncThroughPinnedMemoryOnAStream) {
  REQUIRE_DEVICE();
  const size_t n = size_t(1) << 20;
  cu::PinnedBuffer<double> h(n);
  for (size_t k = 0; k < n; ++k) h[k] = double(k);
  cu::DeviceBuffer<double> d(n);
  cu::Stream s;
  d.upload_async(h.data(), n, s);
  add_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(d.data(), n, 1.0);
  cu::cuda_check_launch("add_kernel");
  d.download_async(h.data(), n, s);
  s.synchronize();
  for (size_t k = 0; k < n; k += 997) ASSERT_EQ(h[k], double(k) + 1.0) << k;
  d.zero_async(s);
  d.download_async(h.data(), n, s);
  s.synchronize();
  for (size_t k = 0; k < n; k += 997) ASSERT_EQ(h[k], 0.0) << k;
}

TEST(CudaLayerGpu, ReadBackThroughMappedMemory) {
  REQUIRE_DEVICE();
  std::vector<double> h(8);
  std::iota(h.begin(), h.end(), 0.25);
  cu::DeviceBuffer<double> d(h.size());
  d.upload(h.data(), h.size());
  cu::Stream s;
  cu::MappedValues<double> mapped(h.size());
  EXPECT_EQ(mapped.size(), h.size());
  // Queued after a kernel on the same stream: its results are what comes back.
  add_kernel<<<1, 32, 0, s>>>(d.data(), d.size(), 2.0);
  cu::cuda_check_launch("add_kernel");
  const double* got = cu::read_back(d.data(), mapped, h.size(), s);
  EXPECT_EQ(got, mapped.host());
  for (size_t k = 0; k < h.size(); ++k) EXPECT_EQ(got[k], h[k] + 2.0) << k;
  // Part of it, into the same mapped values.
  got = cu::read_back(d.data() + 5, mapped, 2, s);
  EXPECT_EQ(got[0], h[5] + 2.0);
  EXPECT_EQ(got[1], h[6] + 2.0);
  // A frame's worth (several blocks, words beyond what one block's pass covers), into values
  // grown from none.
  const size_t n = 300001;
  std::vector<int32_t> hi(n);
  for (size_t k = 0; k < n; ++k) hi[k] = static_cast<int32_t>(k * 7 + 3);
  cu::DeviceBuffer<int32_t> big(n);
  big.upload(hi.data(), n);
  cu::MappedValues<int32_t> many;
  EXPECT_EQ(many.size(), 0u);
  many.grow(n);
  EXPECT_EQ(many.size(), n);
  const int32_t* back = cu::read_back(big.data(), many, n, s);
  size_t wrong = 0;
  for (size_t k = 0; k < n; ++k) wrong += back[k] != hi[k];
  EXPECT_EQ(wrong, 0u);
  many.grow(16);  // fewer: kept
  EXPECT_EQ(many.size(), n);
  // A byte count that is not whole words is refused.
  EXPECT_THROW(cu::read_back_bytes(big.data(), many.device(), 6, s), celeris::Error);
}

TEST(CudaLayerGpu, MovingHandsTheAllocationOver) {
  REQUIRE_DEVICE();
  cu::DeviceBuffer<double> a(16);
  const double* p = a.data();
  cu::DeviceBuffer<double> b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 16u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT: moved-from state is specified
  EXPECT_EQ(a.size(), 0u);
  cu::DeviceBuffer<double> c(4);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  cu::PinnedBuffer<int> h(8);
  int* hp = h.data();
  cu::PinnedBuffer<int> h2 = std::move(h);
  EXPECT_EQ(h2.data(), hp);
  EXPECT_EQ(h.data(), nullptr);  // NOLINT
}

TEST(CudaLayerGpu, EventsOrderStreamsAndTimeThem) {
  REQUIRE_DEVICE();
  const size_t n = size_t(1) << 22;
  cu::DeviceBuffer<double> d(n);
  cu::Stream a, b;
  cu::EventTimer t(3);
  cu::Event done_a(false);
  d.zero_async(a);
  t.mark(0, a);
  for (int r = 0; r < 20; ++r) add_kernel<<<unsigned((n + 255) / 256), 256, 0, a>>>(d.data(), n, 1);
  cu::cuda_check_launch("add_kernel");
  t.mark(1, a);
  done_a.record(a);
  b.wait(done_a);  // b's kernel runs after a's twenty
  add_kernel<<<unsigned((n + 255) / 256), 256, 0, b>>>(d.data(), n, 0.5);
  t.mark(2, b);
  std::vector<double> h(4);
  d.download_async(h.data(), 4, b);
  b.synchronize();
  EXPECT_EQ(h[3], 20.5);
  EXPECT_GT(t.ms(0, 1), 0.0);
  EXPECT_GE(t.ms(1, 2), 0.0);
  EXPECT_NEAR(t.seconds(0, 1), t.ms(0, 1) * 1e-3, 1e-12);
  cu::Event untimed(false);
  untimed.record();
  untimed.synchronize();
  EXPECT_THROW(cu::elapsed_ms(untimed, untimed), celeris::Error);
}

TEST(CudaLayerGpu, ScratchPoolGrowsOnlyAndIsReused) {
  REQUIRE_DEVICE();
  cu::ScratchPool pool;
  void* p = pool.acquire(1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(pool.capacity(), cu::ScratchPool::kGranule);
  EXPECT_EQ(pool.acquire(10), p);
  EXPECT_EQ(pool.acquire(cu::ScratchPool::kGranule), p);
  EXPECT_EQ(pool.allocations(), 1);
  pool.acquire(cu::ScratchPool::kGranule + 1);
  EXPECT_EQ(pool.capacity(), 2 * cu::ScratchPool::kGranule);
  EXPECT_EQ(pool.allocations(), 2);
  pool.acquire(5);
  EXPECT_EQ(pool.capacity(), 2 * cu::ScratchPool::kGranule) << "never shrinks";
  // The block is usable device memory, laid out with Carve.
  cu::Carve plan;
  plan.add<double>(100);
  plan.add<uint32_t>(7);
  cu::Carve cut(pool.acquire(plan.bytes()));
  double* a = cut.take<double>(100);
  uint32_t* b = cut.take<uint32_t>(7);
  CELERIS_CUDA_CHECK(cudaMemset(a, 0, 100 * sizeof(double)));
  CELERIS_CUDA_CHECK(cudaMemset(b, 0xff, 7 * sizeof(uint32_t)));
  add_kernel<<<1, 128>>>(a, 100, 3);
  cu::cuda_check_launch("add_kernel");
  double ha[100];
  uint32_t hb[7];
  CELERIS_CUDA_CHECK(cudaMemcpy(ha, a, sizeof ha, cudaMemcpyDeviceToHost));
  CELERIS_CUDA_CHECK(cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost));
  EXPECT_EQ(ha[99], 3.0);
  EXPECT_EQ(hb[6], 0xffffffffu);
  pool.release();
  EXPECT_EQ(pool.capacity(), 0u);
}

TEST(CudaLayerGpu, BadLaunchIsAnErrorNamingTheKernel) {
  REQUIRE_DEVICE();
  cu::DeviceBuffer<double> d(4);
  add_kernel<<<1, 4096>>>(d.data(), 4, 1.0);  // more threads per block than any GPU has
  try {
    cu::cuda_check_launch("add_kernel");
    FAIL() << "no exception";
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA error in launch of add_kernel"), std::string::npos)
        << e.what();
  }
  // The error was consumed: the next launch is clean.
  add_kernel<<<1, 4>>>(d.data(), 4, 1.0);
  EXPECT_NO_THROW(cu::cuda_check_launch("add_kernel"));
}

TEST(CudaLayerGpu, HostDeviceFunctionGivesTheSameBitsOnBoth) {
  REQUIRE_DEVICE();
  std::vector<double> x(257);
  for (size_t k = 0; k < x.size(); ++k) x[k] = double(k) / 7.0 - 11.0;
  cu::DeviceBuffer<double> din(x.size()), dout(x.size());
  din.upload(x.data(), x.size());
  shared_math_kernel<<<2, 256>>>(din.data(), dout.data(), x.size());
  cu::cuda_check_launch("shared_math_kernel");
  std::vector<double> y(x.size());
  dout.download(y.data(), y.size());
  for (size_t k = 0; k < x.size(); ++k) ASSERT_EQ(y[k], shared_math(x[k])) << x[k];
}
