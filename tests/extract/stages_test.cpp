// Extraction stages against simple references: labelling vs flood fill, convolution vs a float64
// direct sum, background of known fields, glibc rand, photometry of flat fields, and the whole
// pipeline on a simulated field with known truth.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <queue>
#include <random>

#include "celeris/error.hpp"
#include "celeris/extract.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/simulate.hpp"
#include "extract/sextractor/glibc_rand.hpp"
#include "extract/stages/background.hpp"
#include "extract/stages/background_spline.hpp"
#include "extract/stages/clean_zones.hpp"
#include "extract/stages/detect.hpp"
#include "extract/stages/filter.hpp"
#include "extract/stages/photometry.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

// Reference labelling: breadth-first flood fill with 8-connectivity.
std::vector<int32_t> flood_fill(const std::vector<uint8_t>& m, int w, int h, int32_t& n) {
  std::vector<int32_t> lab(m.size(), 0);
  n = 0;
  for (int s = 0; s < w * h; ++s) {
    if (!m[s] || lab[s]) continue;
    lab[s] = ++n;
    std::queue<int> q;
    q.push(s);
    while (!q.empty()) {
      const int p = q.front();
      q.pop();
      const int x = p % w, y = p / w;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const int qq = yy * w + xx;
          if (m[qq] && !lab[qq]) {
            lab[qq] = n;
            q.push(qq);
          }
        }
    }
  }
  return lab;
}

// clean_zones(shapes, threads) against every earlier object tested directly, object by object;
// returns the number of pairs (0 after a failure).
size_t expect_brute_force_zones(const std::vector<Shape>& shapes, int threads) {
  const CleanZones z = clean_zones(shapes, threads);
  EXPECT_EQ(z.offset.size(), shapes.size() + 1);
  if (z.offset.size() != shapes.size() + 1) return 0;
  size_t pairs = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::vector<uint32_t> expect;
    for (size_t j = 0; j < i; ++j)
      if (in_clean_zone(shapes[i], shapes[j])) expect.push_back(static_cast<uint32_t>(j));
    const std::vector<uint32_t> got(z.neighbours.begin() + z.offset[i],
                                    z.neighbours.begin() + z.offset[i + 1]);
    EXPECT_EQ(got, expect) << "object " << i << " threads " << threads;
    if (got != expect) return 0;
    pairs += expect.size();
  }
  return pairs;
}

}  // namespace

TEST(Detect, LabellingEqualsFloodFill) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    const int w = 1 + rng() % 60, h = 1 + rng() % 60;
    const double density = (rng() % 100) / 100.0;
    std::vector<uint8_t> m(w * h);
    for (auto& v : m) v = (rng() % 1000) < density * 1000;
    int32_t n1 = 0, n2 = 0;
    const auto a = label_components(m, w, h, n1);
    const auto b = flood_fill(m, w, h, n2);
    ASSERT_EQ(n1, n2);
    // Both number components by their first pixel in raster order: labels must be identical.
    ASSERT_EQ(a, b) << "trial " << trial;
  }
}

