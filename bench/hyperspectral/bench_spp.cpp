// bench_spp: SPP timings per window size in the shape of Table 1 of Delgado et al. (serial C,
// 1-pixel/block and N-pixels/block GPU kernels), plus celeris' strip kernel, in one run:
//   1. the paper's scene size (simulated 350 x 350 x 188, int16-quantised reflectance x 10000
//      like the AVIRIS Cuprite cube): serial CPU, all CPU threads, and per CUDA kernel the
//      device-resident time (cube on the device -> displaced cube on the device, CUDA events,
//      median of --gpu-repeats) and the host-to-host time (spp_cuda: allocation, upload, the same
//      work, download; host clock, best of --repeats); with --check, every output against the
//      float64 reference;
//   2. --large LxSxB: a large simulated scene for scale (a 1024 x 1024 simulation tiled to size);
//   3. --real FILE...: real scenes.
// Prints the machine, date and command first.
#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "../common/median.hpp"
#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/hyperspectral.hpp"
#include "celeris/simulate.hpp"
#include "hyperspectral/spp_backends.hpp"
#ifdef CELERIS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace hs = celeris::hyperspectral;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Best of n runs of f(std::move(copy)) on a fresh copy of `cube` (the in-place entry points; the
// copy is made outside the timed region).
template <class F>
double best_of_inplace(int n, const hs::Cube& cube, F f) {
  double best = 1e300;
  for (int r = 0; r < n; ++r) {
    hs::Cube copy = cube;
    const auto t0 = std::chrono::steady_clock::now();
    f(std::move(copy));
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

using celeris::bench::median;

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

// Largest |a - b| / max(|b|, 1e-3 * max|b|) over all values: relative error with a floor, so
// values near zero do not dominate.
double max_rel(const std::vector<float>& a, const std::vector<double>& b) {
  double top = 0, worst = 0;
  for (double v : b) top = std::max(top, std::abs(v));
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(std::abs(b[i]), 1e-3 * top));
  return worst;
}

struct GpuTimes {
  double device_median = 0, device_min = 0, alpha_median = 0, wall_median = 0;
  hs::SppDeviceTimes stages;  // the median run's stages
};

#ifdef CELERIS_HAVE_CUDA
void check(cudaError_t e) {
  if (e != cudaSuccess) throw celeris::Error(std::string("bench: ") + cudaGetErrorString(e));
}

// Device-resident runs: a pristine copy of the cube stays on the device and is copied (untimed)
// into the working buffer before each run, so every run sees the same input.
class DeviceCube {
 public:
  explicit DeviceCube(const hs::Cube& c) : cube_(c), n_(c.size()) {
    check(cudaMalloc(&pristine_, n_ * sizeof(float)));
    check(cudaMalloc(&work_, n_ * sizeof(float)));
    check(cudaMemcpy(pristine_, c.data.data(), n_ * sizeof(float), cudaMemcpyHostToDevice));
  }
  ~DeviceCube() {
    cudaFree(pristine_);
    cudaFree(work_);
  }
  DeviceCube(const DeviceCube&) = delete;
  DeviceCube& operator=(const DeviceCube&) = delete;

  GpuTimes time(int window, const std::string& kernel, int repeats) {
    run(window, kernel);  // warm-up
    std::vector<hs::SppDeviceTimes> runs;
    for (int r = 0; r < repeats; ++r) runs.push_back(run(window, kernel));
    std::sort(runs.begin(), runs.end(), [](auto& a, auto& b) { return a.total < b.total; });
    GpuTimes g;
    g.stages = runs[runs.size() / 2];
    g.device_median = g.stages.total;
    g.device_min = runs.front().total;
    std::vector<double> alpha, wall;
    for (auto& t : runs) alpha.push_back(t.alpha), wall.push_back(t.wall);
    g.alpha_median = median(alpha);
    g.wall_median = median(wall);
    return g;
  }

 private:
  hs::SppDeviceTimes run(int window, const std::string& kernel) {
    check(cudaMemcpy(work_, pristine_, n_ * sizeof(float), cudaMemcpyDeviceToDevice));
    check(cudaDeviceSynchronize());
    return hs::spp_cuda_device(work_, cube_.bands, cube_.lines, cube_.samples, window, kernel);
  }
  const hs::Cube& cube_;
  size_t n_;
  float* pristine_ = nullptr;
  float* work_ = nullptr;
};
#else
class DeviceCube {
 public:
  explicit DeviceCube(const hs::Cube&) {}
  GpuTimes time(int, const std::string&, int) { return {}; }
};
#endif

struct Settings {
  std::vector<int> windows;
  int repeats = 3, gpu_repeats = 20, serial_repeats = 1;
  bool serial = true, check = false, host_to_host = true;
  bool host_to_host_last_only = false;  // h2h for the last kernel only (large scenes)
  std::vector<std::string> kernels;
};

// One table: a row per window.
void bench_cube(const hs::Cube& cube, const std::string& name, const Settings& s, bool gpu) {
  std::printf("\n## %s: %d lines x %d samples x %d bands (%.1f MB float32)\n", name.c_str(),
              cube.lines, cube.samples, cube.bands, cube.size() * 4e-6);
  std::printf(
      "# seconds for CPU (best of %d; serial best of %d), milliseconds for GPU: dev = "
      "device-resident, CUDA events, median of %d (min in brackets); alpha = the eq. 1 kernel "
      "alone; h2h = whole spp_cuda call host to host, best of %d\n",
      s.repeats, s.serial_repeats, s.gpu_repeats, s.repeats);
  std::printf("%-6s %9s %9s", "window", "cpu_1thr", "cpu_all");
  if (gpu)
    for (const auto& k : s.kernels)
      std::printf(" | %-6s %7s %8s %7s %7s", k.c_str(), "dev_ms", "(min)", "alpha", "h2h_ms");
  if (s.check) std::printf(" | max rel err vs float64 (cpu, kernels...)");
  std::printf("\n");
  std::fflush(stdout);
  std::unique_ptr<DeviceCube> dev;
  if (gpu) dev = std::make_unique<DeviceCube>(cube);
  const int threads = omp_get_max_threads();
  std::vector<std::string> stage_lines;
  for (int w : s.windows) {
    double t1 = 0;
    if (s.serial) {
      omp_set_num_threads(1);
      t1 = best_of_inplace(s.serial_repeats, cube,
                           [&](hs::Cube&& c) { hs::spp_cpu(std::move(c), w); });
      omp_set_num_threads(threads);
    }
    const double tn =
        best_of_inplace(s.repeats, cube, [&](hs::Cube&& c) { hs::spp_cpu(std::move(c), w); });
    if (s.serial)
      std::printf("%-6d %9.4f %9.4f", w, t1, tn);
    else
      std::printf("%-6d %9s %9.4f", w, "-", tn);
    if (gpu) {
      for (const auto& k : s.kernels) {
        const GpuTimes g = dev->time(w, k, s.gpu_repeats);
        double h2h = 0;
        if (s.host_to_host && (!s.host_to_host_last_only || k == s.kernels.back())) {
          hs::spp_cuda(cube, w, false, k);  // warm-up
          h2h = best_of_inplace(s.repeats, cube,
                                [&](hs::Cube&& c) { hs::spp_cuda(std::move(c), w, false, k); });
        }
        std::printf(" | %-6s %7.3f (%6.3f) %7.3f %7.2f", "", g.device_median * 1e3,
                    g.device_min * 1e3, g.alpha_median * 1e3, h2h * 1e3);
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "#   w=%-2d %-5s stages (median run): centroid %.3f, normalise %.3f, alpha "
                      "%.3f, displace %.3f ms; host wall incl. scratch alloc %.3f ms",
                      w, k.c_str(), g.stages.centroid * 1e3, g.stages.normalise * 1e3,
                      g.stages.alpha * 1e3, g.stages.displace * 1e3, g.wall_median * 1e3);
        stage_lines.push_back(buf);
      }
    }
    if (s.check) {
      std::vector<double> ref = hs::spp_reference({cube.data.begin(), cube.data.end()}, cube.bands,
                                                  cube.lines, cube.samples, w);
      std::printf(" | %.1e", max_rel(hs::spp_cpu(cube, w).cube.data, ref));
      if (gpu)
        for (const auto& k : s.kernels)
          std::printf(" %.1e", max_rel(hs::spp_cuda(cube, w, false, k).cube.data, ref));
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  for (const auto& l : stage_lines) std::printf("%s\n", l.c_str());
}

// A 1024 x 1024 (or smaller) simulation repeated to lines x samples: simulate_cube is serial and
// would take minutes at full size; the repetition only adds seams, which SPP treats as edges.
hs::Cube large_scene(int lines, int samples, int bands) {
  celeris::sim::CubeSimParams p;
  p.lines = std::min(lines, 1024), p.samples = std::min(samples, 1024), p.bands = bands;
  p.endmembers = 6, p.seed = 7, p.smoothness = 24;
  const hs::Cube base = celeris::sim::simulate_cube(p).cube;
  hs::Cube c(bands, lines, samples);
#pragma omp parallel for schedule(static)
  for (int b = 0; b < bands; ++b)
    for (int l = 0; l < lines; ++l)
      for (int x = 0; x < samples; ++x) c.at(b, l, x) = base.at(b, l % p.lines, x % p.samples);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_spp: SPP timings per window (Delgado et al. Table 1 layout)"};
  Settings s;
  s.windows = {3, 5, 7, 9, 11};
  std::string input, large;
  std::vector<std::string> real;
  int lines = 350, samples = 350, bands = 188;
  app.add_option("--cube", input, "cube to time (default: simulated, paper size)");
  app.add_option("--lines", lines, "simulated lines")->capture_default_str();
  app.add_option("--samples", samples, "simulated samples")->capture_default_str();
  app.add_option("--bands", bands, "simulated bands")->capture_default_str();
  app.add_option("--windows", s.windows, "window sizes")->capture_default_str();
  app.add_option("--repeats", s.repeats, "CPU and host-to-host runs (best kept)")
      ->capture_default_str();
  app.add_option("--serial-repeats", s.serial_repeats, "single-thread CPU runs (best kept)")
      ->capture_default_str();
  app.add_option("--gpu-repeats", s.gpu_repeats, "device-resident runs (median kept)")
      ->capture_default_str();
  app.add_flag("!--no-serial", s.serial, "skip the single-thread CPU column");
  app.add_flag("--check", s.check, "compare every output with the float64 reference");
  app.add_option("--kernels", s.kernels, "CUDA kernels (default: all)");
  app.add_option("--large", large, "also a large simulated scene, LINESxSAMPLESxBANDS");
  app.add_option("--real", real, "also these cube files");
  CLI11_PARSE(app, argc, argv);
  if (s.kernels.empty()) s.kernels = hs::spp_cuda_kernels();

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
  const bool gpu = hs::spp_cuda_compiled() && celeris::cuda_device_count() > 0;

  hs::Cube cube;
  std::string name = input;
  if (input.empty()) {
    celeris::sim::CubeSimParams p;
    p.lines = lines, p.samples = samples, p.bands = bands, p.endmembers = 5, p.seed = 1;
    cube = celeris::sim::simulate_cube(p).cube;
    for (float& v : cube.data) v = std::round(std::clamp(v * 10000.0f, -32768.0f, 32767.0f));
    name = "simulated " + std::to_string(lines) + "x" + std::to_string(samples) + "x" +
           std::to_string(bands) + " (int16 values, the paper's Cuprite shape)";
  } else {
    cube = hs::read_cube(input);
  }
  bench_cube(cube, name, s, gpu);

  for (const auto& f : real) {
    Settings r = s;
    r.serial_repeats = 1;
    bench_cube(hs::read_cube(f), f, r, gpu);
  }
  if (!large.empty()) {
    int L = 0, S = 0, B = 0;
    if (std::sscanf(large.c_str(), "%dx%dx%d", &L, &S, &B) != 3) {
      std::fprintf(stderr, "--large wants LINESxSAMPLESxBANDS\n");
      return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    cube = large_scene(L, S, B);
    std::printf("\n# large scene built in %.1f s (1024 x 1024 simulation tiled)\n",
                seconds_since(t0));
    Settings g = s;
    g.serial = false, g.check = false, g.repeats = 1, g.gpu_repeats = 5;
    g.host_to_host_last_only = true;
    bench_cube(cube, "simulated " + large + " (tiled)", g, gpu);
  }
  return 0;
}
