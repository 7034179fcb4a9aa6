// Deblending's pixel assignment on the GPU (gpu/deblend_children_gpu.hpp) against the host's
// choose_children, pixel for pixel: on random split detections with random children (tiny,
// zero, negative and non-finite amplitudes among them, where the weights' sums sit at the draw
// threshold or the shortcuts cannot decide) and random rand() values; children whose ellipse
// gives exponents at or below -70 leave their detection to the host (the stage with the GPU's
// choices: GpuDeblendTrees.StageGivesTheSameObjects). Skipped without a CUDA device.
#ifdef CELERIS_HAVE_CUDA

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "core/glibc_float_math_tables.hpp"
#include "extract/gpu/deblend_children_gpu.hpp"
#include "extract/sextractor/glibc_rand.hpp"
#include "extract/stages/deblend.hpp"

using namespace celeris;
using namespace celeris::extract;

namespace {

// A split detection of `npix` pixels scattered in a box, `n` children (a core pixel each, and
// more pixels in cores at random), its plan's draws counted as the stage counts them.
struct RandomDetection {
  ObjectList pixels;
  DeblendPlan plan;
};

RandomDetection random_detection(std::mt19937_64& rng, int npix, int n, int kind) {
  RandomDetection d;
  std::uniform_int_distribution<int> coord(0, 60);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < npix; ++i) d.pixels.push_pixel({coord(rng), coord(rng), 1.0f, 1.0f, 0, 0});
  d.pixels.end_object(0);
  DeblendPlan& p = d.plan;
  p.split = true;
  p.in_core.assign(static_cast<size_t>(npix), 0);
  for (int c = 0; c < n; ++c) {
    const size_t core = static_cast<size_t>(c) * static_cast<size_t>(npix) / n;
    p.in_core[core] = 1;
    p.core_index.push_back(static_cast<int32_t>(core));
    p.cores.add(static_cast<int64_t>(p.core_index.size()), 0, 0.0, 0.0);
    DeblendChild ch;
    ch.mx = 60 * u(rng);
    ch.my = 60 * u(rng);
    ch.cxx = static_cast<float>(0.01 + u(rng));
    ch.cyy = static_cast<float>(0.01 + u(rng));
    ch.cxy = static_cast<float>(0.2 * (u(rng) - 0.5));
    ch.abcor = static_cast<float>(0.5 + 0.5 * u(rng));
    ch.amplitude = static_cast<float>(1000 * u(rng));
    switch (kind) {
      case 1:  // sums near the draw threshold
        if (c % 2 == 0) ch.amplitude *= 1e-33f;
        break;
      case 2:  // zero and negative amplitudes
        ch.amplitude = c % 2 ? 0.0f : -ch.amplitude;
        break;
      case 3:  // not finite
        if (c == 0) ch.amplitude = std::numeric_limits<float>::infinity();
        if (c == 1) ch.amplitude = std::numeric_limits<float>::quiet_NaN();
        break;
      case 4:  // no ellipse: exponents far below zero (the host's)
        if (c == 0) ch.cxx = -5.0f;
        break;
      default:
        break;
    }
    p.children.push_back(ch);
    p.child_shapes.emplace_back();
  }
  for (int i = 0; i < npix; ++i)
    if (u(rng) < 0.1) p.in_core[static_cast<size_t>(i)] = 1;
  p.draws = count_deblend_draws(d.pixels[0], p);
  return d;
}

}  // namespace

TEST(GpuDeblendChildren, SameChoicesAsTheHost) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_EQ(glibcmath::expf_exceptions_mismatch(), "");
  std::mt19937_64 rng(17);
  std::vector<RandomDetection> dets;
  for (int j = 0; j < 600; ++j) {
    const int npix = j % 50 == 0 ? 3000 : 1 + static_cast<int>(rng() % 400);
    dets.push_back(random_detection(rng, npix, 2 + static_cast<int>(rng() % 9), j % 7));
  }
  DeblendChildrenJob job;
  job.chosen_begin.push_back(0);
  size_t draws = 0;
  for (const RandomDetection& d : dets) {
    job.parents.push_back(d.pixels[0]);
    job.plans.push_back(&d.plan);
    job.first_draw.push_back(draws);
    draws += d.plan.draws;
    job.chosen_begin.push_back(job.chosen_begin.back() + d.pixels.count(0));
  }
  std::vector<int32_t> random(draws);
  for (int32_t& r : random) r = static_cast<int32_t>(rng() % (GlibcRand::kRandMax + 1u));
  random[0] = 0;
  if (draws > 1) random[1] = GlibcRand::kRandMax;
  job.random = random.data();
  job.draws = draws;
  job.threads = 4;
  std::vector<int32_t> chosen;
  std::vector<uint8_t> done;
  gpu::choose_deblend_children(job, chosen, done, nullptr);
  ASSERT_EQ(done.size(), dets.size());
  size_t made = 0, left = 0, pixels = 0;
  std::vector<float> scratch;
  for (size_t j = 0; j < dets.size(); ++j) {
    if (!done[j]) {
      ++left;
      continue;
    }
    ++made;
    std::vector<int32_t> want(dets[j].pixels.count(0));
    choose_children(dets[j].plan, random.data() + job.first_draw[j], job.parents[j], scratch,
                    want.data());
    for (size_t i = 0; i < want.size(); ++i, ++pixels)
      ASSERT_EQ(chosen[job.chosen_begin[j] + i], want[i])
          << "detection " << j << " (kind " << j % 7 << ") pixel " << i;
  }
  EXPECT_GT(made, 480u);
  EXPECT_GT(left, 10u);  // the detections without an ellipse, most of them
  std::printf("%zu detections chosen on the GPU (%zu pixels), %zu left to the host\n", made, pixels,
              left);
}

#endif  // CELERIS_HAVE_CUDA
