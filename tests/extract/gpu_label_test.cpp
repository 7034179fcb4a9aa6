// The GPU labelling (gpu/kernels.hpp label(), label_kernels.cu) against a host union-find, pixel
// for pixel: parent (the component's first pixel, -1 off the mask) everywhere, count and last
// at the roots and 0 / -1 elsewhere. Masks: random at several densities and sizes that are not
// multiples of the tile, fully lit and dark frames, single rows and columns, a spiral and a snake
// that cross many tiles, links that are only diagonal (through tile corners, a checkerboard),
// NaN pixels, values exactly at the threshold. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "celeris/device.hpp"

#ifdef CELERIS_HAVE_CUDA

#include "core/cuda/device_buffer.hpp"
#include "extract/gpu/kernels.hpp"

namespace {

// A frame for label(): `lit` pixels get cvalue above the threshold; `nan` pixels a NaN value
// (off whatever their cvalue); `at` pixels a cvalue equal to the threshold (off: the test is >).
struct Mask {
  int width = 0, height = 0;
  std::vector<uint8_t> lit;

  Mask(int w, int h) : width(w), height(h), lit(static_cast<size_t>(w) * h, 0) {}
  void set(int x, int y) { lit[static_cast<size_t>(y) * width + x] = 1; }
};

constexpr float kThreshold = 0.5f;

struct Frame {
  std::vector<float> value, cvalue;
};

// Lit pixels: cvalue 1. Off pixels: cvalue 0, or the threshold itself, or lit in cvalue with a
// NaN value (the three ways a pixel is off the mask), chosen at random.
Frame frame_of(const Mask& m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Frame f{std::vector<float>(m.lit.size(), 0.0f), std::vector<float>(m.lit.size(), 0.0f)};
  for (size_t p = 0; p < m.lit.size(); ++p) {
    if (m.lit[p]) {
      f.cvalue[p] = 1.0f;
      continue;
    }
    switch (rng() % 4) {
      case 0:
        f.cvalue[p] = kThreshold;
        break;
      case 1:
        f.cvalue[p] = 1.0f;
        f.value[p] = std::numeric_limits<float>::quiet_NaN();
        break;
      default:
        break;
    }
  }
  return f;
}

// The host reference: union-find over the raster with 8-connectivity, the smaller root kept.
struct Labels {
  std::vector<int32_t> parent, count, last;
};

int32_t find(std::vector<int32_t>& parent, int32_t a) {
  while (parent[a] != a) a = parent[a] = parent[parent[a]];
  return a;
}

Labels reference(const Mask& m) {
  const int w = m.width, h = m.height;
  const size_t n = m.lit.size();
  Labels r{std::vector<int32_t>(n, -1), std::vector<int32_t>(n, 0), std::vector<int32_t>(n, -1)};
  const auto on = [&](int x, int y) {
    return x >= 0 && x < w && y >= 0 && y < h && m.lit[static_cast<size_t>(y) * w + x];
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (!on(x, y)) continue;
      const int32_t p = y * w + x;
      r.parent[p] = p;
      for (auto [dx, dy] : {std::pair{-1, 0}, {-1, -1}, {0, -1}, {1, -1}}) {
        if (!on(x + dx, y + dy)) continue;
        const int32_t a = find(r.parent, p), b = find(r.parent, (y + dy) * w + x + dx);
        r.parent[std::max(a, b)] = std::min(a, b);
      }
    }
  for (size_t p = 0; p < n; ++p) {
    if (r.parent[p] < 0) continue;
    const int32_t root = find(r.parent, static_cast<int32_t>(p));
    ++r.count[root];
    r.last[root] = static_cast<int32_t>(p);
  }
  for (size_t p = 0; p < n; ++p)
    if (r.parent[p] >= 0) r.parent[p] = find(r.parent, static_cast<int32_t>(p));
  return r;
}

// The first differing index, or -1.
int64_t first_difference(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  return -1;
}

// ---- Masks
// ---------------------------------------------------------------------------------------

Mask random_mask(int w, int h, double density, uint64_t seed) {
  Mask m(w, h);
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution lit(density);
  for (auto& v : m.lit) v = lit(rng);
  return m;
}

Mask full_mask(int w, int h) {
  Mask m(w, h);
  std::fill(m.lit.begin(), m.lit.end(), 1);
  return m;
}

// A one-pixel path spiralling in from the border, a dark gap between its turns: one component
// whose last pixel is at the centre, its root at the origin, crossing every tile many times.
Mask spiral_mask(int w, int h) {
  Mask m(w, h);
  int x0 = 0, y0 = 0, x1 = w - 1, y1 = h - 1;
  while (x0 <= x1 && y0 <= y1) {
    for (int x = x0; x <= x1; ++x) m.set(x, y0);
    for (int y = y0; y <= y1; ++y) m.set(x1, y);
    if (y1 - y0 >= 2)
      for (int x = x0; x <= x1; ++x) m.set(x, y1);
    if (x1 - x0 >= 2)
      for (int y = y0 + 2; y <= y1; ++y) m.set(x0, y);
    x0 += 2;
    y0 += 2;
    x1 -= 2;
    y1 -= 2;
  }
  return m;
}

// Rows 0, 2, 4 ... lit, joined alternately at the right and the left end, the joins diagonal
// when `diagonal` (through a pixel of the odd row one step in from the end).
Mask snake_mask(int w, int h, bool diagonal) {
  Mask m(w, h);
  for (int y = 0; y < h; y += 2) {
    for (int x = 0; x < w; ++x) m.set(x, y);
    if (y + 2 >= h) break;
    const bool right = (y / 2) % 2 == 0;
    const int x = right ? w - 1 - diagonal : diagonal;
    m.set(std::max(0, std::min(w - 1, x)), y + 1);
  }
  return m;
}

// Diagonal steps only: the main diagonal and anti-diagonals, and pairs of pixels meeting at the
// corners of 32 x 16, 32 x 8, 16 x 16 ... tiles (one pixel each side of the corner).
Mask diagonal_mask(int w, int h) {
  Mask m(w, h);
  for (int i = 0; i < std::min(w, h); ++i) {
    m.set(i, i);
    if (w - 1 - i >= 0) m.set(w - 1 - i, i);
  }
  for (int y = 8; y + 1 < h; y += 8)
    for (int x = 16; x + 1 < w; x += 16) {
      if ((x / 16 + y / 8) % 2) {
        m.set(x - 1, y - 1);
        m.set(x, y);
      } else {
        m.set(x, y - 1);
        m.set(x - 1, y);
      }
    }
  return m;
}

Mask checkerboard_mask(int w, int h) {
  Mask m(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = (y % 2); x < w; x += 2) m.set(x, y);
  return m;
}

Labels device_labels(const Mask& m, uint64_t seed) {
  const Frame f = frame_of(m, seed);
  const size_t n = m.lit.size();
  celeris::cuda::DeviceBuffer<float> value(n), cvalue(n);
  celeris::cuda::DeviceBuffer<int32_t> parent(n), count(n), last(n);
  value.upload(f.value.data(), n);
  cvalue.upload(f.cvalue.data(), n);
  // Garbage first: every pixel of every output must be written.
  for (auto* b : {&parent, &count, &last})
    if (n) CELERIS_CUDA_CHECK(cudaMemset(b->data(), 0x5a, b->bytes()));
  celeris::extract::gpu::label(value.data(), cvalue.data(), kThreshold, m.width, m.height,
                               parent.data(), count.data(), last.data(), nullptr);
  CELERIS_CUDA_CHECK(cudaDeviceSynchronize());
  Labels out{std::vector<int32_t>(n), std::vector<int32_t>(n), std::vector<int32_t>(n)};
  parent.download(out.parent.data(), n);
  count.download(out.count.data(), n);
  last.download(out.last.data(), n);
  return out;
}

void expect_labels(const Mask& m, const std::string& what, uint64_t seed = 1) {
  const Labels want = reference(m);
  const Labels got = device_labels(m, seed);
  const auto where = [&](int64_t p) {
    return what + " (" + std::to_string(m.width) + " x " + std::to_string(m.height) +
           ") at pixel " + std::to_string(p % std::max(m.width, 1)) + ", " +
           std::to_string(p / std::max(m.width, 1));
  };
  if (const int64_t p = first_difference(want.parent, got.parent); p >= 0)
    ADD_FAILURE() << "parent " << got.parent[p] << ", want " << want.parent[p] << ": " << where(p);
  if (const int64_t p = first_difference(want.count, got.count); p >= 0)
    ADD_FAILURE() << "count " << got.count[p] << ", want " << want.count[p] << ": " << where(p);
  if (const int64_t p = first_difference(want.last, got.last); p >= 0)
    ADD_FAILURE() << "last " << got.last[p] << ", want " << want.last[p] << ": " << where(p);
}

}  // namespace

