// bench_spp: SPP timings per window size, in the shape of Table 1 of Delgado et al. (serial C,
// 1-pixel/block and N-pixels/block GPU kernels), on a given cube or a simulated one of the
// paper's size (350 x 350 x 188). Prints the machine, date and command, then one row per window:
// best-of-N seconds for the single-thread CPU (the paper's serial peer), all CPU threads, and
// the CUDA kernels when compiled and a device is present, with speed-ups over the single thread.
#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include "celeris/device.hpp"
#include "celeris/hyperspectral.hpp"

namespace hs = celeris::hyperspectral;

namespace {

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

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_spp: SPP timings per window (Delgado et al. Table 1 layout)"};
  std::string input;
  std::vector<int> windows = {3, 5, 7, 9, 11};
  int lines = 350, samples = 350, bands = 188, repeats = 3;
  bool serial = true;
  app.add_option("--cube", input, "cube to time (default: simulated, paper size)");
  app.add_option("--lines", lines, "simulated lines")->capture_default_str();
  app.add_option("--samples", samples, "simulated samples")->capture_default_str();
  app.add_option("--bands", bands, "simulated bands")->capture_default_str();
  app.add_option("--windows", windows, "window sizes")->capture_default_str();
  app.add_option("--repeats", repeats, "runs per measurement (best kept)")->capture_default_str();
  app.add_flag("!--no-serial", serial, "skip the single-thread CPU column");
  CLI11_PARSE(app, argc, argv);

  hs::Cube cube;
  if (input.empty()) {
    hs::CubeSimParams p;
    p.lines = lines, p.samples = samples, p.bands = bands, p.endmembers = 5, p.seed = 1;
    cube = hs::simulate_cube(p).cube;
    input = "simulated " + std::to_string(lines) + "x" + std::to_string(samples) + "x" +
            std::to_string(bands);
  } else {
    cube = hs::read_cube(input);
  }
  char host[256] = "?";
  gethostname(host, sizeof host);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
  std::printf("# bench_spp  %s\n# host %s, %s, %d OpenMP threads\n# %s\n# command: %s\n", date,
              host, cpu_model().c_str(), omp_get_max_threads(), celeris::describe_devices().c_str(),
              cmd.c_str());
  std::printf(
      "# cube: %s (%d lines x %d samples x %d bands); best of %d runs, seconds, in place "
      "(Cube&&)\n",
      input.c_str(), cube.lines, cube.samples, cube.bands, repeats);
  const bool gpu = hs::spp_cuda_compiled() && celeris::cuda_device_count() > 0;
  // Whole call (read cube in memory -> preprocessed cube in memory), then in brackets the alpha
  // stage alone (eq. 1: the loop, or the kernel by CUDA events).
  std::printf("%-7s %10s %10s %8s %9s", "window", "cpu_1thr", "cpu_all", "speedup", "[alpha]");
  if (gpu)
    std::printf(" %10s %8s %9s %10s %8s %9s", "cuda_block", "speedup", "[kernel]", "cuda_tile",
                "speedup", "[kernel]");
  std::printf("\n");
  const int threads = omp_get_max_threads();
  for (int w : windows) {
    double t1 = 0;
    if (serial) {
      omp_set_num_threads(1);
      t1 = best_of_inplace(repeats, cube, [&](hs::Cube&& c) { hs::spp_cpu(std::move(c), w); });
      omp_set_num_threads(threads);
    }
    double an = 1e300, ab = 1e300, at = 1e300;
    const double tn = best_of_inplace(repeats, cube, [&](hs::Cube&& c) {
      an = std::min(an, hs::spp_cpu(std::move(c), w).alpha_seconds);
    });
    std::printf("%-7d %10.4f %10.4f %8.2f %9.4f", w, t1, tn, serial ? t1 / tn : 0.0, an);
    if (gpu) {
      hs::spp_cuda(cube, w, false, "block");  // warm-up
      const double tb = best_of_inplace(repeats, cube, [&](hs::Cube&& c) {
        ab = std::min(ab, hs::spp_cuda(std::move(c), w, false, "block").alpha_seconds);
      });
      const double tt = best_of_inplace(repeats, cube, [&](hs::Cube&& c) {
        at = std::min(at, hs::spp_cuda(std::move(c), w, false, "tile").alpha_seconds);
      });
      std::printf(" %10.4f %8.2f %9.5f %10.4f %8.2f %9.5f", tb, serial ? t1 / tb : 0.0, ab, tt,
                  serial ? t1 / tt : 0.0, at);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
