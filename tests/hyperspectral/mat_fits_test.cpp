// MATLAB (matio) and FITS cubes: round trips, axis order of the shared real scenes.
#include <gtest/gtest.h>
#include <matio.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "celeris/device.hpp"
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

// MATLAB v7.3 files are HDF5; matio reads and writes them when it was built with HDF5 (Debian's
// libmatio is). Skipped when this matio cannot create one.
bool matio_has_v73(const std::string& probe) {
  mat_t* m = Mat_CreateVer(probe.c_str(), nullptr, MAT_FT_MAT73);
  if (!m) return false;
  Mat_Close(m);
  return true;
}

std::string file_start(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  return s;
}

TEST(Mat, V73RoundTripKeepsVersionAndLayout) {
  ScratchDir dir;
  if (!matio_has_v73(dir / "probe.mat")) GTEST_SKIP() << "matio without HDF5 (no v7.3)";
  Cube c = random_cube(4, 5, 7, 21);
  c.source.mat_variable = "img";
  c.source.mat_v73 = true;
  write_mat_cube(dir / "c73.mat", c);
  EXPECT_EQ(file_start(dir / "c73.mat", 10), "MATLAB 7.3");
  Cube r = read_cube(dir / "c73.mat");
  EXPECT_TRUE(r.source.mat_v73);
  ASSERT_EQ(r.bands, 4);
  ASSERT_EQ(r.lines, 5);
  ASSERT_EQ(r.samples, 7);
  EXPECT_EQ(r.data, c.data);
  // The output of a v7.3 input is v7.3 again; a v5 input stays v5.
  write_cube(dir / "again.mat", r);
  EXPECT_EQ(file_start(dir / "again.mat", 10), "MATLAB 7.3");
  c.source.mat_v73 = false;
  write_mat_cube(dir / "c5.mat", c);
  EXPECT_EQ(file_start(dir / "c5.mat", 10), "MATLAB 5.0");
  EXPECT_FALSE(read_cube(dir / "c5.mat").source.mat_v73);

  c.source.mat_zhu = true, c.source.mat_variable = "Y", c.source.mat_v73 = true;
  write_mat_cube(dir / "z73.mat", c);
  r = read_cube(dir / "z73.mat");
  EXPECT_TRUE(r.source.mat_zhu);
  EXPECT_EQ(r.data, c.data);
}

// A real v5 scene rewritten as v7.3 (int16 kept, written here with matio directly, not through
// write_mat_cube) reads back value for value, in the same axis order.
TEST(Mat, V73RealSceneSameAsV5) {
  ScratchDir dir;
  const std::string v5 = data_dir() + "/cuprite/Rcuprite50x90x188.mat";
  if (!std::filesystem::exists(v5)) GTEST_SKIP() << v5 << " absent";
  if (!matio_has_v73(dir / "probe.mat")) GTEST_SKIP() << "matio without HDF5 (no v7.3)";
  const Cube a = read_cube(v5);
  mat_t* in = Mat_Open(v5.c_str(), MAT_ACC_RDONLY);
  ASSERT_NE(in, nullptr);
  matvar_t* var = Mat_VarRead(in, a.source.mat_variable.c_str());
  ASSERT_NE(var, nullptr);
  mat_t* out = Mat_CreateVer((dir / "r73.mat").c_str(), nullptr, MAT_FT_MAT73);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(Mat_VarWrite(out, var, MAT_COMPRESSION_NONE), 0);
  Mat_Close(out);
  Mat_VarFree(var);
  Mat_Close(in);
  const Cube b = read_cube(dir / "r73.mat");
  EXPECT_TRUE(b.source.mat_v73);
  EXPECT_EQ(b.lines, a.lines);
  EXPECT_EQ(b.samples, a.samples);
  EXPECT_EQ(b.bands, a.bands);
  EXPECT_EQ(b.data, a.data);
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
  // And SPP runs on it: the float32 CPU path and every CUDA kernel (when a GPU is present) equal
  // the float64 reference.
  std::vector<double> ref_alpha;
  const std::vector<double> ref =
      spp_reference({c.data.begin(), c.data.end()}, c.bands, c.lines, c.samples, 5, &ref_alpha);
  auto check = [&](const SppResult& res, const std::string& what) {
    double rel = 0, alpha_err = 0;
    for (size_t i = 0; i < ref.size(); ++i)
      rel = std::max(rel, std::abs(res.cube.data[i] - ref[i]) / std::max(std::abs(ref[i]), 1e-3));
    for (size_t p = 0; p < ref_alpha.size(); ++p)
      alpha_err = std::max(alpha_err, std::abs(res.alpha[p] - ref_alpha[p]));
    EXPECT_LE(rel, 1e-5) << sc.file << " " << what;
    EXPECT_LE(alpha_err, 1e-5) << sc.file << " " << what;
  };
  check(spp(c, {5, Device::Cpu, true}), "cpu");
  if (spp_cuda_compiled() && cuda_device_count() > 0)
    for (const std::string& kernel : spp_cuda_kernels())
      check(spp(c, {5, Device::Cuda, true, kernel}), "cuda " + kernel);
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
