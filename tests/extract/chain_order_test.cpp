// The chain order from a component's raster-ordered pixels (gpu/chain_order.hpp, the routine the
// GPU runs one thread per component) against the reference: lutz_scan over the whole mask, whose
// components come out with their pixels in SExtractor's chain order. Runs on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/simulate.hpp"
#include "extract/gpu/chain_order_host.hpp"
#include "extract/pipeline.hpp"
#include "extract/sextractor/lutz.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

struct Mask {
  int width = 0, height = 0;
  std::vector<uint8_t> on;
  uint8_t& at(int x, int y) { return on[static_cast<size_t>(y) * width + x]; }
};

Mask empty_mask(int w, int h) {
  return {w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h, 0)};
}

Mask random_mask(int w, int h, double p, uint64_t seed) {
  Mask m = empty_mask(w, h);
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution lit(p);
  for (auto& v : m.on) v = lit(rng);
  return m;
}

// An Archimedean spiral of one-pixel width (its arms 3 pixels apart): long chains whose runs
// join and split on many rows.
Mask spiral_mask(int size, double step) {
  Mask m = empty_mask(size, size);
  const double c = (size - 1) / 2.0;
  for (double t = 0; t < 2000; t += 0.002) {
    const double r = step * t / (2 * M_PI);
    if (r > c) break;
    const int x = static_cast<int>(std::lround(c + r * std::cos(t)));
    const int y = static_cast<int>(std::lround(c + r * std::sin(t)));
    m.at(x, y) = 1;
  }
  return m;
}

// Vertical teeth joined at the bottom (a comb: every tooth is its own object until the last
// row merges them) or at the top (one object splitting into many runs), alternating.
Mask comb_mask(int w, int h, bool joined_at_bottom) {
  Mask m = empty_mask(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (x % 2 == 0 || y == (joined_at_bottom ? h - 1 : 0)) m.at(x, y) = 1;
  return m;
}

// Compares, for every component of the mask, lutz_scan's chain order with the routine's.
// Returns the number of components checked.
int64_t expect_same_chains(const Mask& m, const std::string& what) {
  int64_t checked = 0;
  lutz_scan(
      m.width, m.height, [&](int x, int y) { return m.on[static_cast<size_t>(y) * m.width + x]; },
      1,
      [&](LutzComponent&& c) {
        std::vector<int32_t> raster(c.pixels.begin(), c.pixels.end());
        std::sort(raster.begin(), raster.end());
        const std::vector<int32_t> got =
            chain::chain_order(raster.data(), static_cast<int64_t>(raster.size()), m.width);
        const std::vector<int32_t> want(c.pixels.begin(), c.pixels.end());
        EXPECT_EQ(got, want) << what << ": component " << checked << " of " << want.size()
                             << " pixels";
        ++checked;
      });
  return checked;
}

}  // namespace

TEST(ChainOrder, SinglePixelsAndTinyShapes) {
  Mask one = empty_mask(1, 1);
  one.at(0, 0) = 1;
  EXPECT_EQ(expect_same_chains(one, "1x1"), 1);
  EXPECT_GT(expect_same_chains(random_mask(1, 300, 0.7, 1), "one column"), 10);
  EXPECT_GT(expect_same_chains(random_mask(300, 1, 0.7, 2), "one row"), 10);
  Mask diagonal = empty_mask(50, 50);  // one component joined only at corners
  for (int k = 0; k < 50; ++k) diagonal.at(k, k) = diagonal.at(49 - k, k) = 1;
  EXPECT_EQ(expect_same_chains(diagonal, "X of diagonals"), 1);
  Mask checker = empty_mask(41, 37);  // 8-connected: one component of isolated-looking pixels
  for (int y = 0; y < 37; ++y)
    for (int x = 0; x < 41; ++x) checker.at(x, y) = (x + y) % 2 == 0;
  EXPECT_EQ(expect_same_chains(checker, "checkerboard"), 1);
}

