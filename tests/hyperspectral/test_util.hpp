// Helpers for the hyperspectral tests: scratch directories and random cubes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "celeris/hyperspectral.hpp"

namespace celeris::hyperspectral::testing {

// A fresh directory removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ =
        std::filesystem::temp_directory_path() /
        ("celeris_hs_" + std::string(info ? info->name() : "x") + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Uniform values in [lo, hi), reproducible.
inline Cube random_cube(int bands, int lines, int samples, unsigned seed, float lo = 0.0f,
                        float hi = 1.0f) {
  Cube c(bands, lines, samples);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (auto& v : c.data) v = u(rng);
  return c;
}

inline std::string data_dir() {
  return std::string(CELERIS_TEST_DATA) + "/hyperspectral";
}

}  // namespace celeris::hyperspectral::testing