// The GPU detection's contract, checked with the CPU labeller: components ordered by their
// last raster pixel (SExtractor's completion order), their pixels in raster order, then the
// chains recovered box by box, give exactly the Lutz scan's detections.
TEST(Detect, ComponentsInCompletionOrderGiveTheScansDetections) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 60; ++trial) {
    const int w = 1 + rng() % 90, h = 1 + rng() % 90, minarea = 1 + rng() % 6;
    const double density = (rng() % 100) / 100.0;
    Image<float> value(w, h), cvalue(w, h);
    std::vector<uint8_t> m(w * h);
    for (int i = 0; i < w * h; ++i) {
      m[i] = (rng() % 1000) < density * 1000;
      value.data()[i] = static_cast<float>(rng() % 100);
      cvalue.data()[i] = m[i] ? 2.0f : 0.0f;
    }
    if (trial % 7 == 0) value.data()[rng() % (w * h)] = NAN;  // masked: never detected
    for (int i = 0; i < w * h; ++i) m[i] = m[i] && !std::isnan(value.data()[i]);
    const ObjectList ref = detect(value.view(), cvalue.view(), {1.0f, minarea});
    int32_t n = 0;
    const std::vector<int32_t> label = label_components(m, w, h, n);
    std::vector<int64_t> last(n + 1, -1), count(n + 1, 0);
    for (int i = 0; i < w * h; ++i)
      if (label[i]) last[label[i]] = i, ++count[label[i]];
    std::vector<int32_t> comps;
    for (int c = 1; c <= n; ++c)
      if (count[c] >= minarea) comps.push_back(c);
    std::sort(comps.begin(), comps.end(), [&](int a, int b) { return last[a] < last[b]; });
    std::vector<int32_t> pixels;
    std::vector<int64_t> offset = {0};
    for (int c : comps) {
      for (int i = 0; i < w * h; ++i)
        if (label[i] == c) pixels.push_back(i);
      offset.push_back(static_cast<int64_t>(pixels.size()));
    }
    const ObjectList got =
        detections_from_components(value.view(), cvalue.view(), pixels.data(), offset, 2);
    ASSERT_EQ(got.size(), ref.size()) << trial;
    EXPECT_EQ(got.offset, ref.offset) << trial;
    EXPECT_EQ(got.x, ref.x) << trial;
    EXPECT_EQ(got.y, ref.y) << trial;
    EXPECT_EQ(got.flags, ref.flags) << trial;
  }
}

TEST(Filter, ConvolutionEqualsDirectSumWithZeroPadding) {
  std::mt19937 rng(5);
  std::normal_distribution<float> N(0, 1);
  Config c;
  parse_filter("CONV NORM\n1 2 3 2 1\n2 4 6 4 2\n1 2 3 2 1\n", "t", c);
  const int w = 37, h = 23;
  Image<float> in(w, h), out(w, h);
  for (auto& v : in.pixels()) v = N(rng);
  in(3, 4) = NAN;  // masked pixels count as zero in the sum
  convolve(in.view(), c, out.view());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double ref = 0;
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 5; ++i) {
          const int sx = x + i - 2, sy = y + j - 1;
          if (sx < 0 || sy < 0 || sx >= w || sy >= h || std::isnan(in(sx, sy))) continue;
          ref += static_cast<double>(c.filter_kernel[j * 5 + i]) * in(sx, sy);
        }
      ASSERT_NEAR(out(x, y), ref, 1e-5) << x << "," << y;
    }
}

TEST(Background, FlatNoiseGivesMeanAndSigma) {
  std::mt19937 rng(11);
  std::normal_distribution<float> N(100.0f, 5.0f);
  Image<float> img(300, 200);
  for (auto& v : img.pixels()) v = N(rng);
  Config c;
  const BackgroundMap m = estimate_background(img.view(), c);
  EXPECT_EQ(m.nx, 5);  // ceil(300 / 64)
  EXPECT_EQ(m.ny, 4);
  EXPECT_NEAR(m.global_back, 100.0, 0.5);
  EXPECT_NEAR(m.global_rms, 5.0, 0.25);
  std::vector<float> line(300);
  m.back_line(123, line.data());
  for (float v : line) EXPECT_NEAR(v, 100.0, 1.0);
}

TEST(Background, ConstantImageAndMaskedMeshes) {
  Image<float> img(128, 128, 42.0f);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) img(x, y) = NAN;  // one whole mesh masked: filled from others
  Config c;
  const BackgroundMap m = estimate_background(img.view(), c);
  std::vector<float> line(128);
  for (int y : {0, 40, 127}) {
    m.back_line(y, line.data());
    for (float v : line) EXPECT_FLOAT_EQ(v, 42.0f);
  }
  EXPECT_FLOAT_EQ(m.global_rms, 1.0f);  // constant data: SExtractor falls back to 1
  Image<float> all_nan(16, 16, NAN);
  EXPECT_THROW(estimate_background(all_nan.view(), c), celeris::Error);
}

