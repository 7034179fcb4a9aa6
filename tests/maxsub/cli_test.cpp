// `celeris maxsub` end to end: the CLI's JSON equals the library on the same pixels.
#include <fitsio.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "celeris/extract.hpp"
#include "celeris/fits.hpp"
#include "celeris/maxsub.hpp"
#include "celeris/table.hpp"

namespace fs = std::filesystem;
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

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr
};

Result run_cli(const std::string& args) {
  const std::string cmd = std::string(CELERIS_BIN) + " maxsub " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// All values of "key": number in the JSON text, in order.
std::vector<double> json_numbers(const std::string& text, const std::string& key) {
  std::vector<double> out;
  const std::regex re("\"" + key + "\": ([-+0-9.eE]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back(std::stod((*it)[1]));
  return out;
}

class MaxsubCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(CELERIS_BIN)) GTEST_SKIP() << "CLI not built: " << CELERIS_BIN;
    dir_ = fs::temp_directory_path() / ("celeris_maxsub_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

const std::vector<float> kPaper = {-1, 2,  -3, 5,  -4, -8, 3,  -3,  //
                                   2,  -4, -6, -8, 2,  -5, 4,  1,   //
                                   3,  -2, 9,  -9, 3,  6,  -5, 2,   //
                                   1,  -3, 5,  -7, 8,  -2, 2,  -6};

}  // namespace

TEST_F(MaxsubCli, PaperExample) {
  std::vector<float> px = kPaper;
  celeris::write_fits_image(path("paper.fits"), {px.data(), 8, 4});
  const Result r = run_cli(path("paper.fits") + " -o " + path("paper.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string j = slurp(path("paper.json"));
  EXPECT_EQ(json_numbers(j, "sum"), std::vector<double>{15});
  // FITS 1-based: columns 5..6 (x), rows 3..4 (y), as the paper's (3,5)-(4,6) in (row, column).
  EXPECT_EQ(json_numbers(j, "x_min"), std::vector<double>{5});
  EXPECT_EQ(json_numbers(j, "x_max"), std::vector<double>{6});
  EXPECT_EQ(json_numbers(j, "y_min"), std::vector<double>{3});
  EXPECT_EQ(json_numbers(j, "y_max"), std::vector<double>{4});
  // K overlapping: the library's list, best first.
  const Result o = run_cli(path("paper.fits") + " --overlap --k 4 -o " + path("overlap.json"));
  ASSERT_EQ(o.status, 0) << o.output;
  std::vector<double> a(kPaper.begin(), kPaper.end());
  std::vector<double> want;
  for (const ms::Rect& q : ms::k_max_overlapping(a, 8, 4, 4)) want.push_back(q.sum);
  EXPECT_EQ(json_numbers(slurp(path("overlap.json")), "sum"), want);
  EXPECT_EQ(want.front(), 15);
  for (const char* m : {"alg8", "alg9", "brute", "auto"}) {
    const Result q = run_cli(path("paper.fits") + " --method " + m + " --precision float");
    EXPECT_EQ(q.status, 0) << q.output;
    EXPECT_NE(q.output.find("5..6"), std::string::npos) << q.output;
  }
}

TEST_F(MaxsubCli, NanIsAnErrorUnlessAsked) {
  std::vector<float> px = kPaper;
  px[8 * 2 + 1] = NAN;  // x=2, y=3 (1-based)
  celeris::write_fits_image(path("nan.fits"), {px.data(), 8, 4});
  const Result r = run_cli(path("nan.fits") + " -o " + path("nan.json"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(
      r.output.find("1 masked (NaN) pixels, the first at x=2 y=3; use --nan zero or --nan min"),
      std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(path("nan.json")));
  const Result z = run_cli(path("nan.fits") + " --nan zero -o " + path("nan.json"));
  ASSERT_EQ(z.status, 0) << z.output;
  EXPECT_EQ(json_numbers(slurp(path("nan.json")), "sum"), std::vector<double>{15});
  const Result m = run_cli(path("nan.fits") + " --nan min --k 3");
  EXPECT_EQ(m.status, 0) << m.output;
}

TEST_F(MaxsubCli, BadOptions) {
  std::vector<float> px = kPaper;
  celeris::write_fits_image(path("p.fits"), {px.data(), 8, 4});
  EXPECT_NE(run_cli(path("p.fits") + " --offset sky").status, 0);
  EXPECT_NE(run_cli(path("p.fits") + " --shape convex --overlap").status, 0);
  EXPECT_NE(run_cli(path("missing.fits")).status, 0);
  const Result r = run_cli(path("p.fits") + " --shape convex --k 2 -o " + path("c.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(slurp(path("c.json")).find("\"columns\""), std::string::npos);
}

// A real image with a celestial WCS and masked pixels; skipped when the data are absent.
TEST_F(MaxsubCli, BolocamEqualsLibrary) {
  const std::string img = std::string(CELERIS_TEST_DATA) + "/images/gc_bolocam_gps.fits";
  if (!fs::exists(img)) GTEST_SKIP() << "no " << img;
  const double offset = 0.25;
  const Result r =
      run_cli(img + " --offset 0.25 --nan zero --k 3 --method cpu -o " + path("bolocam.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string j = slurp(path("bolocam.json"));

  const celeris::FitsImage f = celeris::read_fits_image(img);
  const int w = int(f.pixels.width()), h = int(f.pixels.height());
  std::vector<double> a(f.pixels.pixels().begin(), f.pixels.pixels().end());
  for (double& v : a) v = std::isfinite(v) ? v - offset : 0.0;
  const std::vector<ms::Rect> lib = ms::k_max_disjoint(a, w, h, 3);
  ASSERT_EQ(lib.size(), 3u);
  EXPECT_EQ(lib[0], ms::max_subarray(a, w, h, with(M("alg8"), ms::Precision::Double)));
  const auto sums = json_numbers(j, "sum"), x0 = json_numbers(j, "x_min"),
             x1 = json_numbers(j, "x_max"), y0 = json_numbers(j, "y_min"),
             y1 = json_numbers(j, "y_max");
  ASSERT_EQ(sums.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(sums[i], lib[i].sum);
    EXPECT_EQ(x0[i], lib[i].left + 1);
    EXPECT_EQ(x1[i], lib[i].right + 1);
    EXPECT_EQ(y0[i], lib[i].top + 1);
    EXPECT_EQ(y1[i], lib[i].bottom + 1);
  }
  EXPECT_NE(j.find("\"centre_radec\""), std::string::npos) << "the image has a WCS";
  EXPECT_NE(j.find("\"corners_radec\""), std::string::npos);
}

namespace {

// Two smooth blobs on a negative floor: a unique best region for each shape.
std::vector<float> two_blobs(int w, int h) {
  std::vector<float> px(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      px[size_t(y) * w + x] =
          float(-1.0 + 12.0 * std::exp(-((x - 10) * (x - 10) + (y - 8) * (y - 8)) / 8.0) +
                9.0 * std::exp(-((x - 30) * (x - 30) + (y - 20) * (y - 20)) / 10.0));
  return px;
}

}  // namespace

// -o result.fits holds the JSON's rows; --mask marks each region's pixels with its rank.
TEST_F(MaxsubCli, FitsTableAndMaskAgreeWithJson) {
  std::vector<float> px = two_blobs(40, 30);
  celeris::write_fits_image(path("blobs.fits"), {px.data(), 40, 30});
  for (const std::string shape : {"rect", "convex"}) {
    SCOPED_TRACE(shape);
    const std::string common = path("blobs.fits") + " --shape " + shape + " --k 2";
    ASSERT_EQ(run_cli(common + " -o " + path("r.json")).status, 0);
    const Result r = run_cli(common + " -o " + path("r.fits") + " --mask " + path("m.fits"));
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string j = slurp(path("r.json"));
    const celeris::Table t = celeris::read_fits_table(path("r.fits"));
    ASSERT_EQ(t.rows, 2u);
    const auto npix = json_numbers(j, "npix");
    for (const char* key : {"sum", "raw_sum", "npix", "x_min", "x_max", "y_min", "y_max"}) {
      std::string col = key;
      for (char& c : col) c = char(std::toupper(c));
      const auto want = json_numbers(j, key);
      ASSERT_EQ(want.size(), 2u) << key;
      for (size_t i = 0; i < 2; ++i) EXPECT_EQ(t.find(col)->at(i), want[i]) << key;
    }
    const celeris::FitsImage m = celeris::read_fits_image(path("m.fits"));
    std::vector<double> count(3, 0);
    for (float v : m.pixels.pixels()) count[size_t(v)] += 1;
    EXPECT_EQ(count[1], npix[0]);
    EXPECT_EQ(count[2], npix[1]);
    EXPECT_EQ(m.header.value_string("OFFSET").value_or(""), "none");
  }
}

// --offset background subtracts the extraction's background map, pixel by pixel.
TEST_F(MaxsubCli, BackgroundOffsetIsTheExtractionsMap) {
  const int w = 160, h = 120;
  std::vector<float> px(size_t(w) * h);
  uint32_t s = 7;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      s = s * 1664525u + 1013904223u;
      const double noise = (double(s >> 8) / double(1 << 24) - 0.5) * 2.0;
      px[size_t(y) * w + x] =
          float(100.0 + 0.2 * x + 0.1 * y + noise +
                30.0 * std::exp(-((x - 50) * (x - 50) + (y - 70) * (y - 70)) / 20.0));
    }
  celeris::write_fits_image(path("grad.fits"), {px.data(), w, h});
  const Result r = run_cli(path("grad.fits") + " --offset background:32 -o " + path("g.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string j = slurp(path("g.json"));
  EXPECT_NE(j.find("\"offset_per_pixel\": true"), std::string::npos);

  celeris::extract::Config c;
  c.back_width = c.back_height = 32;
  const celeris::Image<float> back = celeris::extract::background_image({px.data(), w, h}, c);
  std::vector<double> a(px.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = double(px[i]) - double(back.data()[i]);
  const ms::Rect lib = ms::max_subarray(a, w, h, with(M("cpu"), ms::Precision::Double));
  EXPECT_DOUBLE_EQ(json_numbers(j, "sum").at(0), lib.sum);
  EXPECT_EQ(json_numbers(j, "x_min").at(0), lib.left + 1);
  EXPECT_EQ(json_numbers(j, "y_max").at(0), lib.bottom + 1);
  // Not what a constant offset gives: the map varies (a gradient of 0.2 and 0.1 per pixel).
  const Result m = run_cli(path("grad.fits") + " --offset median -o " + path("m.json"));
  ASSERT_EQ(m.status, 0) << m.output;
  EXPECT_NE(json_numbers(slurp(path("m.json")), "sum").at(0), lib.sum);
  EXPECT_NE(run_cli(path("grad.fits") + " --offset background:0").status, 0);
  EXPECT_NE(run_cli(path("grad.fits") + " --offset background:x").status, 0);
}

// --png writes a PNG of the image's size (skipped in builds without stb_image_write).
TEST_F(MaxsubCli, PngOverlay) {
  std::vector<float> px = two_blobs(40, 30);
  celeris::write_fits_image(path("blobs.fits"), {px.data(), 40, 30});
  const Result r = run_cli(path("blobs.fits") + " --shape convex --png " + path("o.png"));
  if (r.status != 0 && r.output.find("no PNG writer") != std::string::npos)
    GTEST_SKIP() << "built without PNG support";
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string png = slurp(path("o.png"));
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  auto be32 = [&](size_t o) {
    return (uint32_t(uint8_t(png[o])) << 24) | (uint32_t(uint8_t(png[o + 1])) << 16) |
           (uint32_t(uint8_t(png[o + 2])) << 8) | uint32_t(uint8_t(png[o + 3]));
  };
  EXPECT_EQ(be32(16), 40u);  // IHDR width
  EXPECT_EQ(be32(20), 30u);  // IHDR height
}

// --algorithm and --device spell the same runs as the former --method, with byte-identical
// output files; mixing the two spellings, or a pair no implementation runs, is refused.
TEST_F(MaxsubCli, DeviceAndAlgorithmFlagsEqualTheFormerMethod) {
  std::vector<float> px = kPaper;
  celeris::write_fits_image(path("paper.fits"), {px.data(), 8, 4});
  const struct {
    const char* method;
    const char* split;
  } cases[] = {{"cpu", "--algorithm rowpairs --device cpu"},
               {"alg8", "--algorithm alg8 --device cpu"},
               {"alg9", "--algorithm alg9"},
               {"brute", "--algorithm brute --device auto"}};
  for (const auto& c : cases) {
    const Result a =
        run_cli(path("paper.fits") + " --k 2 --method " + c.method + " -o " + path("a.json"));
    const Result b = run_cli(path("paper.fits") + " --k 2 " + c.split + " -o " + path("b.json"));
    ASSERT_EQ(a.status, 0) << a.output;
    ASSERT_EQ(b.status, 0) << b.output;
    EXPECT_EQ(slurp(path("a.json")), slurp(path("b.json"))) << c.method;
    EXPECT_NE(slurp(path("b.json")).find(std::string("\"method\": \"") + c.method + "\""),
              std::string::npos);
  }
  EXPECT_NE(run_cli(path("paper.fits") + " --method cpu --device cpu").status, 0);
  EXPECT_NE(run_cli(path("paper.fits") + " --method cpu --algorithm alg8").status, 0);
  const Result bad = run_cli(path("paper.fits") + " --algorithm alg8 --device cuda");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("runs on the CPU only"), std::string::npos) << bad.output;
  EXPECT_NE(run_cli(path("paper.fits") + " --algorithm alg38 --device cpu").status, 0);
}

// Acceptance of issue 16: on a BITPIX -64 image the maximum equals a float64 brute force to 1e-12
// relative. The pixels are chosen so that reading them as float32 (as before) misses by far more.
TEST_F(MaxsubCli, Float64ImageKeepsItsPrecision) {
  const int w = 23, h = 17;
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> px(size_t(w) * h);
  for (double& v : px) v = u(rng) + 1e-9 * u(rng);  // digits below float32's resolution
  const std::string img = path("d64.fits");
  {
    fitsfile* f = nullptr;
    int status = 0;
    long naxes[2] = {w, h};
    fits_create_file(&f, ("!" + img).c_str(), &status);
    fits_create_img(f, DOUBLE_IMG, 2, naxes, &status);
    fits_write_img(f, TDOUBLE, 1, LONGLONG(px.size()), px.data(), &status);
    fits_close_file(f, &status);
    ASSERT_EQ(status, 0);
  }
  // float64 brute force: every rectangle summed directly in long double.
  long double best = -1e300L;
  long double best_f = -1e300L;  // the same search over the float32-rounded pixels
  for (int t = 0; t < h; ++t)
    for (int b = t; b < h; ++b)
      for (int l = 0; l < w; ++l)
        for (int r = l; r < w; ++r) {
          long double s = 0, sf = 0;
          for (int y = t; y <= b; ++y)
            for (int x = l; x <= r; ++x) {
              s += px[size_t(y) * w + x];
              sf += static_cast<float>(px[size_t(y) * w + x]);
            }
          best = std::max(best, s);
          best_f = std::max(best_f, sf);
        }
  const double exact = double(best);
  ASSERT_GT(std::fabs(double(best_f) - exact), 1e-10 * std::fabs(exact))
      << "the test must distinguish float32 from float64 input";
  for (const char* device : {"cpu", "auto"}) {
    const Result r = run_cli(img + " --device " + device + " -o " + path("d64.json"));
    ASSERT_EQ(r.status, 0) << r.output;
    const std::vector<double> sums = json_numbers(slurp(path("d64.json")), "sum");
    ASSERT_EQ(sums.size(), 1u);
    EXPECT_NEAR(sums[0], exact, 1e-12 * std::fabs(exact)) << device;
  }
  // The median offset too is taken from the float64 values.
  const Result m = run_cli(img + " --offset median -o " + path("m.json"));
  ASSERT_EQ(m.status, 0) << m.output;
  std::vector<double> sorted = px;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted.size() % 2, 1u);
  EXPECT_EQ(json_numbers(slurp(path("m.json")), "offset_value").at(0), sorted[sorted.size() / 2]);
}
