// celeris maxsub: every method against the brute-force reference, the paper's example, the
// K-maximum extensions and the maximum convex sum against exhaustive enumeration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/maxsub.hpp"

namespace ms = celeris::maxsub;

namespace {

// A former --method spelling as options (algorithm + device), and with a precision.
ms::Options M(const char* method) {
  return ms::parse_method(method);
}
ms::Options with(ms::Options o, ms::Precision p, ms::GpuTimes* times = nullptr) {
  o.precision = p;
  o.gpu_times = times;
  return o;
}

struct Array {
  int w, h;
  std::vector<double> a;
};

// Integer-valued pixels: every sum is exact in float and double, so ties are real ties.
Array random_ints(std::mt19937& rng, int w, int h, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  Array r{w, h, std::vector<double>(size_t(w) * h)};
  for (double& v : r.a) v = d(rng);
  return r;
}

// The reference, written independently of the library: every rectangle, summed pixel by pixel,
// the first in the documented order (sum desc, then top, left, bottom, right asc).
ms::Rect brute(const Array& x, const std::vector<char>& blocked = {}) {
  ms::Rect best{-INFINITY, -1, -1, -1, -1};
  for (int t = 0; t < x.h; ++t)
    for (int l = 0; l < x.w; ++l)
      for (int b = t; b < x.h; ++b)
        for (int r = l; r < x.w; ++r) {
          double s = 0;
          bool ok = true;
          for (int y = t; y <= b; ++y)
            for (int c = l; c <= r; ++c) {
              s += x.a[size_t(y) * x.w + c];
              if (!blocked.empty() && blocked[size_t(y) * x.w + c]) ok = false;
            }
          if (ok && s > best.sum) best = {s, t, l, b, r};
        }
  return best;
}

const ms::Options kMethods[] = {M("brute"), M("alg8"), M("alg9"), M("cpu")};
const ms::Precision kPrecisions[] = {ms::Precision::Double, ms::Precision::Float};

void expect_all_methods(const Array& x) {
  const ms::Rect ref = brute(x);
  for (const ms::Options& m : kMethods)
    for (ms::Precision p : kPrecisions) {
      const ms::Rect got = ms::max_subarray(x.a, x.w, x.h, with(m, p));
      EXPECT_EQ(got, ref) << ms::method_name(m) << (p == ms::Precision::Float ? " float" : "")
                          << " on " << x.w << " x " << x.h;
    }
}

}  // namespace

TEST(MaxsubRect, PaperExample4x8) {
  // Section 2 of the paper: s = 15 between (3,5) and (4,6), 1-based (row, column).
  const Array x{8, 4, {-1, 2,  -3, 5,  -4, -8, 3,  -3,  //
                       2,  -4, -6, -8, 2,  -5, 4,  1,   //
                       3,  -2, 9,  -9, 3,  6,  -5, 2,   //
                       1,  -3, 5,  -7, 8,  -2, 2,  -6}};
  for (const ms::Options& m : kMethods) {
    const ms::Rect r = ms::max_subarray(x.a, x.w, x.h, with(m, ms::Precision::Double));
    EXPECT_EQ(r, (ms::Rect{15, 2, 4, 3, 5})) << ms::method_name(m);
  }
  expect_all_methods(x);
  // Transposed (taller than wide) the answer transposes.
  Array t{4, 8, std::vector<double>(32)};
  for (int y = 0; y < 4; ++y)
    for (int c = 0; c < 8; ++c) t.a[size_t(c) * 4 + y] = x.a[size_t(y) * 8 + c];
  EXPECT_EQ(ms::max_subarray(t.a, 4, 8), (ms::Rect{15, 4, 2, 5, 3}));
}

TEST(MaxsubRect, RandomMixedSigns) {
  std::mt19937 rng(1);
  for (int it = 0; it < 200; ++it) {
    const int w = 1 + int(rng() % 9), h = 1 + int(rng() % 9);
    expect_all_methods(random_ints(rng, w, h, -9, 9));
  }
}

TEST(MaxsubRect, TiesEverywhere) {
  std::mt19937 rng(2);
  for (int it = 0; it < 200; ++it) {
    const int w = 1 + int(rng() % 8), h = 1 + int(rng() % 8);
    expect_all_methods(random_ints(rng, w, h, -1, 1));  // zeros make many equal sums
  }
  expect_all_methods({5, 4, std::vector<double>(20, 0.0)});  // all zero: the top-left pixel
  expect_all_methods({6, 3, std::vector<double>(18, -2.0)});
}

