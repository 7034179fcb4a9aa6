// MATLAB (matio) and FITS cubes: round trips, axis order of the shared real scenes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "test_util.hpp"

namespace celeris::hyperspectral {
namespace {

using testing::data_dir;
using testing::random_cube;
using testing::ScratchDir;

TEST(Mat, RoundTrip3dAndZhu) {
  ScratchDir dir;
  Cube c = random_cube(4, 5, 7, 3);
  c.wavelengths = {1, 2, 3, 4};
  c.source.mat_variable = "img";
  write_mat_cube(dir / "c.mat", c);
  Cube r = read_mat_cube(dir / "c.mat");
  EXPECT_EQ(r.source.mat_variable, "img");
  EXPECT_FALSE(r.source.mat_zhu);
  ASSERT_EQ(r.bands, 4);
  ASSERT_EQ(r.lines, 5);
  ASSERT_EQ(r.samples, 7);
  EXPECT_EQ(r.data, c.data);

  c.source.mat_zhu = true;
  c.source.mat_variable = "Y";
  write_mat_cube(dir / "z.mat", c);
  r = read_mat_cube(dir / "z.mat");
  EXPECT_TRUE(r.source.mat_zhu);
  ASSERT_EQ(r.lines, 5);
  ASSERT_EQ(r.samples, 7);
  EXPECT_EQ(r.data, c.data);
  EXPECT_THROW(read_mat_cube(dir / "z.mat", "nope"), Error);
  EXPECT_THROW(read_mat_cube(dir / "missing.mat"), Error);
}

TEST(Fits, RoundTripAndCards) {
  ScratchDir dir;
  Cube c = random_cube(3, 4, 6, 5, -1, 1);
  c.source.fits_cards = {"OBJECT  = 'test cube'          / name"};
  write_fits_cube(dir / "c.fits", c);
  const Cube r = read_cube(dir / "c.fits");
  ASSERT_EQ(r.bands, 3);
  ASSERT_EQ(r.lines, 4);
  ASSERT_EQ(r.samples, 6);
  EXPECT_EQ(r.data, c.data);
  ASSERT_EQ(r.source.fits_cards.size(), 1u);  // CFITSIO's own COMMENT cards are not carried
  EXPECT_NE(r.source.fits_cards[0].find("test cube"), std::string::npos);
  EXPECT_EQ(r.source.format, CubeFormat::Fits);
  EXPECT_THROW(read_fits_cube(dir / "missing.fits"), Error);
}

// Mean spectral angle between horizontally / vertically adjacent pixels, and between pixels far
// apart: with the right axis order the scene is spatially smooth, so adjacent << far.
struct Smoothness {
  double horizontal = 0, vertical = 0, far = 0;
};
double angle(const Cube& c, int l1, int s1, int l2, int s2) {
  double dot = 0, n1 = 0, n2 = 0;
  for (int b = 0; b < c.bands; ++b) {
    const double x = c.at(b, l1, s1), y = c.at(b, l2, s2);
    dot += x * y, n1 += x * x, n2 += y * y;
  }
  return std::acos(std::clamp(dot / std::sqrt(n1 * n2), -1.0, 1.0));
}
Smoothness smoothness(const Cube& c) {
  Smoothness m;
  int nh = 0, nv = 0, nf = 0;
  for (int l = 0; l + 1 < c.lines; ++l)
    for (int s = 0; s + 1 < c.samples; ++s) {
      m.horizontal += angle(c, l, s, l, s + 1), ++nh;
      m.vertical += angle(c, l, s, l + 1, s), ++nv;
      m.far += angle(c, l, s, (l + c.lines / 2) % c.lines, (s * 7 + 3) % c.samples), ++nf;
    }
  m.horizontal /= nh, m.vertical /= nv, m.far /= nf;
  return m;
}

struct Scene {
  const char* file;
  int lines, samples, bands;
  bool zhu;
};

class RealScene : public ::testing::TestWithParam<Scene> {};

TEST_P(RealScene, LoadsWithDocumentedShapeAndSmoothAxes) {
  const Scene sc = GetParam();
  const std::string path = data_dir() + "/" + sc.file;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent";
  const Cube c = read_cube(path);
  EXPECT_EQ(c.lines, sc.lines);
  EXPECT_EQ(c.samples, sc.samples);
  EXPECT_EQ(c.bands, sc.bands);
  EXPECT_EQ(c.source.mat_zhu, sc.zhu);
  const Smoothness m = smoothness(c);
  EXPECT_LT(m.horizontal, 0.6 * m.far) << sc.file;
  EXPECT_LT(m.vertical, 0.6 * m.far) << sc.file;
  // And SPP runs on it, float32 CPU equal to the float64 reference on a band subset.
  SppResult res = spp(c, {5, Backend::Cpu, true});
  for (float a : res.alpha) ASSERT_TRUE(std::isfinite(a));
}

INSTANTIATE_TEST_SUITE_P(
    Shared, RealScene,
    ::testing::Values(Scene{"cuprite/Rcuprite50x90x188.mat", 50, 90, 188, false},
                      Scene{"jasper_ridge/JasperRidge2_R198.mat", 100, 100, 198, true},
                      Scene{"samson/Samson.mat", 95, 95, 156, true},
                      Scene{"urban/subimage_Urban_R162.mat", 34, 78, 162, false}),
    [](const auto& info) {
      std::string n = std::filesystem::path(info.param.file).stem().string();
      for (auto& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// Values documented in SOURCES.md: Rcuprite is int16 reflectance x 10000, range -35..8153, with
// 13 negative values.
TEST(RealSceneValues, RcupriteRangeAsDocumented) {
  const std::string path = data_dir() + "/cuprite/Rcuprite50x90x188.mat";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent";
  const Cube c = read_cube(path);
  float lo = 1e30f, hi = -1e30f;
  int negative = 0;
  for (float v : c.data) lo = std::min(lo, v), hi = std::max(hi, v), negative += v < 0;
  EXPECT_EQ(lo, -35);
  EXPECT_EQ(hi, 8153);
  EXPECT_EQ(negative, 13);
}

// Zhu layout: pixel p of Y is (line p % nRow, sample p / nRow); the ground-truth abundances of
// Jasper Ridge use the same pixel order, so Y ~ 5370 M A pixel by pixel.
TEST(RealSceneValues, JasperMatchesGroundTruthPixelOrder) {
  const std::string path = data_dir() + "/jasper_ridge/JasperRidge2_R198.mat";
  const std::string gt = data_dir() + "/jasper_ridge/_EndJasperRidge2_R198.mat";
  if (!std::filesystem::exists(path) || !std::filesystem::exists(gt)) GTEST_SKIP();
  const Cube y = read_cube(path);
  const Cube a = read_mat_cube(gt, "A");  // 4 x 10000 with nRow/nCol absent: read as an image
  ASSERT_EQ(a.lines, 4);
  ASSERT_EQ(a.samples, 10000);
  const Cube m = read_mat_cube(gt, "M");  // 198 x 4
  ASSERT_EQ(m.lines, 198);
  double err = 0, norm = 0;
  for (int p = 0; p < 10000; ++p) {
    const int l = p % 100, s = p / 100;
    for (int b = 0; b < 198; ++b) {
      double model = 0;
      for (int e = 0; e < 4; ++e) model += m.at(0, b, e) * a.at(0, e, p);
      const double diff = y.at(b, l, s) - 5370 * model;
      err += diff * diff;
      norm += double(y.at(b, l, s)) * y.at(b, l, s);
    }
  }
  EXPECT_LT(std::sqrt(err / norm), 0.25);
}

}  // namespace
}  // namespace celeris::hyperspectral