// localback's statistics are one mesh's: a list of pixels gives what the mesh estimator gives
// for an image that is a single mesh holding the same pixels (row by row).
TEST(Background, PixelListEqualsSingleMesh) {
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(100.0f, 7.0f);
  Image<float> img(48, 40);
  std::vector<float> list;
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 48; ++x) {
      img(x, y) = noise(rng) + ((x * 7 + y * 3) % 29 == 0 ? 300.0f : 0.0f);  // a skewed tail
      list.push_back(img(x, y));
    }
  Config c;
  c.back_width = 48;
  c.back_height = 40;
  const BackgroundMap m = estimate_background(img.view(), c);
  ASSERT_EQ(m.back.size(), 1u);
  MeshScratch scratch;
  const ListBackground lb = list_background(list, scratch);
  EXPECT_EQ(lb.back, m.back[0]);
  EXPECT_EQ(lb.sigma, m.sigma[0]);
  EXPECT_GT(lb.back, 90.0f);  // the mode, not pulled up by the 300 ADU tail as the mean is
  EXPECT_LT(lb.back, 110.0f);
}

// median_of takes three routes (a network for 9 values, an insertion sort up to 32, selection
// beyond): each must give the sorted array's middle value (the mean in double of the two middle
// ones for an even count), on noise, on few distinct values (ties) and on signed values.
TEST(Background, MedianOfEqualsTheSortedMiddle) {
  std::mt19937 rng(7);
  for (int n = 1; n <= 70; ++n)
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<float> v(static_cast<size_t>(n));
      const int distinct = trial % 3 == 0 ? 3 : 1000000;
      for (float& x : v)
        x = static_cast<float>(static_cast<int>(rng() % distinct) - distinct / 2) * 0.37f;
      std::vector<float> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      const size_t h = sorted.size() / 2;
      const float want =
          n % 2 ? sorted[h] : static_cast<float>((sorted[h - 1] + double(sorted[h])) / 2.0);
      EXPECT_EQ(celeris::extract::median_of(v), want) << "n " << n << " trial " << trial;
    }
}

