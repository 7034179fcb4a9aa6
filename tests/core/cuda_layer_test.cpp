// The CUDA layer (src/core/cuda/) where no GPU is needed: the types' ownership rules, the error
// messages, empty buffers, the scratch layout arithmetic and, on a machine without a device, that
// allocating fails with a celeris::Error naming the call. The rest runs on a GPU in
// cuda_layer_gpu_test.cu (labels core;gpu). Compiled only with the CUDA backend.
#ifdef CELERIS_HAVE_CUDA

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "core/cuda/cuda_check.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/event_timer.hpp"
#include "core/cuda/pinned_buffer.hpp"
#include "core/cuda/scratch_pool.hpp"
#include "core/cuda/stream.hpp"

namespace cu = celeris::cuda;

// Owners of CUDA resources: one owner each, handed over by move, never copied.
template <class T>
constexpr bool kMoveOnly =
    !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T> &&
    std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>;
static_assert(kMoveOnly<cu::DeviceBuffer<float>>);
static_assert(kMoveOnly<cu::DeviceBuffer<double>>);
static_assert(kMoveOnly<cu::PinnedBuffer<int>>);
static_assert(kMoveOnly<cu::Stream>);
static_assert(kMoveOnly<cu::Event>);
static_assert(kMoveOnly<cu::ScratchPool>);
static_assert(!std::is_copy_constructible_v<cu::EventTimer>);

TEST(CudaLayer, ErrorNamesTheCallAndTheCudaError) {
  try {
    CELERIS_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "no exception";
  } catch (const celeris::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("CUDA error in cudaErrorInvalidValue"), std::string::npos) << m;
    EXPECT_NE(m.find("(cudaErrorInvalidValue)"), std::string::npos) << m;
    EXPECT_NE(m.find(cudaGetErrorString(cudaErrorInvalidValue)), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line";
  }
  EXPECT_NO_THROW(cu::cuda_check(cudaSuccess, "nothing"));
  EXPECT_EQ(cu::cuda_error_message(cudaErrorMemoryAllocation, "cudaMalloc(8 bytes)"),
            std::string("CUDA error in cudaMalloc(8 bytes): ") +
                cudaGetErrorString(cudaErrorMemoryAllocation) + " (cudaErrorMemoryAllocation)");
}

TEST(CudaLayer, EmptyBuffersAllocateNothing) {
  cu::DeviceBuffer<double> d(0);
  EXPECT_EQ(d.data(), nullptr);
  EXPECT_EQ(d.size(), 0u);
  EXPECT_TRUE(d.empty());
  d.upload(nullptr, 0);  // no-ops: no device touched
  d.download(nullptr, 0);
  cu::PinnedBuffer<float> h(0);
  EXPECT_EQ(h.data(), nullptr);
  EXPECT_EQ(h.begin(), h.end());
  cu::DeviceBuffer<double> moved(std::move(d));
  EXPECT_EQ(moved.size(), 0u);
  cu::ScratchPool pool;
  EXPECT_EQ(pool.acquire(0), nullptr);
  EXPECT_EQ(pool.capacity(), 0u);
  EXPECT_EQ(pool.allocations(), 0);
}

TEST(CudaLayer, CarveAlignsEveryPieceTo256Bytes) {
  cu::Carve plan;
  plan.add<uint32_t>(3);  // [0, 12)
  plan.add<double>(100);  // [256, 1056)
  plan.add_bytes(1);      // [1280, 1281)
  plan.add<char>(0);      // [1536, 1536)
  EXPECT_EQ(plan.bytes(), 1536u);
  alignas(256) static char block[2048];
  cu::Carve cut(block);
  EXPECT_EQ(static_cast<void*>(cut.take<uint32_t>(3)), block);
  EXPECT_EQ(static_cast<void*>(cut.take<double>(100)), block + 256);
  EXPECT_EQ(cut.take_bytes(1), block + 1280);
  EXPECT_EQ(cut.bytes(), 1281u);
  cu::Carve no_base;
  EXPECT_THROW(no_base.take<int>(1), celeris::Error);
}

TEST(CudaLayer, WithoutDeviceAllocationIsAnErrorNamingTheCall) {
  if (celeris::cuda_device_count() > 0) GTEST_SKIP() << "a device is present";
  try {
    cu::DeviceBuffer<double> d(1000);
    FAIL() << "allocated without a device";
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA error in cudaMalloc(8000 bytes)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(cu::cuda_require_device("test"), celeris::Error);
  try {
    cu::cuda_require_device("maxsub: method cuda");
  } catch (const celeris::Error& e) {
    EXPECT_EQ(std::string(e.what()), "maxsub: method cuda: no CUDA device");
  }
  cu::ScratchPool pool;
  EXPECT_THROW(pool.acquire(1), celeris::Error);
  EXPECT_EQ(pool.capacity(), 0u);
}

#endif  // CELERIS_HAVE_CUDA