class GpuLabel : public ::testing::Test {
 protected:
  void SetUp() override {
    if (celeris::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(GpuLabel, RandomMasksOfOddSizes) {
  uint64_t seed = 7;
  for (auto [w, h] : {std::pair{1, 1},
                      {2, 2},
                      {31, 15},
                      {32, 16},
                      {33, 17},
                      {64, 32},
                      {65, 33},
                      {100, 3},
                      {3, 100},
                      {257, 129},
                      {1000, 999}})
    for (double density : {0.1, 0.5, 0.9}) {
      ++seed;
      expect_labels(random_mask(w, h, density, seed), "random " + std::to_string(density), seed);
    }
}

TEST_F(GpuLabel, LargeRandomMasks) {
  // Near the 8-connected percolation threshold (about 0.41) the components are largest and the
  // trees deepest; repeated, since the links across tiles race.
  for (double density : {0.4, 0.5, 0.9})
    expect_labels(random_mask(4096, 4096, density, 99), "random 4096 " + std::to_string(density));
  for (int run = 0; run < 3; ++run)
    expect_labels(random_mask(2048, 2047, 0.45, 5 + run), "random 2048 0.45");
}

TEST_F(GpuLabel, FullAndDarkFrames) {
  for (auto [w, h] : {std::pair{1, 1}, {33, 17}, {1000, 999}, {4096, 1024}}) {
    expect_labels(full_mask(w, h), "fully lit");
    expect_labels(Mask(w, h), "dark");
  }
}

TEST_F(GpuLabel, EmptyFrameWritesNothing) {
  celeris::extract::gpu::label(nullptr, nullptr, kThreshold, 0, 0, nullptr, nullptr, nullptr,
                               nullptr);
  celeris::extract::gpu::label(nullptr, nullptr, kThreshold, 5, 0, nullptr, nullptr, nullptr,
                               nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(GpuLabel, SingleRowsAndColumns) {
  for (int len : {1, 31, 32, 33, 5000}) {
    expect_labels(random_mask(len, 1, 0.6, len), "row");
    expect_labels(random_mask(1, len, 0.6, len), "column");
    expect_labels(full_mask(len, 1), "lit row");
    expect_labels(full_mask(1, len), "lit column");
  }
}

TEST_F(GpuLabel, SpiralsAndSnakes) {
  for (auto [w, h] : {std::pair{5, 5}, {67, 45}, {300, 300}, {1001, 517}}) {
    expect_labels(spiral_mask(w, h), "spiral");
    expect_labels(snake_mask(w, h, false), "snake");
    expect_labels(snake_mask(w, h, true), "diagonal snake");
  }
}

TEST_F(GpuLabel, DiagonalLinksOnly) {
  for (auto [w, h] : {std::pair{2, 2}, {33, 17}, {97, 65}, {1000, 999}}) {
    expect_labels(diagonal_mask(w, h), "diagonals");
    expect_labels(checkerboard_mask(w, h), "checkerboard");
  }
  expect_labels(checkerboard_mask(4096, 4096), "checkerboard");
}

#else

TEST(GpuLabel, NeedsCuda) {
  GTEST_SKIP() << "built without CUDA";
}

#endif