TEST(MaxsubRect, AllNegativeAllPositive) {
  std::mt19937 rng(3);
  for (int it = 0; it < 50; ++it) {
    const int w = 1 + int(rng() % 7), h = 1 + int(rng() % 7);
    const Array neg = random_ints(rng, w, h, -20, -1);
    expect_all_methods(neg);
    // All negative: the largest pixel alone.
    const ms::Rect r = ms::max_subarray(neg.a, w, h);
    EXPECT_EQ(r.npix(), 1);
    EXPECT_EQ(r.sum, *std::max_element(neg.a.begin(), neg.a.end()));
    const Array pos = random_ints(rng, w, h, 1, 20);
    expect_all_methods(pos);
    EXPECT_EQ(ms::max_subarray(pos.a, w, h).npix(), int64_t(w) * h);
  }
}

TEST(MaxsubRect, ThinShapes) {
  std::mt19937 rng(4);
  expect_all_methods({1, 1, {-3}});
  expect_all_methods({1, 1, {7}});
  for (int n : {2, 5, 17, 64}) {
    expect_all_methods(random_ints(rng, n, 1, -5, 5));  // 1 x N
    expect_all_methods(random_ints(rng, 1, n, -5, 5));  // N x 1
    expect_all_methods(random_ints(rng, n, 2, -5, 5));
    expect_all_methods(random_ints(rng, 2, n, -5, 5));
  }
}

TEST(MaxsubRect, RealValuesAgreeWithinRounding) {
  std::mt19937 rng(5);
  std::normal_distribution<double> d(-0.1, 1.0);
  for (int it = 0; it < 30; ++it) {
    const int w = 5 + int(rng() % 30), h = 5 + int(rng() % 30);
    std::vector<double> a(size_t(w) * h);
    for (double& v : a) v = d(rng);
    const ms::Rect ref = ms::max_subarray(a, w, h, with(M("brute"), ms::Precision::Double));
    const ms::Rect alg9 = ms::max_subarray(a, w, h, with(M("alg9"), ms::Precision::Double));
    const ms::Rect cpu = ms::max_subarray(a, w, h, with(M("cpu"), ms::Precision::Double));
    const ms::Rect alg8 = ms::max_subarray(a, w, h, with(M("alg8"), ms::Precision::Double));
    EXPECT_EQ(alg9, cpu);  // same additions in the same order
    EXPECT_NEAR(alg8.sum, ref.sum, 1e-9);
    EXPECT_NEAR(alg9.sum, ref.sum, 1e-9);
    EXPECT_EQ(alg8, ref);  // continuous values: no near ties at this size
    EXPECT_EQ(alg9, ref);
    EXPECT_EQ(ms::rect_sum(a, w, ref), ref.sum);
  }
}

TEST(MaxsubRect, LargerImageMethodsAgree) {
  std::mt19937 rng(6);
  const Array x = random_ints(rng, 157, 203, -50, 49);
  const ms::Rect a8 = ms::max_subarray(x.a, x.w, x.h, with(M("alg8"), ms::Precision::Double));
  EXPECT_EQ(ms::max_subarray(x.a, x.w, x.h, with(M("alg9"), ms::Precision::Double)), a8);
  EXPECT_EQ(ms::max_subarray(x.a, x.w, x.h, with(M("cpu"), ms::Precision::Double)), a8);
  EXPECT_EQ(ms::max_subarray(x.a, x.w, x.h, with(M("cpu"), ms::Precision::Float)), a8);
  std::vector<float> f(x.a.begin(), x.a.end());
  EXPECT_EQ(ms::max_subarray(std::span<const float>(f), x.w, x.h), a8);
}

TEST(MaxsubRect, BadInput) {
  std::vector<double> a = {1, 2, NAN, 4};
  try {
    ms::max_subarray(a, 2, 2);
    FAIL() << "NaN accepted";
  } catch (const celeris::Error& e) {
    EXPECT_NE(std::string(e.what()).find("pixel (x=1, y=2) is not finite"), std::string::npos)
        << e.what();
  }
  a[2] = INFINITY;
  EXPECT_THROW(ms::max_subarray(a, 2, 2), celeris::Error);
  EXPECT_THROW(ms::max_subarray(a, 3, 2), celeris::Error);
  EXPECT_THROW(ms::max_subarray(std::span<const double>(), 0, 0), celeris::Error);
  EXPECT_THROW(ms::k_max_disjoint(std::vector<double>{1.0}, 1, 1, 0), celeris::Error);
  EXPECT_THROW(ms::parse_method("gpu9"), celeris::Error);
}

