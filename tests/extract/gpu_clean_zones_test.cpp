// Cleaning's pairs found on the GPU (gpu/clean_zones_gpu.hpp) against the host's clean_zones,
// entry for entry: random objects of every size (most small, some of tens of pixels, a few
// larger than the frame), positions outside the image, NaN and infinite positions and axes,
// ties in position, the objects of a crowded simulated frame, one object, none, and a frame with
// more large objects than the GPU takes (then false, the zones untouched); and the range form's
// zones of a range of newcomers against the host's; CLEAN's decisions for the pairs made beside
// them against the host's; and the zones found after the GPU shapes from device columns
// (zones_after_shapes.hpp). Skipped without a CUDA device.
#ifdef CELERIS_HAVE_CUDA

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "celeris/device.hpp"
#include "core/cuda/device_buffer.hpp"
#include "core/cuda/stream.hpp"
#include "extract/gpu/clean_zones_gpu.hpp"
#include "extract/gpu/zones_after_shapes.hpp"
#include "extract/stages/clean_pairs.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

std::vector<Shape> random_shapes(size_t n, int width, int height, uint64_t seed, bool odd) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Shape> shapes(n);
  for (size_t i = 0; i < n; ++i) {
    Shape& s = shapes[i];
    s.mx = u(rng) * (width + 40) - 20;                           // some outside the image
    s.my = (static_cast<double>(i) + u(rng) * 30) * height / n;  // roughly in detection order
    const double r = u(rng);
    // Mostly small; 2% of 8-48 px and 0.2% of 60-300 px, in every tier of the GPU's grids and
    // beyond them (the large ones: fewer than kZoneMaxLarge in every case).
    s.a = r < 0.9     ? 0.3 + 3 * u(rng)
          : r < 0.98  ? 8 * u(rng)
          : r < 0.998 ? 8 + 40 * u(rng)
                      : 60 + 240 * u(rng);
    if (odd && i % 997 == 5) s.mx = std::numeric_limits<double>::quiet_NaN();
    if (odd && i % 1009 == 7) s.a = std::numeric_limits<double>::quiet_NaN();
    if (odd && i % 4999 == 11) s.my = std::numeric_limits<double>::infinity();
    if (odd && i == n / 2) s.a = std::numeric_limits<double>::infinity();
    if (odd && i % 53 == 3 && i > 0) s.mx = shapes[i - 1].mx, s.my = shapes[i - 1].my;
    if (odd && i == n / 3) s.a = 3 * width;  // larger than the frame
  }
  return shapes;
}

// Each newcomer's flags from its codes (ZonePairCodes): kPairFlagFires, a code of 1 or 2;
// kPairFlagUnsure, one left to the pow. `offset`: the newcomers' zones (CleanZones::offset).
std::vector<uint8_t> flags_of(const std::vector<uint8_t>& codes,
                              const std::vector<int64_t>& offset) {
  std::vector<uint8_t> flags(offset.size() - 1, 0);
  for (size_t z = 0; z < flags.size(); ++z)
    for (int64_t k = offset[z]; k < offset[z + 1]; ++k)
      flags[z] |= codes[k] == kCleanPairUnsure     ? kPairFlagUnsure
                  : codes[k] == 1 || codes[k] == 2 ? kPairFlagFires
                                                   : 0;
  return flags;
}

void expect_same_zones(const std::vector<Shape>& shapes, int width, int height) {
  const CleanZones want = clean_zones(shapes, 2);
  CleanZones got;
  ASSERT_TRUE(gpu::clean_zones_gpu(shapes, width, height, 2, got));
  ASSERT_EQ(got.offset, want.offset);
  ASSERT_EQ(got.neighbours, want.neighbours);
  // The range form (a pipelined back end's chunks): the zones of a middle range and of the
  // last objects, from the objects up to the range's end.
  const size_t n = shapes.size();
  for (const auto& [begin, end] : {std::pair{n / 3, 2 * n / 3}, std::pair{n - n / 5, n}}) {
    const CleanZones part = clean_zones(shapes, begin, end, 2);
    CleanZones got_part;
    ASSERT_TRUE(gpu::clean_zones_gpu(shapes, begin, end, width, height, 2, got_part));
    EXPECT_EQ(got_part.first, begin);
    ASSERT_EQ(got_part.offset, part.offset);
    ASSERT_EQ(got_part.neighbours, part.neighbours);
  }
  // Consecutive chunks, each from where the last ended (the device keeps the earlier points),
  // under a key of their own: a frame whose shapes sit where an earlier frame's were, and whose
  // chunk begins where one of that frame's ended, reuses nothing of it.
  static uint64_t frames = 0;
  const uint64_t frame = ++frames;
  size_t begin = 0;
  for (const size_t end : {n / 10, n / 2, n / 2, 3 * n / 4, n}) {
    const CleanZones part = clean_zones(shapes, begin, end, 2);
    CleanZones got_part;
    ASSERT_TRUE(gpu::clean_zones_gpu(shapes, begin, end, width, height, 2, got_part, nullptr,
                                     nullptr, nullptr, frame));
    ASSERT_EQ(got_part.offset, part.offset);
    ASSERT_EQ(got_part.neighbours, part.neighbours);
    begin = end;
  }
}

}  // namespace

