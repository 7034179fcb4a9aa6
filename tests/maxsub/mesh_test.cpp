// The paper's mesh Algorithms 38 and 39, run serially on the CPU through the same cell program as
// the CUDA mesh (src/maxsub/mesh.hpp), against an independent brute force: random arrays, ties,
// all-negative, thin shapes, transposed grids and excluded (blocked) cells.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "maxsub/mesh.hpp"

namespace msd = celeris::maxsub::detail;

namespace {

struct Best {
  double sum;
  int top, left, bottom, right;  // image coordinates; top < 0: none
  bool operator==(const Best&) const = default;
};

// Every rectangle of the w x h image summed pixel by pixel; the first of the documented order
// (sum desc, then top, left, bottom, right asc), skipping rectangles with a blocked pixel.
Best brute(const std::vector<double>& a, const std::vector<uint8_t>& blocked, int w, int h) {
  Best best{-INFINITY, -1, 0, 0, 0};
  for (int t = 0; t < h; ++t)
    for (int l = 0; l < w; ++l)
      for (int b = t; b < h; ++b)
        for (int r = l; r < w; ++r) {
          double s = 0;
          bool ok = true;
          for (int y = t; y <= b; ++y)
            for (int x = l; x <= r; ++x) {
              s += a[size_t(y) * w + x];
              ok = ok && !(blocked.size() && blocked[size_t(y) * w + x]);
            }
          if (ok && s > best.sum) best = {s, t, l, b, r};
        }
  if (best.top < 0) best.sum = 0;
  return best;
}

// The mesh on the image (transposed = false) or on its transpose with results mapped back.
Best mesh(bool prefix, const std::vector<double>& a, const std::vector<uint8_t>& blocked, int w,
          int h, bool transposed) {
  std::vector<double> g = a;
  std::vector<uint8_t> gb = blocked;
  int m = h, n = w;
  if (transposed) {
    m = w, n = h;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        g[size_t(x) * n + y] = a[size_t(y) * w + x];
        if (!blocked.empty()) gb[size_t(x) * n + y] = blocked[size_t(y) * w + x];
      }
  }
  const msd::MeshRect<double> r = msd::mesh_emulate(prefix, g, gb, m, n, transposed);
  return {r.top < 0 ? 0 : r.sum, r.top, r.left, r.bottom, r.right};
}

std::vector<double> random_ints(std::mt19937& rng, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<double> a(n);
  for (double& v : a) v = d(rng);
  return a;
}

void expect_mesh_equals_brute(const std::vector<double>& a, const std::vector<uint8_t>& blocked,
                              int w, int h) {
  const Best ref = brute(a, blocked, w, h);
  for (bool prefix : {true, false})
    for (bool transposed : {false, true})
      EXPECT_EQ(mesh(prefix, a, blocked, w, h, transposed), ref)
          << (prefix ? "alg38" : "alg39") << (transposed ? " transposed" : "") << " on " << w
          << " x " << h;
}

}  // namespace

TEST(MaxsubMesh, PaperExample4x8) {
  const std::vector<double> a = {-1, 2,  -3, 5,  -4, -8, 3,  -3,  //
                                 2,  -4, -6, -8, 2,  -5, 4,  1,   //
                                 3,  -2, 9,  -9, 3,  6,  -5, 2,   //
                                 1,  -3, 5,  -7, 8,  -2, 2,  -6};
  for (bool prefix : {true, false})
    EXPECT_EQ(mesh(prefix, a, {}, 8, 4, false), (Best{15, 2, 4, 3, 5}));
  expect_mesh_equals_brute(a, {}, 8, 4);
}

TEST(MaxsubMesh, RandomMixedSignsAndTies) {
  std::mt19937 rng(31);
  for (int it = 0; it < 300; ++it) {
    const int w = 1 + int(rng() % 9), h = 1 + int(rng() % 9);
    const int lo = it % 2 ? -1 : -9;  // -1..1: zeros everywhere, many equal sums
    expect_mesh_equals_brute(random_ints(rng, size_t(w) * h, lo, -lo), {}, w, h);
  }
}

TEST(MaxsubMesh, AllNegativeAllPositiveThin) {
  std::mt19937 rng(32);
  for (int it = 0; it < 40; ++it) {
    const int w = 1 + int(rng() % 7), h = 1 + int(rng() % 7);
    expect_mesh_equals_brute(random_ints(rng, size_t(w) * h, -20, -1), {}, w, h);
    expect_mesh_equals_brute(random_ints(rng, size_t(w) * h, 1, 20), {}, w, h);
  }
  for (int n : {1, 2, 13}) {
    expect_mesh_equals_brute(random_ints(rng, n, -5, 5), {}, n, 1);
    expect_mesh_equals_brute(random_ints(rng, n, -5, 5), {}, 1, n);
  }
  expect_mesh_equals_brute(std::vector<double>(12, 0.0), {}, 4, 3);
}

TEST(MaxsubMesh, BlockedCellsBreakRectangles) {
  std::mt19937 rng(33);
  for (int it = 0; it < 150; ++it) {
    const int w = 1 + int(rng() % 8), h = 1 + int(rng() % 8);
    const std::vector<double> a = random_ints(rng, size_t(w) * h, -6, 6);
    std::vector<uint8_t> blocked(a.size());
    for (uint8_t& b : blocked) b = rng() % 4 == 0;
    if (it % 10 == 0) std::fill(blocked.begin(), blocked.end(), 1);  // nothing left: none
    expect_mesh_equals_brute(a, blocked, w, h);
  }
}