// ---- K maximum, disjoint ---------------------------------------------------------------------

TEST(MaxsubKDisjoint, GreedyMatchesBruteForce) {
  std::mt19937 rng(7);
  for (int it = 0; it < 60; ++it) {
    const int w = 1 + int(rng() % 8), h = 1 + int(rng() % 8);
    const Array x = random_ints(rng, w, h, -6, 6);
    const int k = 1 + int(rng() % 6);
    // Reference greedy: brute force, block, repeat.
    std::vector<ms::Rect> ref;
    std::vector<char> blocked(x.a.size(), 0);
    for (int i = 0; i < k; ++i) {
      const ms::Rect r = brute(x, blocked);
      if (r.top < 0) break;
      ref.push_back(r);
      for (int y = r.top; y <= r.bottom; ++y)
        for (int c = r.left; c <= r.right; ++c) blocked[size_t(y) * w + c] = 1;
    }
    for (const ms::Options& m : kMethods) {
      for (ms::Precision p : kPrecisions) {
        const std::vector<ms::Rect> got = ms::k_max_disjoint(x.a, w, h, k, with(m, p));
        EXPECT_EQ(got, ref) << ms::method_name(m) << " k=" << k << " " << w << " x " << h;
      }
    }
  }
}

TEST(MaxsubKDisjoint, DisjointAndExhaustive) {
  std::mt19937 rng(8);
  const Array x = random_ints(rng, 23, 17, -10, 10);
  const auto rs = ms::k_max_disjoint(x.a, x.w, x.h, 30);
  ASSERT_FALSE(rs.empty());
  for (size_t i = 0; i < rs.size(); ++i) {
    if (i > 0) {
      EXPECT_GE(rs[i - 1].sum, rs[i].sum);
    }
    for (size_t j = 0; j < i; ++j) {
      const bool apart = rs[i].right < rs[j].left || rs[j].right < rs[i].left ||
                         rs[i].bottom < rs[j].top || rs[j].bottom < rs[i].top;
      EXPECT_TRUE(apart) << i << " overlaps " << j;
    }
  }
  // The threaded search (this size) picks the same rectangles as the serial ones.
  const Array big = random_ints(rng, 130, 110, -10, 10);
  const auto cpu = ms::k_max_disjoint(big.a, big.w, big.h, 4);
  EXPECT_EQ(ms::k_max_disjoint(big.a, big.w, big.h, 4, with(M("alg8"), ms::Precision::Double)),
            cpu);
  EXPECT_EQ(ms::k_max_disjoint(big.a, big.w, big.h, 4, with(M("alg9"), ms::Precision::Float)), cpu);
  // Asking for more than the cells: stops when every cell is used.
  const Array tiny = random_ints(rng, 3, 2, -5, 5);
  const auto all = ms::k_max_disjoint(tiny.a, 3, 2, 100);
  int64_t cells = 0;
  for (const auto& r : all) cells += r.npix();
  EXPECT_EQ(cells, 6);
  EXPECT_LE(all.size(), 6u);
}

// ---- K maximum, overlapping ------------------------------------------------------------------

TEST(MaxsubKOverlapping, MatchesSortedEnumeration) {
  std::mt19937 rng(9);
  for (int it = 0; it < 60; ++it) {
    const int w = 1 + int(rng() % 7), h = 1 + int(rng() % 7);
    const Array x = random_ints(rng, w, h, -4, 4);
    std::vector<ms::Rect> all;
    for (int t = 0; t < h; ++t)
      for (int l = 0; l < w; ++l)
        for (int b = t; b < h; ++b)
          for (int r = l; r < w; ++r) {
            ms::Rect q{0, t, l, b, r};
            q.sum = ms::rect_sum(x.a, w, q);
            all.push_back(q);
          }
    std::sort(all.begin(), all.end(), ms::better);
    const int k = 1 + int(rng() % 20);
    all.resize(std::min<size_t>(all.size(), k));
    for (const ms::Options& m : kMethods) {
      for (ms::Precision p : kPrecisions) {
        EXPECT_EQ(ms::k_max_overlapping(x.a, w, h, k, with(m, p)), all)
            << ms::method_name(m) << " k=" << k << " " << w << " x " << h;
      }
    }
  }
}

