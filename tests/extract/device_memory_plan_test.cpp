// Which frames the GPU path takes (gpu/device_memory_plan.hpp): the decision from a frame's size,
// its planned device memory and the device's, without a device. The GPU side (a frame over the
// limit extracted on the CPU, the same catalog) is GpuFrontEnd.AFrameOverTheMemoryLimitIsOnTheCpu.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "extract/gpu/device_memory_plan.hpp"

using namespace celeris::extract::gpu;

namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(DeviceMemoryPlan, AFrameThatFitsIsTaken) {
  EXPECT_EQ(gpu_frame_refusal(4096, 4096, 1 * kGiB, 80 * kGiB), "");
  // Exactly the usable share, and the memory unknown (0): taken.
  EXPECT_EQ(
      gpu_frame_refusal(4096, 4096, static_cast<int64_t>(kUsableShare * 10 * kGiB), 10 * kGiB), "");
  EXPECT_EQ(gpu_frame_refusal(4096, 4096, 100 * kGiB, 0), "");
  EXPECT_EQ(gpu_frame_refusal(1, 1, 100, 1000), "");
}

TEST(DeviceMemoryPlan, MoreThanTheUsableShareIsRefusedWithTheNumbers) {
  const std::string why = gpu_frame_refusal(20000, 20000, 30 * kGiB, 24 * kGiB);
  EXPECT_TRUE(mentions(why, "30.0 GiB")) << why;
  EXPECT_TRUE(mentions(why, "24.0 GiB")) << why;
  EXPECT_TRUE(mentions(why, "80%")) << why;
  // Just over the share.
  EXPECT_NE(
      gpu_frame_refusal(4096, 4096, static_cast<int64_t>(kUsableShare * 10 * kGiB) + 1, 10 * kGiB),
      "");
}

TEST(DeviceMemoryPlan, FramesThe32BitIndexesCannotHoldAreRefused) {
  // 46341^2 > 2^31 - 1 >= 46340^2, whatever the memory.
  EXPECT_EQ(gpu_frame_refusal(46340, 46340, 0, 0), "");
  const std::string why = gpu_frame_refusal(46341, 46341, 0, 0);
  EXPECT_TRUE(mentions(why, "2147488281 pixels")) << why;
  EXPECT_TRUE(mentions(why, "2^31")) << why;
  EXPECT_NE(gpu_frame_refusal(int64_t{1} << 20, int64_t{1} << 12, 0, 1000 * kGiB), "");
}

TEST(DeviceMemoryPlan, AStreamPlansItsFrontsAndTheImagesPastThem) {
  // Two fronts of 1 GiB each, four frames past them keeping 128 MiB of images.
  EXPECT_EQ(stream_device_bytes(kGiB, kGiB / 8, 2, 4), 2 * kGiB + kGiB / 2);
  EXPECT_EQ(stream_device_bytes(kGiB, kGiB / 8, 1, 0), kGiB);
  // A frame that cannot be planned (the largest int64_t) stays unplannable, without overflow.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(stream_device_bytes(kMax, kGiB, 2, 4), kMax);
  EXPECT_EQ(stream_device_bytes(kMax / 2 + 1, 0, 2, 0), kMax);
  // A frame that fits alone can be refused in a stream, the message naming the stream.
  const int64_t stream = stream_device_bytes(6 * kGiB, kGiB / 2, 2, 4);
  EXPECT_EQ(gpu_frame_refusal(8192, 8192, 6 * kGiB, 16 * kGiB), "");
  const std::string why =
      gpu_frame_refusal(8192, 8192, stream, 16 * kGiB, "the stream's frames on the device");
  EXPECT_TRUE(mentions(why, "the stream's frames on the device would take up to 14.0 GiB")) << why;
}

