// SPP: the float32 CPU implementation against the float64 reference (eqs. 1-5), edge cases, the
// border and zero-norm rules, and the CUDA kernels when a GPU is present.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <tuple>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "celeris/simulate.hpp"
#include "hyperspectral/internal.hpp"
#include "hyperspectral/spp_math.hpp"
#include "test_util.hpp"

namespace celeris::hyperspectral {
namespace {

using testing::random_cube;

std::vector<double> to_double(const Cube& c) {
  return {c.data.begin(), c.data.end()};
}

// Largest |a - b| / max(|b|, floor) over all values.
double max_rel(const std::vector<float>& a, const std::vector<double>& b, double floor = 1e-3) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(std::abs(b[i]), floor));
  return worst;
}

void expect_matches_reference(const Cube& c, int window, double tol = 1e-5) {
  std::vector<double> ref_alpha;
  const auto ref = spp_reference(to_double(c), c.bands, c.lines, c.samples, window, &ref_alpha);
  const SppResult got = spp(c, {window, Device::Cpu, true});
  ASSERT_EQ(got.cube.data.size(), ref.size());
  EXPECT_LE(max_rel(got.cube.data, ref), tol)
      << c.bands << "x" << c.lines << "x" << c.samples << " w=" << window;
  double alpha_err = 0;
  for (size_t p = 0; p < ref_alpha.size(); ++p)
    alpha_err = std::max(alpha_err, std::abs(got.alpha[p] - ref_alpha[p]));
  EXPECT_LE(alpha_err, 1e-5) << "alpha, w=" << window;
}

TEST(SppMath, StableAngleEqualsArccos) {
  // Unit vectors at known angles in a plane.
  for (double g : {1e-6, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, std::numbers::pi}) {
    const double d2 = (1 - std::cos(g)) * (1 - std::cos(g)) + std::sin(g) * std::sin(g);
    EXPECT_NEAR(sppmath::angle_from_unit_d2(d2), g, 1e-12 * std::max(1.0, g));
    if (g > 0.1) EXPECT_NEAR(std::acos(std::cos(g)), sppmath::angle_from_unit_d2(d2), 1e-12);
  }
  EXPECT_EQ(sppmath::rho(0.0), 1.0);
  EXPECT_DOUBLE_EQ(sppmath::rho(0.25), 2.25);
}

// The reference on a tiny example computed by hand: 1 x 3 image, two bands.
TEST(SppReference, HandComputedExample) {
  // pixels: (1,0), (1,1), (0,1) -> angles pi/4 between neighbours, pi/2 between the ends.
  const std::vector<double> bsq = {1, 1, 0, 0, 1, 1};
  std::vector<double> alpha;
  const auto out = spp_reference(bsq, 2, 1, 3, 3, &alpha);
  const double q = std::numbers::pi / 4;
  EXPECT_NEAR(alpha[0], q, 1e-15);  // one neighbour
  EXPECT_NEAR(alpha[1], q, 1e-15);  // two neighbours, both pi/4, equal weights
  EXPECT_NEAR(alpha[2], q, 1e-15);
  // Window 5: the end pixels see the other end at distance 2 (beta 1/4) and the middle (beta 1).
  spp_reference(bsq, 2, 1, 3, 5, &alpha);
  EXPECT_NEAR(alpha[0], (1.0 * q + 0.25 * 2 * q) / 1.25, 1e-15);
  const double c0 = 2.0 / 3, rho = std::pow(1 + std::sqrt(alpha[0]), 2);
  const auto out5 = spp_reference(bsq, 2, 1, 3, 5);
  EXPECT_NEAR(out5[0], (1 - c0) / rho + c0, 1e-15);
  (void)out;
}

class SppVsReference : public ::testing::TestWithParam<std::tuple<int, int, int, int>> {};

