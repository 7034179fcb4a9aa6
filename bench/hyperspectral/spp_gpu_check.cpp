// spp_gpu_check: checks the CUDA SPP kernels against the float64 reference and times them with
// the CPU path, with no dependency beyond the SPP sources (for GPU machines that lack CFITSIO
// or matio). Built by gpu_standalone.sh; the CMake build has bench_spp and the unit tests instead.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "celeris/simulate.hpp"
#include "hyperspectral/spp_backends.hpp"
#ifdef SPP_STANDALONE
#include "hyperspectral/internal.hpp"
#endif

namespace hs = celeris::hyperspectral;

#ifdef SPP_STANDALONE
// Atomic-write helpers live in libceleris' FITS sources; the check writes no file.
namespace celeris {
std::string temporary_sibling(const std::string& p) {
  return p + ".tmp";
}
void commit_temporary(const std::string&, const std::string&) {}
void discard_temporary(const std::string&) {}
}  // namespace celeris
// FITS and MATLAB I/O need CFITSIO and matio, absent in the standalone build.
namespace celeris::hyperspectral {
Cube read_fits_cube(const std::string&) {
  throw Error("FITS not in the standalone build");
}
Cube read_mat_cube(const std::string&, const std::string&) {
  throw Error("no matio here");
}
void write_fits_cube(const std::string&, const Cube&) {
  throw Error("no FITS here");
}
void write_mat_cube(const std::string&, const Cube&) {
  throw Error("no matio here");
}
}  // namespace celeris::hyperspectral
#endif

static double best_of(int n, const std::function<void()>& f) {
  double best = 1e300;
  for (int r = 0; r < n; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// Times f(std::move(copy)) on a fresh copy of `cube` per run: the in-place (Cube&&) entry points,
// the copy made outside the timed region.
template <class F>
double best_of_inplace(int n, const hs::Cube& cube, F f) {
  double best = 1e300;
  for (int r = 0; r < n; ++r) {
    hs::Cube copy = cube;
    const auto t0 = std::chrono::steady_clock::now();
    f(std::move(copy));
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

int main() {
  std::printf("%s\n", celeris::describe_devices().c_str());
  if (!hs::spp_cuda_compiled() || celeris::cuda_device_count() == 0) {
    std::printf("no CUDA backend or device: nothing to check\n");
    return 0;
  }
  int failures = 0;
  for (int w : {3, 5, 7, 9, 11, 15, 33}) {
    hs::Cube c(37, 29, 41);
    std::mt19937 rng(100 + w);
    std::uniform_real_distribution<float> u(0, 1);
    for (auto& v : c.data) v = u(rng);
    for (int b = 0; b < c.bands; ++b) c.at(b, 3, 4) = 0;  // a zero-norm pixel
    std::vector<double> ref_alpha;
    const auto ref = hs::spp_reference({c.data.begin(), c.data.end()}, c.bands, c.lines, c.samples,
                                       w, &ref_alpha);
    for (const std::string& k : hs::spp_cuda_kernels()) {
      const auto g = hs::spp_cuda(c, w, true, k);
      double worst = 0, alpha_err = 0;
      for (size_t i = 0; i < ref.size(); ++i)
        worst =
            std::max(worst, std::abs(g.cube.data[i] - ref[i]) / std::max(std::abs(ref[i]), 1e-3));
      for (size_t p = 0; p < ref_alpha.size(); ++p)
        alpha_err = std::max(alpha_err, std::abs(g.alpha[p] - ref_alpha[p]));
      const bool ok = worst <= 1e-5 && alpha_err <= 1e-5;
      failures += !ok;
      std::printf("check w=%-2d %-5s max rel %.2e, alpha abs %.2e %s\n", w, k.c_str(), worst,
                  alpha_err, ok ? "OK" : "FAIL");
    }
  }
  celeris::sim::CubeSimParams p;
  p.lines = 350, p.samples = 350, p.bands = 188, p.endmembers = 5;
  const hs::Cube cube = celeris::sim::simulate_cube(p).cube;
  std::printf("timing 350x350x188, best of 3, seconds (CPU: %d threads)\n", omp_get_max_threads());
  std::printf("%-7s %9s %9s %9s %8s\n", "window", "cpu", "block", "tile", "cpu/tile");
  hs::spp_cuda(cube, 3, false, "tile");  // context warm-up
#ifdef SPP_STANDALONE
  {
    // Host stages around the alpha kernel/loop.
    std::vector<float> alpha(cube.pixels(), 0.1f);
    const double tc = best_of(3, [&] { hs::detail::spp_centroid(cube); });
    const double tp = best_of(3, [&] { hs::detail::spp_prepare(cube, 16); });
    const double tf = best_of_inplace(3, cube, [&](hs::Cube&& c) {
      hs::detail::spp_finish(std::move(c), alpha, std::vector<double>(cube.bands, 0.5), false);
    });
    const double tcopy = best_of(3, [&] { hs::Cube c2 = cube; });
    std::printf("host stages: centroid %.4f, prepare %.4f, finish %.4f, cube copy %.4f s\n", tc, tp,
                tf, tcopy);
  }
#endif
  for (int w : {3, 5, 7, 9, 11, 15}) {
    const double tc = best_of_inplace(3, cube, [&](hs::Cube&& c) { hs::spp_cpu(std::move(c), w); });
    const double tb = best_of_inplace(
        3, cube, [&](hs::Cube&& c) { hs::spp_cuda(std::move(c), w, false, "block"); });
    const double tt = best_of_inplace(
        3, cube, [&](hs::Cube&& c) { hs::spp_cuda(std::move(c), w, false, "tile"); });
    std::printf("%-7d %9.4f %9.4f %9.4f %8.1f\n", w, tc, tb, tt, tc / tt);
    const auto a = hs::spp_cpu(cube, w, true), g = hs::spp_cuda(cube, w, true, "tile");
    double e = 0;
    for (size_t i = 0; i < a.alpha.size(); ++i)
      e = std::max(e, double(std::abs(a.alpha[i] - g.alpha[i])));
    const auto gb = hs::spp_cuda(cube, w, false, "block");
    std::printf(
        "        alpha stage only: cpu %.4f, block kernel %.4f, tile kernel %.4f s; "
        "cpu vs tile alpha max abs diff %.2e\n",
        a.alpha_seconds, gb.alpha_seconds, g.alpha_seconds, e);
  }
  std::printf("%s\n", failures ? "FAILED" : "ALL OK");
  return failures ? 1 : 0;
}