// finish_background's grid steps against their one-mesh, one-column definitions: the median
// filter (threaded over mesh rows) against median_of on each window, and the y-splines (taken a
// grid row at a time for all columns) against spline::second_derivatives on each column, bit
// for bit, on grids with and without smoothing, with 1 and 4 threads.
TEST(Background, FinishedGridEqualsItsPerMeshDefinition) {
  std::mt19937 rng(11);
  std::normal_distribution<float> noise(100.0f, 3.0f);
  for (const auto& [nx, ny] : {std::pair{64, 64}, {37, 5}, {1, 9}, {7, 2}, {3, 1}}) {
    for (const int threads : {1, 4}) {
      Config c;
      c.threads = threads;
      c.back_filtthresh = threads == 1 ? 0.0 : 2.0;  // every mesh replaced, or only outliers
      BackgroundMap m = mesh_layout(int64_t(nx) * 64, int64_t(ny) * 64, c);
      ASSERT_EQ(m.nx, nx);
      ASSERT_EQ(m.ny, ny);
      for (float& v : m.back) v = noise(rng);
      for (float& v : m.sigma) v = 3.0f + 0.1f * noise(rng);
      const std::vector<float> back0 = m.back, sigma0 = m.sigma;
      finish_background(m, c);
      // The median filter, mesh by mesh (the 3x3 default, shrunk at the edges).
      std::vector<float> back(back0.size()), sigma(sigma0.size());
      const int npx = nx > 1 ? 1 : 0, npy = ny > 1 ? 1 : 0;
      for (int py = 0; py < ny; ++py)
        for (int px = 0; px < nx; ++px) {
          const int hx = std::min({npx, px, nx - 1 - px}), hy = std::min({npy, py, ny - 1 - py});
          std::vector<float> wb, ws;
          for (int y = py - hy; y <= py + hy; ++y)
            for (int x = px - hx; x <= px + hx; ++x) {
              wb.push_back(back0[size_t(y * nx + x)]);
              ws.push_back(sigma0[size_t(y * nx + x)]);
            }
          const size_t i = size_t(py * nx + px);
          const float med = median_of(wb);
          const bool replace = (npx || npy) && std::fabs(med - back0[i]) >= c.back_filtthresh;
          back[i] = replace ? med : back0[i];
          sigma[i] = replace ? median_of(ws) : sigma0[i];
        }
      EXPECT_EQ(m.back, back) << nx << "x" << ny << ", " << threads << " threads";
      EXPECT_EQ(m.sigma, sigma) << nx << "x" << ny << ", " << threads << " threads";
      // The splines, column by column.
      std::vector<float> dback(back.size()), dsigma(sigma.size()), u(static_cast<size_t>(ny));
      for (int x = 0; x < nx; ++x) {
        spline::second_derivatives(back.data() + x, ny, nx, dback.data() + x, u.data());
        spline::second_derivatives(sigma.data() + x, ny, nx, dsigma.data() + x, u.data());
      }
      EXPECT_EQ(m.dback, dback) << nx << "x" << ny;
      EXPECT_EQ(m.dsigma, dsigma) << nx << "x" << ny;
    }
  }
}

TEST(GlibcRand, SameStreamAsTheCLibrary) {
  std::srand(1);
  GlibcRand r;
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(r(), std::rand()) << i;
}

TEST(Photometry, FlatFieldApertureAreaAndBorderFlag) {
  Image<float> flat(101, 101, 1.0f);
  PhotometryField f{flat.view(), nullptr, 1.0f, 0.0, MaskType::Correct};
  ApertureShape s{1, 50.0f, 50.0f, 50.0, 50.0, 2.0f, 2.0f, 0.25f, 0.25f, 0.0f};
  uint16_t flags = 0;
  for (double d : {3.0, 10.0, 30.0}) {
    const FluxResult r = aperture_flux(f, s, d, flags);
    EXPECT_NEAR(r.flux, M_PI * d * d / 4, 0.01 * d * d) << d;
  }
  EXPECT_EQ(flags, 0);
  ApertureShape edge = s;
  edge.mx = 1.0f;
  aperture_flux(f, edge, 10.0, flags);
  EXPECT_TRUE(flags & kFlagAperIncomplete);
}

TEST(Pipeline, SimulatedStarsAreFoundAtTheirPositions) {
  sim::ImageParams p;
  p.width = p.height = 512;
  p.seed = 4;
  p.n_stars = 60;
  p.n_galaxies = 0;
  p.flux_min = 2e4;  // all well above the noise
  const sim::SimulatedImage s = sim::simulate_image(p);
  Config c;
  parse_filter("CONV NORM\n1 2 1\n2 4 2\n1 2 1\n", "t", c);
  const Result r = celeris::extract::extract(s.pixels.view(), c);
  const Column& tx = *s.truth.find("X_IMAGE");
  const Column& ty = *s.truth.find("Y_IMAGE");
  int found = 0;
  for (size_t i = 0; i < s.truth.rows; ++i) {
    double best = 1e9;
    for (size_t k = 0; k < r.objects.size(); ++k)
      best =
          std::min(best, std::hypot(r.objects.x[k] + 1 - tx.at(i), r.objects.y[k] + 1 - ty.at(i)));
    found += best < 0.3;
  }
  // Stars can overlap and be blended into one object; nearly all must be found precisely.
  EXPECT_GE(found, 57);
}