TEST(MaxsubKOverlapping, FirstIsTheMaximum) {
  std::mt19937 rng(10);
  const Array x = random_ints(rng, 90, 70, -20, 19);  // large enough for the threaded path
  const auto rs = ms::k_max_overlapping(x.a, x.w, x.h, 25);
  ASSERT_EQ(rs.size(), 25u);
  EXPECT_EQ(rs[0], ms::max_subarray(x.a, x.w, x.h));
  for (size_t i = 1; i < rs.size(); ++i) EXPECT_TRUE(ms::better(rs[i - 1], rs[i]));
  EXPECT_EQ(ms::k_max_overlapping(x.a, x.w, x.h, 25, with(M("alg9"), ms::Precision::Double)), rs);
}

// ---- Maximum convex sum ----------------------------------------------------------------------

namespace {

// Every W-N region by depth-first search over columns, starting at every column.
double exhaustive_convex(const Array& x) {
  double best = -INFINITY;
  std::function<void(int, int, int, bool, double)> go = [&](int c, int t, int b, bool growing,
                                                            double s) {
    best = std::max(best, s);
    if (c + 1 >= x.w) return;
    for (int t2 = 0; t2 < x.h; ++t2)
      for (int b2 = t2; b2 < x.h; ++b2) {
        const bool inside = t2 >= t && b2 <= b;   // shrinking
        const bool outside = t2 <= t && b2 >= b;  // growing
        const bool can = growing ? (inside || outside) : inside;
        if (!can) continue;
        double add = 0;
        for (int y = t2; y <= b2; ++y) add += x.a[size_t(y) * x.w + c + 1];
        go(c + 1, t2, b2, growing && outside, s + add);
      }
  };
  for (int c = 0; c < x.w; ++c)
    for (int t = 0; t < x.h; ++t)
      for (int b = t; b < x.h; ++b) {
        double s = 0;
        for (int y = t; y <= b; ++y) s += x.a[size_t(y) * x.w + c];
        go(c, t, b, true, s);
      }
  return best;
}

bool is_wn(const ms::ConvexRegion& r) {
  const int n = r.right - r.left + 1;
  if (int(r.top.size()) != n || int(r.bottom.size()) != n) return false;
  int i = 1;
  while (i < n && r.top[i] <= r.top[i - 1] && r.bottom[i] >= r.bottom[i - 1]) ++i;
  while (i < n && r.top[i] >= r.top[i - 1] && r.bottom[i] <= r.bottom[i - 1]) ++i;
  return i == n;
}

}  // namespace

TEST(MaxsubConvex, MatchesExhaustiveOnTinyArrays) {
  std::mt19937 rng(11);
  for (int it = 0; it < 150; ++it) {
    const int w = 1 + int(rng() % 6), h = 1 + int(rng() % 5);
    const Array x = random_ints(rng, w, h, -6, 6);
    const ms::ConvexRegion r = ms::max_convex(x.a, w, h);
    EXPECT_EQ(r.sum, exhaustive_convex(x)) << w << " x " << h;
    EXPECT_TRUE(is_wn(r));
    double s = 0;
    for (int c = r.left; c <= r.right; ++c)
      for (int y = 0; y < h; ++y)
        if (r.contains(c, y)) s += x.a[size_t(y) * w + c];
    EXPECT_EQ(s, r.sum);
    // Every rectangle is convex.
    EXPECT_GE(r.sum, ms::max_subarray(x.a, w, h).sum);
  }
}

TEST(MaxsubConvex, Diamond) {
  // A diamond of +1 in a sea of -5: the convex region is the diamond, the rectangle is smaller.
  const int n = 9;
  Array x{n, n, std::vector<double>(size_t(n) * n, -5.0)};
  for (int y = 0; y < n; ++y)
    for (int c = 0; c < n; ++c)
      if (std::abs(y - 4) + std::abs(c - 4) <= 3) x.a[size_t(y) * n + c] = 1.0;
  const ms::ConvexRegion r = ms::max_convex(x.a, n, n);
  EXPECT_EQ(r.sum, 25.0);
  EXPECT_EQ(r.npix(), 25);
  EXPECT_EQ(r.left, 1);
  EXPECT_EQ(r.right, 7);
  EXPECT_LT(ms::max_subarray(x.a, n, n).sum, 25.0);
}

