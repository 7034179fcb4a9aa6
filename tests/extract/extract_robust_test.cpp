// Extraction on input found by fuzzing (issue 18): a single 3.4e38 pixel crashed
// BackgroundMap::back_bilinear (a centroid made non-finite by overflowing float sums, cast to
// int, indexed before the mesh grid).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "celeris/fits.hpp"
#include "extract/background.hpp"

namespace fs = std::filesystem;

namespace {

celeris::extract::BackgroundMap two_by_two_mesh() {
  celeris::extract::BackgroundMap m;
  m.width = m.height = 64;
  m.mesh_w = m.mesh_h = 32;
  m.nx = m.ny = 2;
  m.back = {1.0f, 2.0f, 3.0f, 4.0f};
  return m;
}

// SExtractor's bilinear formula (back.c, back()), in double, for positions it indexes safely.
double reference_bilinear(const celeris::extract::BackgroundMap& m, int x, int y) {
  double dx = static_cast<double>(x) / m.mesh_w - 0.5, dy = static_cast<double>(y) / m.mesh_h - 0.5;
  int xl = static_cast<int>(dx), yl = static_cast<int>(dy);
  dx -= xl;
  dy -= yl;
  if (xl >= m.nx - 1) {
    xl = m.nx - 2;
    dx += 1;
  }
  if (yl >= m.ny - 1) {
    yl = m.ny - 2;
    dy += 1;
  }
  const float* r = m.back.data() + yl * m.nx;
  return (1 - dy) * ((1 - dx) * r[xl] + dx * r[xl + 1]) +
         dy * (dx * r[m.nx + xl + 1] + (1 - dx) * r[m.nx + xl]);
}

}  // namespace

TEST(ExtractRobust, BackBilinearNeverIndexesOutsideTheMesh) {
  const auto m = two_by_two_mesh();
  // Unchanged wherever the formula indexed inside the grid, including the extrapolated margin
  // left of and below the first mesh centre.
  for (int y = -15; y < 64; y += 3)
    for (int x = -15; x < 64; x += 5)
      EXPECT_NEAR(m.back_bilinear(x, y), reference_bilinear(m, x, y), 1e-5) << x << "," << y;
  // INT_MIN is what a NaN centroid becomes: the value of the nearest safe position.
  EXPECT_EQ(m.back_bilinear(INT_MIN, INT_MIN), m.back_bilinear(-15, -15));
  EXPECT_EQ(m.back_bilinear(INT_MIN, 10), m.back_bilinear(-15, 10));
  EXPECT_TRUE(std::isfinite(m.back_bilinear(INT_MAX, INT_MAX)));
}

// The file the fuzzer found, generated: noise and a 4 x 4 block of 3.4e38. The command exits 0
// with a catalog (the block is masked on reading, see FitsRobust.PixelsBeyondBigAreMasked).
TEST(ExtractRobust, HugePixelsDoNotCrashTheCommand) {
  const fs::path dir =
      fs::temp_directory_path() / ("celeris_extract_robust_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  celeris::Image<float> img(64, 64);
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(100.0f, 5.0f);
  for (auto& v : img.pixels()) v = noise(rng);
  for (int y = 30; y < 34; ++y)
    for (int x = 30; x < 34; ++x) img(x, y) = 3.4e38f;
  celeris::write_fits_image((dir / "huge.fits").string(), img.cview());
  const std::string cmd = std::string(CELERIS_BIN) + " extract " + (dir / "huge.fits").string() +
                          " -CATALOG_NAME " + (dir / "huge.cat").string() + " 2>/dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(fs::exists(dir / "huge.cat"));
  fs::remove_all(dir);
}