TEST(Pipeline, EdgeCasesAndBadInput) {
  Config c;
  EXPECT_THROW(celeris::extract::extract(ImageView<const float>{nullptr, 0, 0}, c), celeris::Error);
  Image<float> nan(32, 32, NAN);
  EXPECT_THROW(celeris::extract::extract(nan.view(), c), celeris::Error);
  Image<float> one(1, 1, 5.0f);
  EXPECT_EQ(celeris::extract::extract(one.view(), c).objects.size(), 0u);
  // An object touching the border carries the TRUNCATED flag.
  Image<float> img(64, 64, 0.0f);
  std::mt19937 rng(1);
  std::normal_distribution<float> N(0, 1);
  for (auto& v : img.pixels()) v = N(rng);
  for (int y = 0; y < 5; ++y)
    for (int x = 20; x < 25; ++x) img(x, y) += 200;
  const Result r = celeris::extract::extract(img.view(), c);
  ASSERT_GE(r.objects.size(), 1u);
  bool truncated = false;
  for (size_t k = 0; k < r.objects.size(); ++k)
    if (r.objects.ymin[k] == 0) truncated = r.objects.flags[k] & kFlagTruncated;
  EXPECT_TRUE(truncated);
}

// The pairs cleaning compares, found by the tiered grid, against every pair tested directly;
// with objects of every size tier, larger than the last tier, and without a finite position.
TEST(CleanZones, EqualTheBruteForcePairs) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> pos(-50.0, 3000.0), axis(0.3, 12.0);
  std::vector<Shape> shapes(3000);
  for (size_t i = 0; i < shapes.size(); ++i) {
    Shape& s = shapes[i];
    s.mx = pos(rng);
    s.my = pos(rng) * 0.3;  // denser along y
    s.a = axis(rng);
    if (i % 97 == 0) s.a = 20.0 + 15.0 * (i % 7);  // tiers 4-6
    if (i % 499 == 0) s.a = 300.0;                 // beyond the last tier
    if (i % 733 == 0) s.mx = std::nan("");
    if (i % 911 == 0) s.a = std::nan("");
  }
  for (int threads : {1, 3})  // the field is crowded enough to test something
    EXPECT_GT(expect_brute_force_zones(shapes, threads), shapes.size());
  EXPECT_TRUE(clean_zones({}, 2).neighbours.empty());
}

// In detection order (ascending y, as cleaning gets them) the search stops at the largest y of
// the objects before each one: a crowded field of small objects, positions on and between the
// grid's cell edges, against every pair tested directly.
TEST(CleanZones, EqualTheBruteForcePairsInDetectionOrder) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> pos(0.0, 1.0), axis(0.3, 5.0);
  std::vector<Shape> shapes(8000);
  for (size_t i = 0; i < shapes.size(); ++i) {
    Shape& s = shapes[i];
    s.mx = 1500 * pos(rng);
    s.my = 400 * pos(rng);
    if (i % 3 == 0) s.my = std::round(s.my / 20) * 20 + (i % 2 ? 0.0 : 1e-9);  // cell edges
    s.a = axis(rng);
  }
  std::sort(shapes.begin(), shapes.end(),
            [](const Shape& s, const Shape& t) { return s.my < t.my; });
  for (int threads : {1, 2})
    EXPECT_GT(expect_brute_force_zones(shapes, threads), 10 * shapes.size());
}

// Freed large buffers are reused at the same size, and their contents are not assumed.
TEST(LargeBuffers, ReusedAtTheSameSize) {
  const size_t bytes = size_t(6) << 20;
  void* a = detail::allocate_large(bytes);
  static_cast<char*>(a)[bytes - 1] = 1;
  detail::free_large(a);
  void* b = detail::allocate_large(bytes);
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(a, b);
#endif
  void* c = detail::allocate_large(bytes);  // the cached one is taken: a new block
  EXPECT_NE(b, c);
  detail::free_large(b);
  detail::free_large(c);
}