TEST_P(SppVsReference, Float32MatchesFloat64) {
  const auto [bands, lines, samples, window] = GetParam();
  const Cube c = random_cube(bands, lines, samples, 1000u + bands * 31 + lines * 7 + window);
  expect_matches_reference(c, window);
}

INSTANTIATE_TEST_SUITE_P(
    RandomCubes, SppVsReference,
    ::testing::Values(std::make_tuple(20, 17, 23, 3), std::make_tuple(20, 17, 23, 5),
                      std::make_tuple(33, 16, 9, 7), std::make_tuple(8, 21, 19, 9),
                      std::make_tuple(47, 13, 15, 11), std::make_tuple(5, 18, 14, 13),
                      std::make_tuple(16, 11, 12, 15),  // window > image
                      std::make_tuple(1, 9, 7, 3),      // single band
                      std::make_tuple(1, 9, 7, 7), std::make_tuple(188, 12, 10, 5),
                      std::make_tuple(3, 1, 1, 3),     // single pixel
                      std::make_tuple(4, 1, 25, 5),    // single line
                      std::make_tuple(4, 25, 1, 9)));  // single column

TEST(Spp, SmoothSimulatedSceneMatchesReference) {
  sim::CubeSimParams p;
  p.lines = 24, p.samples = 31, p.bands = 60, p.noise = 0.001;
  const Cube c = sim::simulate_cube(p).cube;
  // Nearly parallel neighbours: sqrt(alpha) amplifies tiny angle errors, so a looser bound.
  expect_matches_reference(c, 5, 2e-5);
}

TEST(Spp, SinglePixelIsUnchanged) {
  const Cube c = random_cube(6, 1, 1, 9);
  const SppResult r = spp(c, {3, Device::Cpu, true});
  EXPECT_EQ(r.alpha[0], 0.0f);
  for (int b = 0; b < 6; ++b) EXPECT_FLOAT_EQ(r.cube.data[b], c.data[b]);
}

TEST(Spp, ConstantCubeIsUnchanged) {
  Cube c(4, 6, 5, 0.3f);
  const SppResult r = spp(c, {5, Device::Cpu, true});
  for (float a : r.alpha) EXPECT_EQ(a, 0.0f);
  for (size_t i = 0; i < c.data.size(); ++i) EXPECT_FLOAT_EQ(r.cube.data[i], c.data[i]);
}

TEST(Spp, ZeroNormPixels) {
  Cube c = random_cube(5, 4, 4, 11, 0.5f, 1.0f);
  for (int b = 0; b < 5; ++b) c.at(b, 1, 1) = 0, c.at(b, 1, 2) = 0;
  expect_matches_reference(c, 3);
  // Isolated zero pixel among non-zero ones: every neighbour at pi/2.
  Cube z = random_cube(3, 3, 3, 12, 0.5f, 1.0f);
  for (int b = 0; b < 3; ++b) z.at(b, 1, 1) = 0;
  const SppResult r = spp(z, {3, Device::Cpu, true});
  EXPECT_NEAR(r.alpha[4], std::numbers::pi / 2, 1e-6);
}

TEST(Spp, AlphaIsWeightedMeanOfAngles) {
  const Cube c = random_cube(10, 12, 12, 13);
  const SppResult r = spp(c, {7, Device::Cpu, true});
  for (float a : r.alpha) {
    EXPECT_GE(a, 0.0f);
    EXPECT_LE(a, std::numbers::pi_v<float> / 2);  // non-negative data: angles <= pi/2
  }
}

TEST(Spp, OutputKeepsShapeAndMetadata) {
  Cube c = random_cube(3, 5, 4, 14);
  c.wavelengths = {1, 2, 3};
  c.band_names = {"a", "b", "c"};
  c.source.envi_fields.emplace_back("sensor type", "AVIRIS");
  const SppResult r = spp(c, {3, Device::Cpu, false});
  EXPECT_EQ(r.cube.wavelengths, c.wavelengths);
  EXPECT_EQ(r.cube.band_names, c.band_names);
  EXPECT_EQ(r.cube.source.envi_fields, c.source.envi_fields);
  EXPECT_TRUE(r.alpha.empty());
  ASSERT_EQ(r.centroid.size(), 3u);
}

