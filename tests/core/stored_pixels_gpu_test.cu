// Pixels left as the file stores them (core/stored_pixels.hpp), finished on the device
// (core/cuda/stored_pixels.hpp) and on the host (convert_stored_in_place, the reader's own
// conversion): the same bits for every value. Random values with the special ones mixed in (zero
// and all-ones exponents, magnitudes about 1e30 after scaling, BLANK), BITPIX -32, 32 and 16,
// with and without scaling and BLANK, over more values than one pass of the kernel's grid covers.
// Skipped without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/stored_pixels.hpp"
#include "core/fits_pixels.hpp"

namespace {

using Type = celeris::StoredPixels::Type;

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// n big-endian values of `type` (4 bytes each, 2 for Int16), packed: random, one in about ten
// special.
std::vector<unsigned char> stored_values(Type type, size_t n, long long blank,
                                         std::mt19937_64& rng) {
  const size_t b = type == Type::Int16 ? 2 : 4;
  std::vector<unsigned char> out(n * b);
  std::uniform_int_distribution<int> pick(0, 39);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    uint32_t bits = static_cast<uint32_t>(r);
    const int k = pick(rng);
    if (type == Type::Float32) {
      const uint32_t sign = static_cast<uint32_t>(r >> 63) << 31, mant = bits & 0x7FFFFFu;
      if (k == 0) bits = sign | 0x7F800000u | mant;  // infinity or NaN
      if (k == 1) bits = sign | mant;                // zero or denormal
      if (k == 2) bits = bits_of(1e30f) + static_cast<uint32_t>(r >> 60) - 8u;
      if (k == 3) bits = sign | (static_cast<uint32_t>(100 + (r >> 58) % 40) << 23) | mant;
    } else {
      if (k == 0) bits = static_cast<uint32_t>(blank);
      if (k == 1) bits = static_cast<uint32_t>(static_cast<int32_t>(r >> 40) % 1000);
    }
    for (size_t j = 0; j < b; ++j)  // big-endian
      out[i * b + j] = static_cast<unsigned char>(bits >> (8 * (b - 1 - j)));
  }
  return out;
}

}  // namespace

TEST(StoredPixelsGpu, DeviceConversionIsTheHostsToTheBit) {
  if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(17);
  // More words than 4096 blocks of 256 threads take in one pass.
  const size_t n = (size_t(1) << 22) + 12345;
  struct Case {
    Type type;
    float bs, bz;
    bool has_blank;
    long long blank;
    bool nans;  // whether some words become NaN
  };
  const Case cases[] = {
      {Type::Float32, 1.0f, 0.0f, false, 0, true},
      {Type::Float32, 0.37f, 32768.5f, false, 0, true},
      {Type::Float32, 0x1p90f, 0.0f, false, 0, true},  // large values scaled past 1e30: masked
      {Type::Float32, -1.5f, 1e-3f, false, 0, true},
      {Type::Int32, 1.0f, 0.0f, false, 0, false},
      {Type::Int32, 0.001f, 0.0f, true, -2147483647LL - 1, true},
      {Type::Int32, 0.37f, 32768.5f, true, -1234, true},
      {Type::Int32, 0x1p90f, -7.0f, false, 0, true},
      {Type::Int32, 1.0f, 0.0f, true, 1LL << 40, false},  // a BLANK no 32-bit value equals
      {Type::Int16, 1.0f, 32768.0f, true, -32768, true},  // unsigned 16-bit, as cameras write
      {Type::Int16, 1.0f, 0.0f, false, 0, false},
      {Type::Int16, 0.37f, -12.5f, true, 77, true},
      {Type::Int16, 0x1p100f, 0.0f, false, 0, true},  // scaled past 1e30: masked
  };
  for (const Case& c : cases) {
    const std::vector<unsigned char> bytes = stored_values(c.type, n, c.blank, rng);
    celeris::StoredPixels stored{c.type, c.bs, c.bz, c.has_blank, c.blank};
    // The values packed at the start of the floats' memory, as a reader leaves them.
    std::vector<float> as_floats(n), device(n);
    std::memcpy(as_floats.data(), bytes.data(), bytes.size());
    // On the device: 4-byte values in place (as the front end converts them), 2-byte ones from
    // a buffer of their own into the floats.
    celeris::cuda::DeviceBuffer<float> d(n), widened(n);
    d.upload(as_floats.data(), n);
    float* to = stored.value_bytes() == 4 ? d.data() : widened.data();
    celeris::cuda::convert_stored(d.data(), to, n, stored, nullptr);
    (stored.value_bytes() == 4 ? d : widened).download(device.data(), n);
    // On the host, as a frame sent to the CPU is.
    celeris::convert_stored_in_place({as_floats.data(), static_cast<int64_t>(n), 1}, stored);
    EXPECT_TRUE(stored.converted());
    size_t nans = 0, differ = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t h = bits_of(as_floats[i]);
      const uint32_t g = bits_of(device[i]);
      nans += as_floats[i] != as_floats[i];
      if (h != g && differ++ < 5)
        ADD_FAILURE() << "type " << int(c.type) << " bscale " << c.bs << " word " << i << ": host "
                      << std::hex << h << ", device " << g;
    }
    EXPECT_EQ(differ, 0u);
    // The special words were there (or could not be), and most words are finite pixels.
    EXPECT_EQ(nans > 0, c.nans) << "type " << int(c.type) << " bscale " << c.bs;
    EXPECT_LT(nans, c.bs > 1e20f ? n : n / 2);
  }
}
