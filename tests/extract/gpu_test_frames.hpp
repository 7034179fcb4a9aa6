// The simulated frames the GPU stages' device tests share: a frame less a flat background, and
// a detection image of its own (the value image plus noise) or the value image again.
#pragma once

#include <cstdint>
#include <random>

#include "celeris/image.hpp"
#include "celeris/simulate.hpp"

namespace celeris::extract::gpu_test {

struct FrameCase {
  int width, height, stars, nan_patches;
  uint64_t seed;
  bool filtered;  // a detection image of its own (else the value image)
};

struct TestFrame {
  Image<float> image;          // as simulated
  Image<float> value, cvalue;  // less 1000 ADU; the detection image
};

// `rng` draws the detection image's noise (the caller's later draws follow on).
inline TestFrame test_frame(const FrameCase& k, std::mt19937_64& rng) {
  sim::ImageParams p;
  p.width = k.width;
  p.height = k.height;
  p.seed = k.seed;
  p.n_stars = k.stars;
  p.n_nan_patches = k.nan_patches;
  TestFrame f;
  f.image = sim::simulate_image(p).pixels;
  f.value = f.image;
  for (auto& v : f.value.pixels()) v -= 1000.0f;
  f.cvalue = f.value;
  if (k.filtered)
    for (auto& v : f.cvalue.pixels()) v += static_cast<float>(rng() % 64) - 20.0f;
  return f;
}

}  // namespace celeris::extract::gpu_test
