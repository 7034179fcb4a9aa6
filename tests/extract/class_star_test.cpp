// ISO0..ISO7 and CLASS_STAR's network (measure_class_star.hpp) against hand-computed values;
// SExtractor's default.nnw, when installed, is read and classifies as expected. The last digit
// against SExtractor is checked by the parity ctests (extract.parity.*_class_star).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "celeris/error.hpp"
#include "extract/stages/measure_class_star.hpp"

namespace celeris::extract {
namespace {

TEST(IsoAreas, GeometricThresholdsFromThresholdToPeak) {
  // thresh 1, peak 256: thresholds 256^(i/8) = 2^i, i = 0..7.
  std::vector<Pixel> px;
  for (float v : {1.5f, 3.0f, 3.0f, 200.0f, 256.0f, 0.5f}) px.push_back({0, 0, v, v});
  int32_t iso[kNIso];
  const ObjectList object = ObjectList::of(px);
  iso_areas(object[0], 1.0f, 256.0f, iso);
  const int32_t want[kNIso] = {5, 4, 2, 2, 2, 2, 2, 2};  // > 1, > 2, > 4, ..., > 128
  for (int i = 0; i < kNIso; ++i) EXPECT_EQ(iso[i], want[i]) << i;
  // A non-positive peak or threshold: every threshold is 0.
  iso_areas(object[0], 1.0f, -3.0f, iso);
  for (int i = 0; i < kNIso; ++i) EXPECT_EQ(iso[i], 6) << i;
}

// 2 inputs -> 2 hidden -> 1 output, every number distinct.
constexpr const char* kTiny =
    "NNW\n# a comment\n 3 2 2 1\n\n0.5 -1.0\n2.0 0.25\n"
    "1.0 -2.0 0.1\n0.5 0.5 -0.3\n"
    "1.5 -1.0 0.2\n"
    "0.1\n0.8\n";

TEST(StarNetwork, RespondsAsASigmoidPerceptron) {
  const StarNetwork n = StarNetwork::parse(kTiny, "tiny");
  EXPECT_EQ(n.inputs(), 2);
  auto sig = [](double x) { return 1 / (1 + std::exp(-x)); };
  const double in0 = 3.0 * 2.0 + 0.5, in1 = -4.0 * 0.25 - 1.0;
  // hidden j: bias + sum_i w[i][j] in_i, weights listed per hidden neuron.
  const double h0 = sig(0.1 + 1.0 * in0 - 2.0 * in1), h1 = sig(-0.3 + 0.5 * in0 + 0.5 * in1);
  const double out = sig(0.2 + 1.5 * h0 - 1.0 * h1);
  EXPECT_NEAR(n.respond({3.0, -4.0}), (out - 0.1) / 0.8, 1e-12);
}

TEST(StarNetwork, MalformedTablesAreRefused) {
  EXPECT_THROW(StarNetwork::parse("CONV NORM\n1 2 1\n", "x"), Error);
  EXPECT_THROW(StarNetwork::parse("NNW\n3 2 2 1\n0.5 -1.0\n", "x"), Error);  // truncated
  EXPECT_THROW(StarNetwork::parse(std::string(kTiny) + "7\n", "x"), Error);  // extra
  EXPECT_THROW(StarNetwork::parse("NNW\n3 2 x 1\n", "x"), Error);
  EXPECT_THROW(StarNetwork::load("/nonexistent/default.nnw"), Error);
}

TEST(ClassStar, DefaultNetworkSeparatesAStarFromAGalaxy) {
  const char* path = "/usr/share/source-extractor/default.nnw";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent";
  const StarNetwork n = StarNetwork::load(path);
  ASSERT_EQ(n.inputs(), 10);
  // A bright point source, 1.2" seeing at 0.4"/px (FWHM 3 px): the areas of a Gaussian of FWHM
  // 3 px above thresholds spaced from 1 to its peak 1000; a galaxy: areas 10 times as large,
  // peak 10.
  const double sigma = 3.0 / 2.3548;
  int32_t star[kNIso], galaxy[kNIso];
  for (int i = 0; i < kNIso; ++i) {
    star[i] = static_cast<int32_t>(M_PI * 2 * sigma * sigma * std::log(1000.0) * (1 - i / 8.0));
    galaxy[i] =
        static_cast<int32_t>(10 * M_PI * 2 * sigma * sigma * std::log(10.0) * (1 - i / 8.0));
  }
  EXPECT_GT(class_star(n, star, 1000.0f, 1.0f, 1.2, 0.4), 0.8f);
  EXPECT_LT(class_star(n, galaxy, 10.0f, 1.0f, 1.2, 0.4), 0.2f);
}

}  // namespace
}  // namespace celeris::extract
