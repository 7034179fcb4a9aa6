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

#include "celeris/error.hpp"
#include "celeris/extract_settings.hpp"
#include "celeris/fits.hpp"
#include "extract/settings/parameters.hpp"
#include "extract/stages/background.hpp"

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
  // The build's command-line tool, or the one $CELERIS_BIN names (prebuilt binaries run on
  // another machine, scripts/device-prebuilt.sh, where the build's path does not exist).
  const char* bin = std::getenv("CELERIS_BIN");
  const std::string cmd = std::string(bin && *bin ? bin : CELERIS_BIN) + " extract " +
                          (dir / "huge.fits").string() + " -CATALOG_NAME " +
                          (dir / "huge.cat").string() + " 2>/dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(fs::exists(dir / "huge.cat"));
  fs::remove_all(dir);
}

namespace {
void expect_short_printable(const std::string& m) {
  EXPECT_LT(m.size(), 200u) << m.substr(0, 300);
  for (unsigned char c : m) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << m.substr(0, 300);
}
}  // namespace

// A 2 MB junk line in a .param file became a 2 MB warning, control characters included.
TEST(ExtractRobust, ParamJunkLineIsQuotedShortAndPrintable) {
  std::string junk(2 << 20, 'x');
  junk[10] = '\x1b';
  std::vector<std::string> warnings;
  const auto params = celeris::extract::parse_parameter_list("NUMBER\n" + junk + "\nFLUX_ISO\n",
                                                             "my.param", warnings);
  EXPECT_EQ(params.size(), 2u);
  ASSERT_EQ(warnings.size(), 1u);
  expect_short_printable(warnings[0]);
  EXPECT_NE(warnings[0].find("my.param line 2"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("\\x1B"), std::string::npos) << warnings[0];
  try {
    celeris::extract::parse_parameter_list("FLUX_APER(0" + junk + ")\n", "my.param", warnings);
    ADD_FAILURE() << "no error";
  } catch (const celeris::Error& e) {
    expect_short_printable(e.what());
  }
}

TEST(ExtractRobust, ConvErrorsAreOneShortLine) {
  celeris::extract::Config config;
  const std::string junk = "1\x0b" + std::string(100000, '7') + "\x01";
  for (const std::string& text : {"CONV NORM\n1 2 1\n2 " + junk + " 2\n",
                                  std::string("CONV NORM\n1 2 1\n\x01\x02\x03\r\n")}) {
    try {
      celeris::extract::parse_filter(text, "my.conv", config);
      ADD_FAILURE() << "no error";
    } catch (const celeris::Error& e) {
      const std::string m = e.what();
      expect_short_printable(m);
      EXPECT_NE(m.find("my.conv line 3"), std::string::npos) << m;
    }
  }
}

// A configuration value or key of megabytes of junk is quoted short and printable.
TEST(ExtractRobust, JunkSettingValuesAreQuotedShortAndPrintable) {
  const std::string junk = std::string(1 << 20, 'x') + "\x01\x7f";
  try {
    celeris::extract::load_settings("", {{"DETECT_THRESH", junk}});
    FAIL() << "junk DETECT_THRESH accepted";
  } catch (const celeris::Error& e) {
    const std::string m = e.what();
    EXPECT_LT(m.size(), 200u) << m.substr(0, 200);
    EXPECT_NE(m.find("DETECT_THRESH"), std::string::npos);
    for (char c : m) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << static_cast<int>(c);
  }
  const celeris::extract::Settings s = celeris::extract::load_settings("", {{junk, "1"}});
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_LT(s.warnings.back().size(), 200u);
}