TEST(MaxsubConvex, KDisjoint) {
  std::mt19937 rng(12);
  const Array x = random_ints(rng, 12, 9, -5, 5);
  const auto rs = ms::k_max_convex_disjoint(x.a, x.w, x.h, 5);
  ASSERT_EQ(rs.size(), 5u);
  EXPECT_EQ(rs[0].sum, ms::max_convex(x.a, x.w, x.h).sum);
  for (size_t i = 0; i < rs.size(); ++i) {
    EXPECT_TRUE(is_wn(rs[i]));
    if (i > 0) {
      EXPECT_GE(rs[i - 1].sum, rs[i].sum);
    }
    for (size_t j = 0; j < i; ++j)
      for (int c = 0; c < x.w; ++c)
        for (int y = 0; y < x.h; ++y) EXPECT_FALSE(rs[i].contains(c, y) && rs[j].contains(c, y));
  }
}

// ---- Device and algorithm chosen apart ----------------------------------------------------------

TEST(MaxsubOptions, FormerMethodSpellingsAreAlgorithmDevicePairs) {
  using celeris::Device;
  const struct {
    const char* name;
    ms::Algorithm a;
    Device d;
  } cases[] = {{"cpu", ms::Algorithm::RowPairs, Device::Cpu},
               {"cuda", ms::Algorithm::RowPairs, Device::Cuda},
               {"gpu", ms::Algorithm::RowPairs, Device::Cuda},
               {"auto", ms::Algorithm::RowPairs, Device::Auto},
               {"brute", ms::Algorithm::Brute, Device::Cpu},
               {"alg8", ms::Algorithm::Alg8, Device::Cpu},
               {"prefix", ms::Algorithm::Alg8, Device::Cpu},
               {"alg9", ms::Algorithm::Alg9, Device::Cpu},
               {"kadane", ms::Algorithm::Alg9, Device::Cpu},
               {"alg38", ms::Algorithm::Alg38, Device::Cuda},
               {"alg39", ms::Algorithm::Alg39, Device::Cuda}};
  for (const auto& c : cases) {
    const ms::Options o = ms::parse_method(c.name);
    EXPECT_EQ(o.algorithm, c.a) << c.name;
    EXPECT_EQ(o.device, c.d) << c.name;
  }
  // The recorded spelling of each pair (auto resolved) is the former method name.
  for (const char* name : {"cpu", "cuda", "brute", "alg8", "alg9", "alg38", "alg39"})
    EXPECT_EQ(ms::method_name(ms::parse_method(name)), name);
  EXPECT_EQ(ms::method_name(ms::parse_method("auto")),
            celeris::cuda_device_count() > 0 ? "cuda" : "cpu");
  for (ms::Algorithm a : {ms::Algorithm::RowPairs, ms::Algorithm::Brute, ms::Algorithm::Alg8,
                          ms::Algorithm::Alg9, ms::Algorithm::Alg38, ms::Algorithm::Alg39})
    EXPECT_EQ(ms::parse_algorithm(ms::algorithm_name(a)), a);
  EXPECT_THROW(ms::parse_algorithm("cpu"), celeris::Error);
}

TEST(MaxsubOptions, PairsNoImplementationRunsAreRefused) {
  using celeris::Device;
  const std::vector<double> a = {1, -2, 3, 4};
  for (ms::Algorithm cpu_only : {ms::Algorithm::Brute, ms::Algorithm::Alg8, ms::Algorithm::Alg9}) {
    EXPECT_THROW(ms::max_subarray(a, 2, 2, {cpu_only, Device::Cuda}), celeris::Error);
    // Auto runs them on the CPU, device or not.
    EXPECT_EQ(ms::max_subarray(a, 2, 2, {cpu_only, Device::Auto}), ms::max_subarray(a, 2, 2));
  }
  for (ms::Algorithm gpu_only : {ms::Algorithm::Alg38, ms::Algorithm::Alg39})
    EXPECT_THROW(ms::max_subarray(a, 2, 2, {gpu_only, Device::Cpu}), celeris::Error);
  // RowPairs on Auto: the CPU without a device, the same rectangle either way.
  EXPECT_EQ(ms::max_subarray(a, 2, 2, {ms::Algorithm::RowPairs, Device::Auto}),
            ms::max_subarray(a, 2, 2));
}