TEST(GpuCleanZones, EqualTheHostsPairs) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  size_t pairs = 0;
  for (const auto& [n, w, h, seed, odd] :
       {std::tuple{2000, 512, 512, 1, false}, std::tuple{20000, 4096, 4096, 2, false},
        std::tuple{30000, 2048, 2048, 3, true}, std::tuple{5000, 300, 7000, 4, true},
        std::tuple{1, 100, 100, 5, false}, std::tuple{0, 100, 100, 6, false},
        std::tuple{700, 64, 64, 7, true}}) {
    const auto shapes = random_shapes(static_cast<size_t>(n), w, h, seed, odd);
    expect_same_zones(shapes, w, h);
    pairs += clean_zones(shapes, 2).neighbours.size();
  }
  EXPECT_GT(pairs, 100000u);
}

// A frame whose shapes sit where the last frame's were (a column pool's vector, or freed memory
// come back), chunked as it was: its second chunk begins where the last frame's first ended,
// and reuses none of that frame's points (the key tells the frames apart, the address cannot).
TEST(GpuCleanZones, AFrameInTheLastFramesMemoryReusesNothingOfIt) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const size_t n = 8000;
  std::vector<Shape> shapes = random_shapes(n, 1024, 1024, 31, false);
  CleanZones got;
  ASSERT_TRUE(
      gpu::clean_zones_gpu(shapes, 0, n / 2, 1024, 1024, 2, got, nullptr, nullptr, nullptr, 1001));
  const std::vector<Shape> next = random_shapes(n, 1024, 1024, 32, false);
  const Shape* before = shapes.data();
  std::copy(next.begin(), next.end(), shapes.begin());
  ASSERT_EQ(shapes.data(), before);
  ASSERT_TRUE(
      gpu::clean_zones_gpu(shapes, n / 2, n, 1024, 1024, 2, got, nullptr, nullptr, nullptr, 1002));
  const CleanZones want = clean_zones(shapes, n / 2, n, 2);
  EXPECT_GT(want.neighbours.size(), 1000u);
  EXPECT_EQ(got.offset, want.offset);
  EXPECT_EQ(got.neighbours, want.neighbours);
}