// The two CPU forms of eq. (1) (direct window walk, and the symmetric pair table used unless it
// would exceed 1 GiB) agree with each other and with the reference.
TEST(Spp, DirectAndSymmetricAlphaAgree) {
  for (int w : {3, 7, 13}) {
    const Cube c = random_cube(23, 15, 18, 200u + w);
    const auto prep = detail::spp_prepare(c, 16);
    std::vector<float> direct(c.pixels()), symmetric(c.pixels());
    detail::spp_alpha_cpu(c, prep, w, direct.data(), false);
    detail::spp_alpha_cpu(c, prep, w, symmetric.data(), true);
    std::vector<double> ref;
    spp_reference(to_double(c), c.bands, c.lines, c.samples, w, &ref);
    for (size_t p = 0; p < ref.size(); ++p) {
      EXPECT_NEAR(direct[p], ref[p], 1e-5) << w;
      EXPECT_NEAR(symmetric[p], ref[p], 1e-5) << w;
    }
  }
}

TEST(Spp, InPlaceOverloadsGiveTheSameCube) {
  const Cube c = random_cube(9, 13, 11, 16);
  const SppResult copy = spp(c, {5, Device::Cpu, true});
  Cube moved = c;
  const SppResult in_place = spp(std::move(moved), {5, Device::Cpu, true});
  EXPECT_EQ(in_place.cube.data, copy.cube.data);
  EXPECT_EQ(in_place.alpha, copy.alpha);
  EXPECT_EQ(spp(Cube(c), {5, Device::Auto, false}).cube.data.size(), c.data.size());
}

TEST(Spp, BadWindowAndEmptyCube) {
  const Cube c = random_cube(3, 5, 4, 15);
  for (int w : {-1, 0, 1, 2, 4, 6, 16}) {
    EXPECT_THROW(spp(c, {w, Device::Cpu, false}), Error) << w;
    EXPECT_THROW(spp_reference(to_double(c), 3, 5, 4, w), Error) << w;
  }
  EXPECT_THROW(spp(Cube(), {3, Device::Cpu, false}), Error);
  EXPECT_THROW(spp(Cube(0, 3, 3), {3, Device::Cpu, false}), Error);
}

// One entry point, the device in the options: a kernel the device cannot run is refused, not
// ignored; unknown kernels are refused whatever the device.
TEST(Spp, KernelChoiceIsCheckedAgainstTheDevice) {
  const Cube c = random_cube(3, 5, 4, 15);
  EXPECT_THROW(spp(c, {3, Device::Cpu, false, "tile"}), Error);
  EXPECT_THROW(spp(c, {3, Device::Cpu, false, "nope"}), Error);
  EXPECT_THROW(spp(c, {3, Device::Auto, false, "nope"}), Error);
  EXPECT_EQ(spp(c, {3, Device::Cpu, false, "strip"}).cube.data,
            spp(c, {3, Device::Cpu, false}).cube.data);
  if (cuda_device_count() == 0) EXPECT_THROW(spp(c, {3, Device::Cuda, false}), Error);
}