TEST(DeviceMemoryPlan, AStreamLetsInFlightTheFramesTheDeviceHolds) {
  // Frames of 1 GiB in the front end (two there) and 128 MiB of images past it, 6 to 11 in
  // flight: 2 + 9 / 8 GiB = 3.125 GiB fits 80% of 4 GiB (3.2); 80% of 3 GiB (2.4) holds two
  // fronts and three frames past them (2.375), fewer than the least: the least.
  EXPECT_EQ(stream_window(kGiB, kGiB / 8, 2, 6, 11, 4 * kGiB), 11u);
  EXPECT_EQ(stream_window(kGiB, kGiB / 8, 2, 6, 11, 3 * kGiB), 6u);
  // 80% of 3.5 GiB (2.8): two fronts and six past them (2.75), seven would be 2.875.
  EXPECT_EQ(stream_window(kGiB, kGiB / 8, 2, 6, 11, 7 * kGiB / 2), 8u);
  // One front: 80% of 2 GiB (1.6) holds it and four frames past it (1.5), not five (1.625).
  EXPECT_EQ(stream_window(kGiB, kGiB / 8, 1, 2, 11, 2 * kGiB), 5u);
  // Memory not known: the whole window; the least never above the most.
  EXPECT_EQ(stream_window(kGiB, kGiB / 8, 2, 6, 11, 0), 11u);
  EXPECT_EQ(stream_window(kGiB, kGiB / 8, 2, 6, 3, kGiB), 3u);
  // A frame that cannot be planned: the least (the plan then sends it to the CPU).
  EXPECT_EQ(stream_window(std::numeric_limits<int64_t>::max(), kGiB, 2, 6, 11, 80 * kGiB), 6u);
}

TEST(DeviceMemoryPlan, AStreamKeepsThePageLockedHostImagesInItsBudget) {
  // 128 MiB of host images a frame: a 16 GiB budget holds 128 of them, a 1 GiB one 8, 512 MiB
  // four (fewer than the least, 6: the least).
  EXPECT_EQ(host_image_window(kGiB / 8, 6, 11, 16 * kGiB), 11u);
  EXPECT_EQ(host_image_window(kGiB / 8, 6, 11, kGiB), 8u);
  EXPECT_EQ(host_image_window(kGiB / 8, 6, 11, kGiB / 2), 6u);
  EXPECT_EQ(host_image_window(0, 6, 11, kGiB), 11u);
  EXPECT_EQ(host_image_window(kGiB, 6, 3, 1), 3u);
}

TEST(DeviceMemoryPlan, AFrameTooLargeForTheStreamsLoadWaitsForFewerFramesInFlight) {
  // 1 GiB a frame in the front end, 128 MiB of images past it; the planned load six frames (two
  // in the front end), eleven at most. plan(fronts, device) as {window, fronts, back_frames}.
  const int64_t f = kGiB, im = kGiB / 8;
  auto plan = [&](size_t gpu_fronts, size_t planned, int64_t device) {
    const StreamFramePlan p = stream_frame_plan(f, im, gpu_fronts, planned, 11, device);
    return std::vector<size_t>{p.window, p.fronts, p.back_frames};
  };
  using V = std::vector<size_t>;
  // 80% of 4 GiB holds the planned load and more: the planned load, eleven in flight.
  EXPECT_EQ(plan(2, 6, 4 * kGiB), (V{11, 2, 4}));
  // 80% of 2.6 GiB (2.08) holds two fronts (2.0), not a frame past them as well (2.125), nor
  // the planned 2.5.
  EXPECT_EQ(plan(2, 6, 13 * kGiB / 5), (V{2, 2, 0}));
  // 80% of 2.25 GiB (1.8): two frames in flight may both be in the front end (2.0), so one
  // alone (1.0); more past it would need a second frame in flight, which could be a front.
  EXPECT_EQ(plan(2, 6, 9 * kGiB / 4), (V{1, 1, 0}));
  // With one front (a stream of one front thread): 80% of 1.5 GiB (1.2) holds it and one past
  // it (1.125), not two (1.25).
  EXPECT_EQ(plan(1, 5, 3 * kGiB / 2), (V{2, 1, 1}));
  // 80% of 1.3 GiB (1.04): the frame alone.
  EXPECT_EQ(plan(2, 6, 13 * kGiB / 10), (V{1, 1, 0}));
  // Not even alone (80% of 1 GiB): planned alone, so that the refusal names the frame, with
  // the planned window (it holds no device memory).
  EXPECT_EQ(plan(2, 6, kGiB), (V{6, 1, 0}));
  EXPECT_NE(gpu_frame_refusal(16384, 16384, stream_device_bytes(f, im, 1, 0), kGiB), "");
  // Memory not known: the planned load, the whole window.
  EXPECT_EQ(plan(2, 6, 0), (V{11, 2, 4}));
  // A frame that cannot be planned: alone, the planned window.
  const StreamFramePlan p =
      stream_frame_plan(std::numeric_limits<int64_t>::max(), im, 2, 6, 11, 80 * kGiB);
  EXPECT_EQ(p.window, 6u);
  EXPECT_EQ(p.fronts, 1u);
}