// CLEAN's decisions made beside the zones (ZonePairsRequest) against the host's
// clean_pair_sure, pair for pair: random profiles, fluxes, ellipses and thresholds, some pairs
// built with amp / val at the float boundary above the threshold (left to the pow on both), with
// CLEAN_PARAM 1 and 2.5 (where only profiles of val <= 1 or >= 1e10 are certain), whole and by
// range.
TEST(GpuCleanZones, PairCodesEqualTheHosts) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  long unsure = 0, decided = 0;
  for (const auto& [seed, odd, beta] :
       {std::tuple{21, false, 1.0}, std::tuple{22, true, 1.0}, std::tuple{23, false, 2.5}}) {
    const size_t n = 20000;
    const std::vector<Shape> shapes = random_shapes(n, 2048, 2048, seed, odd);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<CleanPairInput> in(n);
    for (size_t i = 0; i < n; ++i) {
      CleanPairInput& p = in[i];
      p.mx = shapes[i].mx, p.my = shapes[i].my;
      p.amp = std::pow(10.0, 4 * u(rng));
      p.alpha = std::pow(10.0, -3 + 3 * u(rng));
      p.flux = static_cast<float>(std::pow(10.0, 4 * u(rng)));
      p.cxx = static_cast<float>(0.05 + u(rng)), p.cyy = static_cast<float>(0.05 + u(rng));
      p.cxy = static_cast<float>(0.4 * u(rng) - 0.2);
      p.mthresh = static_cast<float>(std::pow(10.0, 2 * u(rng)));
    }
    const CleanZones zones = clean_zones(shapes, 2);
    // Every 40th pair: the tested profile's amplitude put where amp / val is the boundary.
    for (size_t i = 0; i < n; ++i)
      for (int64_t k = zones.offset[i]; k < zones.offset[i + 1]; ++k) {
        if (k % 40 != 0) continue;
        const uint32_t o = zones.neighbours[k];
        const CleanPairTest t = clean_pair_test(in[i], in[o]);
        if (!(t.val > 1.0 && t.val < 1e10) || !(t.level > 0)) continue;
        const double up = (static_cast<double>(t.level) +
                           std::nextafter(t.level, std::numeric_limits<float>::infinity())) /
                          2;
        (t.victim ? in[i] : in[o]).amp = up * t.val;
      }
    std::vector<uint8_t> want(zones.neighbours.size());
    for (size_t i = 0; i < n; ++i)
      for (int64_t k = zones.offset[i]; k < zones.offset[i + 1]; ++k) {
        want[k] = clean_pair_sure(in[i], in[zones.neighbours[k]], beta);
        unsure += want[k] == kCleanPairUnsure;
        decided += want[k] != kCleanPairUnsure;
      }
    gpu::ZonePairsRequest request;
    request.beta = beta;
    request.inputs = [&](size_t from, size_t to, CleanPairInput* out, int) {
      std::copy(in.begin() + static_cast<std::ptrdiff_t>(from),
                in.begin() + static_cast<std::ptrdiff_t>(to), out);
    };
    CleanZones got;
    gpu::ZonePairCodes codes;
    ASSERT_TRUE(gpu::clean_zones_gpu(shapes, 0, n, 2048, 2048, 2, got, nullptr, &request, &codes));
    ASSERT_EQ(got.neighbours, zones.neighbours);
    ASSERT_EQ(codes.codes, want) << "seed " << seed;
    ASSERT_EQ(codes.flags, flags_of(want, zones.offset)) << "seed " << seed;
    // A range of newcomers: its pairs' codes are the whole frame's, sliced.
    const size_t begin = n / 3, end = 2 * n / 3;
    ASSERT_TRUE(
        gpu::clean_zones_gpu(shapes, begin, end, 2048, 2048, 2, got, nullptr, &request, &codes));
    const std::vector<uint8_t> slice(want.begin() + zones.offset[begin],
                                     want.begin() + zones.offset[end]);
    ASSERT_EQ(codes.codes, slice) << "seed " << seed << ", range";
    ASSERT_EQ(codes.flags, flags_of(slice, clean_zones(shapes, begin, end, 2).offset))
        << "seed " << seed << ", range";
  }
  EXPECT_GT(unsure, 1000);
  EXPECT_GT(decided, 100000);
}

TEST(GpuCleanZones, TooManyLargeObjectsLeaveItToTheHost) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<Shape> shapes(static_cast<size_t>(gpu::kZoneMaxLarge) + 10);
  for (size_t i = 0; i < shapes.size(); ++i)
    shapes[i].mx = static_cast<double>(i), shapes[i].my = 1.0, shapes[i].a = 20.0;
  CleanZones zones;
  zones.offset = {7};
  EXPECT_FALSE(gpu::clean_zones_gpu(shapes, 4096, 4096, 2, zones));
  EXPECT_EQ(zones.offset, std::vector<int64_t>{7});
  shapes.resize(static_cast<size_t>(gpu::kZoneMaxLarge));  // exactly the limit: taken
  EXPECT_TRUE(gpu::clean_zones_gpu(shapes, 4096, 4096, 2, zones));
  EXPECT_EQ(zones.offset, clean_zones(shapes, 2).offset);
}