TEST(Spp, SimulationIsDeterministic) {
  sim::CubeSimParams p;
  p.lines = 10, p.samples = 12, p.bands = 7, p.seed = 42;
  const sim::SimulatedCube a = sim::simulate_cube(p), b = sim::simulate_cube(p);
  EXPECT_EQ(a.cube.data, b.cube.data);
  p.seed = 43;
  EXPECT_NE(sim::simulate_cube(p).cube.data, a.cube.data);
  for (int q = 0; q < 120; ++q) {
    double sum = 0;
    for (int e = 0; e < p.endmembers; ++e) sum += a.abundances.band(e)[q];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

// CUDA kernels against the float64 reference, when a GPU is present: every kernel, windows 3-15
// (17 runs the strip kernel's tile fallback), odd sizes, one band, one pixel, one line, one
// column, zero-norm pixels.
double max_abs(const std::vector<float>& a, const std::vector<double>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

bool have_gpu() {
  return spp_cuda_compiled() && cuda_device_count() > 0;
}

TEST(SppCuda, KernelsMatchReference) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  struct Shape {
    int bands, lines, samples;
  };
  const Shape shapes[] = {{37, 29, 41}, {188, 13, 35}, {1, 9, 7},
                          {3, 1, 1},    {4, 1, 25},    {4, 25, 1}};
  for (int w = 3; w <= 17; w += 2) {
    for (const Shape& sh : shapes) {
      Cube c = random_cube(sh.bands, sh.lines, sh.samples, 100u + w + sh.lines * 3);
      if (sh.lines > 3 && sh.samples > 4)
        for (int b = 0; b < c.bands; ++b) c.at(b, 3, 4) = 0, c.at(b, 2, 4) = 0;
      std::vector<double> ref_alpha;
      const auto ref = spp_reference(to_double(c), c.bands, c.lines, c.samples, w, &ref_alpha);
      for (const std::string& kernel : spp_cuda_kernels()) {
        const SppResult g = spp(c, {w, Device::Cuda, true, kernel});
        const std::string what = kernel + " w=" + std::to_string(w) + " " +
                                 std::to_string(sh.bands) + "x" + std::to_string(sh.lines) + "x" +
                                 std::to_string(sh.samples);
        EXPECT_LE(max_rel(g.cube.data, ref), 1e-5) << what;
        EXPECT_LE(max_abs(g.alpha, ref_alpha), 1e-5) << what;
        ASSERT_EQ(g.centroid.size(), static_cast<size_t>(c.bands));
      }
    }
  }
}

// A smooth scene (nearly parallel neighbours) at the paper's band count, larger than one tile.
TEST(SppCuda, SmoothSceneMatchesReference) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  sim::CubeSimParams p;
  p.lines = 45, p.samples = 70, p.bands = 188, p.noise = 0.001;
  const Cube c = sim::simulate_cube(p).cube;
  for (int w : {3, 11}) {
    std::vector<double> ref_alpha;
    const auto ref = spp_reference(to_double(c), c.bands, c.lines, c.samples, w, &ref_alpha);
    for (const std::string& kernel : spp_cuda_kernels()) {
      const SppResult g = spp(c, {w, Device::Cuda, true, kernel});
      EXPECT_LE(max_rel(g.cube.data, ref), 2e-5) << kernel << " w=" << w;  // as the CPU test
      EXPECT_LE(max_abs(g.alpha, ref_alpha), 1e-5) << kernel << " w=" << w;
    }
  }
}

// Same input, same output bits (no race, no order-dependent atomics).
TEST(SppCuda, RepeatedRunsAreIdentical) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  const Cube c = random_cube(50, 67, 45, 77);
  for (const std::string& kernel : spp_cuda_kernels()) {
    const SppResult a = spp(c, {9, Device::Cuda, true, kernel}),
                    b = spp(c, {9, Device::Cuda, true, kernel});
    EXPECT_EQ(a.cube.data, b.cube.data) << kernel;
    EXPECT_EQ(a.alpha, b.alpha) << kernel;
    EXPECT_GT(a.device_seconds, 0.0);
  }
}

TEST(SppCuda, BadKernelAndWindow) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  const Cube c = random_cube(3, 5, 4, 15);
  EXPECT_THROW(spp(c, {3, Device::Cuda, false, "nope"}), Error);
  EXPECT_THROW(spp(c, {4, Device::Cuda, false, "strip"}), Error);
}

}  // namespace
}  // namespace celeris::hyperspectral