TEST(ChainOrder, RandomMasksFromSparseToDense) {
  int64_t components = 0;
  uint64_t seed = 10;
  for (double p : {0.05, 0.2, 0.4, 0.5, 0.55, 0.6, 0.7, 0.9})
    for (auto [w, h] : {std::pair{64, 64}, {200, 150}, {37, 301}, {513, 40}})
      components += expect_same_chains(
          random_mask(w, h, p, ++seed),
          "p " + std::to_string(p) + ", " + std::to_string(w) + "x" + std::to_string(h));
  EXPECT_GT(components, 5000);  // sparse masks give many small components
}

TEST(ChainOrder, SpiralsAndCombs) {
  for (double step : {3.0, 4.0, 7.5})
    EXPECT_EQ(expect_same_chains(spiral_mask(301, step), "spiral " + std::to_string(step)), 1);
  for (bool bottom : {true, false})
    for (auto [w, h] : {std::pair{101, 40}, {2, 5}, {3, 1}, {255, 256}})
      EXPECT_EQ(expect_same_chains(comb_mask(w, h, bottom), "comb"), 1);
}

TEST(ChainOrder, OneComponentAsLargeAsTheFrame) {
  Mask full = empty_mask(640, 480);
  std::fill(full.on.begin(), full.on.end(), 1);
  EXPECT_EQ(expect_same_chains(full, "all lit"), 1);
  // Nearly full, with holes: one component of many merges around the holes.
  Mask holes = random_mask(640, 480, 0.93, 99);
  EXPECT_GE(expect_same_chains(holes, "lit with holes"), 1);
}

TEST(ChainOrder, ComponentsTouchingEveryBorder) {
  Mask frame = empty_mask(120, 90);
  for (int x = 0; x < 120; ++x) frame.at(x, 0) = frame.at(x, 89) = 1;
  for (int y = 0; y < 90; ++y) frame.at(0, y) = frame.at(119, y) = 1;
  EXPECT_EQ(expect_same_chains(frame, "frame border"), 1);
  Mask m = random_mask(120, 90, 0.5, 7);
  for (int x = 0; x < 120; ++x) m.at(x, 0) = m.at(x, 89) = x % 3 != 0;
  expect_same_chains(m, "random with lit borders");
}

// A crowded simulation through the CPU front end (background, filter, detect()): every
// detection's chain order from its raster-sorted pixels.
TEST(ChainOrder, SameAsDetectOnACrowdedSimulation) {
  sim::ImageParams p;
  p.width = p.height = 1024;
  p.seed = 21;
  p.n_stars = 6250;  // celeris simulate --density crowded, scaled to 1024^2
  p.n_galaxies = 3125;
  const Image<float> img = sim::simulate_image(p).pixels;
  for (double thresh : {1.5, 0.4}) {
    Config c;
    c.threads = 2;
    c.detect_thresh = c.analysis_thresh = thresh;
    c.memory_pixstack = 0;
    const FrontStage st = extract_front(img.view(), nullptr, c);
    const ObjectList& d = st.front.detections;
    ASSERT_GT(d.size(), 1000u);
    size_t largest = 0;
    for (size_t k = 0; k < d.size(); ++k) {
      std::vector<int32_t> chain;
      for (int64_t i = d.offset[k]; i < d.offset[k + 1]; ++i)
        chain.push_back(d.y[static_cast<size_t>(i)] * p.width + d.x[static_cast<size_t>(i)]);
      std::vector<int32_t> raster = chain;
      std::sort(raster.begin(), raster.end());
      ASSERT_EQ(chain::chain_order(raster.data(), static_cast<int64_t>(raster.size()), p.width),
                chain)
          << "detection " << k << " at " << thresh << " sigma";
      largest = std::max(largest, chain.size());
    }
    if (thresh < 1) EXPECT_GT(largest, 1000u);  // merged objects of many runs
  }
}

TEST(ChainOrder, PixelsThatAreNotOneComponentAreRefused) {
  const std::vector<int32_t> apart = {0, 5};  // two pixels of a row of 10, not adjacent
  EXPECT_THROW(chain::chain_order(apart.data(), 2, 10), Error);
  const std::vector<int32_t> two_rows_apart = {3, 23};  // rows 0 and 2 of width 10
  EXPECT_THROW(chain::chain_order(two_rows_apart.data(), 2, 10), Error);
}