// The zones found after the shapes from their columns on the device (zones_after_shapes.hpp):
// random shapes and isophotal values uploaded, some objects' device entries garbage and their
// values given from the host instead (the objects the GPU shapes leave to the host), against the
// host's zones and clean_pair_sure's decisions from the host's columns; without decisions; no
// objects; and too many large objects (false).
TEST(GpuCleanZones, ZonesAfterTheShapesEqualTheHosts) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const auto& [n, side, seed, decide] :
       {std::tuple{20000, 2048, 41, true}, std::tuple{5000, 700, 42, false},
        std::tuple{3000, 300, 43, true}}) {
    const size_t nz = static_cast<size_t>(n);
    std::vector<Shape> shapes = random_shapes(nz, side, side, static_cast<uint64_t>(seed), true);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<Iso> isos(nz);
    for (size_t i = 0; i < nz; ++i) {
      Shape& s = shapes[i];
      s.b = s.a * (0.3 + 0.7 * u(rng));
      s.flux = std::pow(10.0, 1 + 4 * u(rng));
      s.npix = 3 + static_cast<int>(200 * u(rng));
      s.abcor = static_cast<float>(0.8 + 0.2 * u(rng));
      s.cxx = 0.05 + u(rng), s.cyy = 0.05 + u(rng), s.cxy = 0.4 * u(rng) - 0.2;
      isos[i].dthresh = static_cast<float>(5 + 10 * u(rng));
      isos[i].mthresh = static_cast<float>(std::pow(10.0, 2 * u(rng)));
    }
    // Every 97th object's device entries are garbage; the host's values stand for them.
    std::vector<size_t> host;
    std::vector<Shape> on_device = shapes;
    std::vector<Iso> isos_on_device = isos;
    for (size_t i = 3; i < nz; i += 97) {
      host.push_back(i);
      on_device[i].mx = on_device[i].my = -1e6, on_device[i].a = 1e5;
      isos_on_device[i].mthresh = -1;
    }
    cuda::DeviceBuffer<Shape> ds(nz);
    cuda::DeviceBuffer<Iso> di(nz);
    ds.upload(on_device.data(), nz);
    di.upload(isos_on_device.data(), nz);
    cuda::Event ready(false);
    ready.record();
    gpu::ZonesAfterShapes z(side, side, 1.0, decide);
    z.count(ready.get(), ds.data(), di.data(), nz, host, shapes, isos);
    z.list();
    CleanZones got;
    gpu::ZonePairCodes codes;
    ASSERT_TRUE(z.collect(nz, got, &codes, nullptr));
    const CleanZones want = clean_zones(shapes, 2);
    ASSERT_EQ(got.offset, want.offset) << "seed " << seed;
    ASSERT_EQ(got.neighbours, want.neighbours) << "seed " << seed;
    std::vector<uint8_t> want_codes;
    if (decide) {
      std::vector<CleanPairInput> in(nz);
      for (size_t i = 0; i < nz; ++i)
        in[i] = clean_pair_input(shapes[i], isos[i], CleanProfile(shapes[i], isos[i].dthresh, 1.0));
      for (size_t i = 0; i < nz; ++i)
        for (int64_t k = want.offset[i]; k < want.offset[i + 1]; ++k)
          want_codes.push_back(clean_pair_sure(in[i], in[want.neighbours[k]], 1.0));
    }
    ASSERT_EQ(codes.codes, want_codes) << "seed " << seed;
    ASSERT_EQ(codes.flags, decide ? flags_of(want_codes, want.offset) : std::vector<uint8_t>{})
        << "seed " << seed;
    EXPECT_GT(want.neighbours.size(), nz);
  }
  // No objects: no zones, nothing queued.
  {
    gpu::ZonesAfterShapes z(100, 100, 1.0, true);
    CleanZones got;
    got.neighbours = {1, 2};
    gpu::ZonePairCodes codes{{1}, {1}};
    EXPECT_TRUE(z.collect(0, got, &codes, nullptr));
    EXPECT_EQ(got.offset, std::vector<int64_t>{0});
    EXPECT_TRUE(got.neighbours.empty());
    EXPECT_TRUE(codes.codes.empty());
    EXPECT_TRUE(codes.flags.empty());
  }
  // More large objects than the GPU takes: false, as clean_zones_gpu; so for another count of
  // objects than were queued.
  std::vector<Shape> large(static_cast<size_t>(gpu::kZoneMaxLarge) + 10);
  for (size_t i = 0; i < large.size(); ++i)
    large[i].mx = static_cast<double>(i), large[i].my = 1.0, large[i].a = 20.0;
  const std::vector<Iso> large_isos(large.size());
  cuda::DeviceBuffer<Shape> ds(large.size());
  cuda::DeviceBuffer<Iso> di(large.size());
  ds.upload(large.data(), large.size());
  di.upload(large_isos.data(), large.size());
  cuda::Event ready(false);
  ready.record();
  gpu::ZonesAfterShapes z(4096, 4096, 1.0, true);
  z.count(ready.get(), ds.data(), di.data(), large.size(), {}, large, large_isos);
  z.list();
  CleanZones got;
  EXPECT_FALSE(z.collect(large.size() - 1, got, nullptr, nullptr));
  EXPECT_FALSE(z.collect(large.size(), got, nullptr, nullptr));
}

#endif  // CELERIS_HAVE_CUDA
