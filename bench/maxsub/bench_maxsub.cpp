// bench_maxsub: times the maximum-subarray methods on the same frames, as the paper's Figure 5
// does (Algorithms 8 and 9 on one core against Algorithms 38 and 39 on the GPU), with the fast GPU
// search (`cuda`), Algorithm 9 on every OpenMP thread, K maxima and the convex sum beside them.
//
//   bench_maxsub [--sizes 20,50,100,200,500,1000,1500,2000,2500,4000] [--methods all|a,b,..]
//                [--image f.fits] [--k 10] [--k-sizes 1000,4000] [--repeat 3]
//                [--max-alg8 2000] [--max-alg9 2000] [--max-mesh 2500] [--max-convex 1000]
//                [--max-convex-gpu 4000] [--max-cpu 4000] [--threads-at 1000] [--out file]
//
// Methods: cuda, cuda-float, alg38, alg39, cpu, alg9, alg8, kdisjoint, koverlap, convex.
// Frames: Gaussian noise (mean -0.05, sigma 1) with five bright Gaussian blobs, or --image (NaN
// set to 0, median subtracted) cropped to each size. One line per (size, method): seconds of the
// whole library call (best of --repeat for calls under 1 s, else one), the GPU's own stage times
// (device events: upload / prep / search ms), pair-column steps per second (m(m+1)/2 * n, the
// Kadane work), the speed-up over Algorithm 9 on one core at that size when it ran, and the
// rectangle, which must be the same for every method of a size (a mismatch is marked). The report
// file is rewritten after every line, so a run cut short keeps what it measured.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/fits.hpp"
#include "celeris/maxsub.hpp"

namespace ms = celeris::maxsub;

namespace {

std::vector<double> synthetic(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> a(size_t(n) * n);
  for (double& v : a) v = noise(rng) - 0.05;  // slightly negative sky: localised maxima
  std::uniform_real_distribution<double> pos(0, n), amp(2, 8), sig(2, 2 + n / 50.0);
  for (int b = 0; b < 5; ++b) {
    const double cx = pos(rng), cy = pos(rng), A = amp(rng), s = sig(rng);
    const int r = int(4 * s) + 1;
    for (int y = std::max(0, int(cy) - r); y < std::min(n, int(cy) + r); ++y)
      for (int x = std::max(0, int(cx) - r); x < std::min(n, int(cx) + r); ++x)
        a[size_t(y) * n + x] +=
            A * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * s * s));
  }
  return a;
}

std::vector<double> crop(const celeris::FitsImage& img, int n) {
  const int w = int(img.pixels.width()), h = int(img.pixels.height());
  n = std::min({n, w, h});
  std::vector<double> finite;
  for (float v : img.pixels.pixels())
    if (std::isfinite(v)) finite.push_back(v);
  std::nth_element(finite.begin(), finite.begin() + finite.size() / 2, finite.end());
  const double med = finite.empty() ? 0 : finite[finite.size() / 2];
  std::vector<double> a(size_t(n) * n);
  const int x0 = (w - n) / 2, y0 = (h - n) / 2;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const float v = img.pixels(x0 + x, y0 + y);
      a[size_t(y) * n + x] = std::isfinite(v) ? v - med : 0.0;
    }
  return a;
}

// Best of `repeat` runs, but a single run when the first takes over a second.
double timed(int repeat, const std::function<void()>& f) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    if (s > 1.0) break;
  }
  return best;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) out.push_back(tok);
  return out;
}

std::vector<int> parse_ints(const std::string& s) {
  std::vector<int> out;
  for (const std::string& t : split(s)) out.push_back(std::stoi(t));
  return out;
}

struct Report {
  std::string text, path;
  void emit(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::fputs(buf, stdout);
    std::fflush(stdout);
    text += buf;
    if (path.empty()) return;
    if (FILE* f = std::fopen(path.c_str(), "w")) {
      std::fputs(text.c_str(), f);
      std::fclose(f);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {20, 50, 100, 200, 500, 1000, 1500, 2000, 2500, 4000};
  std::vector<int> k_sizes = {1000, 4000};
  std::string image, methods_arg = "all";
  Report rep;
  int k = 10, repeat = 3, max_alg8 = 2000, max_alg9 = 2000, max_mesh = 2500, max_convex = 1000,
      max_cpu = 4000, threads_at = 1000, max_convex_gpu = 4000;
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_maxsub: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--sizes")
      sizes = parse_ints(next());
    else if (a == "--methods")
      methods_arg = next();
    else if (a == "--image")
      image = next();
    else if (a == "--k")
      k = std::stoi(next());
    else if (a == "--k-sizes")
      k_sizes = parse_ints(next());
    else if (a == "--repeat")
      repeat = std::stoi(next());
    else if (a == "--max-alg8")
      max_alg8 = std::stoi(next());
    else if (a == "--max-alg9")
      max_alg9 = std::stoi(next());
    else if (a == "--max-mesh")
      max_mesh = std::stoi(next());
    else if (a == "--max-convex")
      max_convex = std::stoi(next());
    else if (a == "--max-convex-gpu")
      max_convex_gpu = std::stoi(next());
    else if (a == "--max-cpu")
      max_cpu = std::stoi(next());
    else if (a == "--threads-at")
      threads_at = std::stoi(next());
    else if (a == "--out")
      rep.path = next();
    else {
      std::fprintf(
          stderr,
          "usage: bench_maxsub [--sizes a,b,..] [--methods all|cuda,cuda-float,alg38,"
          "alg39,cpu,alg9,alg8,kdisjoint,koverlap,convex] [--image f.fits] [--k K] "
          "[--k-sizes a,b] [--repeat R] [--max-alg8 N] [--max-alg9 N] [--max-mesh N] "
          "[--max-convex N] [--max-convex-gpu N] [--max-cpu N] [--threads-at N] [--out file]\n");
      return a == "-h" || a == "--help" ? 0 : 2;
    }
  }
  std::set<std::string> want;
  for (const std::string& m : split(methods_arg)) want.insert(m);
  auto wants = [&](const char* m) { return want.count("all") || want.count(m); };

  char host[256] = "?";
  gethostname(host, sizeof host);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const bool gpu = celeris::cuda_device_count() > 0;
  rep.emit("# bench_maxsub  host %s  date %s  omp_threads %d  cores %ld\n", host, date,
           omp_get_max_threads(), sysconf(_SC_NPROCESSORS_ONLN));
  rep.emit("# command: %s\n", command.c_str());
  rep.emit("# devices: %s\n", celeris::describe_devices().c_str());
  rep.emit("# frames: %s\n",
           image.empty() ? "Gaussian noise (mean -0.05) + 5 blobs" : image.c_str());
  rep.emit("# seconds: whole library call (validation, copies, search), best of %d under 1 s\n",
           repeat);
  rep.emit("# gpu ms: device events, upload / prep (layout + prefix or mesh init) / search\n");
  rep.emit(
      "# Gsteps/s: m(m+1)/2 * n pair-column steps per second; x alg9: speed-up over "
      "Algorithm 9 on one core at the same size\n");
  rep.emit("%6s %-22s %10s %26s %9s %9s  %s\n", "size", "method", "seconds",
           "gpu ms (up/prep/srch)", "Gsteps/s", "x alg9", "result (x0 y0 x1 y1, 1-based) sum");
  celeris::FitsImage img;
  if (!image.empty()) img = celeris::read_fits_image(image);
  if (gpu) {
    // Context creation and lazy module loading stay out of the first size's numbers.
    const std::vector<double> warm = synthetic(64, 1u);
    for (const char* method : {"cuda", "alg38", "alg39"})
      for (ms::Precision p : {ms::Precision::Double, ms::Precision::Float}) {
        ms::Options o = ms::parse_method(method);
        o.precision = p;
        ms::max_subarray(warm, 64, 64, o);
        ms::k_max_disjoint(warm, 64, 64, 2, o);
      }
  }

  for (int n0 : sizes) {
    const std::vector<double> a = image.empty() ? synthetic(n0, 1234u + n0) : crop(img, n0);
    const int n = int(std::lround(std::sqrt(double(a.size()))));
    const double steps = double(n) * (n + 1) / 2 * n;
    ms::Rect ref{};
    bool have_ref = false;
    double alg9_s = 0;
    auto line = [&](const char* name, double sec, const ms::GpuTimes* gt, const ms::Rect& r,
                    double work, bool vs_alg9 = true) {
      const bool same = !have_ref || (r.top == ref.top && r.left == ref.left &&
                                      r.bottom == ref.bottom && r.right == ref.right);
      if (!have_ref) ref = r, have_ref = true;
      char gbuf[64] = "";
      if (gt)
        std::snprintf(gbuf, sizeof gbuf, "%.2f/%.2f/%.2f", gt->upload_ms, gt->prep_ms,
                      gt->search_ms);
      char sbuf[32] = "";
      if (alg9_s > 0 && vs_alg9) std::snprintf(sbuf, sizeof sbuf, "%.1f", alg9_s / sec);
      rep.emit("%6d %-22s %10.4f %26s %9.2f %9s  %d %d %d %d %.6g%s\n", n, name, sec, gbuf,
               work / sec / 1e9, sbuf, r.left + 1, r.top + 1, r.right + 1, r.bottom + 1, r.sum,
               same ? "" : "  MISMATCH");
    };
    struct M {
      const char* key;
      const char* name;
      const char* m;  // the former method spelling: algorithm + device
      ms::Precision p;
      int max_n;
      bool on_gpu;
    };
    // Algorithm 9 first: the speed-ups of the others are against it.
    const M methods[] = {
        {"alg9", "alg9 double (1 core)", "alg9", ms::Precision::Double, max_alg9, false},
        {"alg8", "alg8 double (1 core)", "alg8", ms::Precision::Double, max_alg8, false},
        {"cpu", "cpu double (threads)", "cpu", ms::Precision::Double, max_cpu, false},
        {"cuda", "cuda double", "cuda", ms::Precision::Double, 1 << 30, true},
        {"cuda-float", "cuda float", "cuda", ms::Precision::Float, 1 << 30, true},
        {"alg38", "alg38 double (GPU mesh)", "alg38", ms::Precision::Double, max_mesh, true},
        {"alg39", "alg39 double (GPU mesh)", "alg39", ms::Precision::Double, max_mesh, true}};
    for (const M& m : methods) {
      if (!wants(m.key) || n > m.max_n || (m.on_gpu && !gpu)) continue;
      ms::Rect r;
      ms::GpuTimes gt;
      ms::Options opt = ms::parse_method(m.m);
      opt.precision = m.p;
      opt.gpu_times = m.on_gpu ? &gt : nullptr;
      // A serial method on one thread even when it could use more (alg9/alg8 are serial anyway).
      const double s = timed(repeat, [&] { r = ms::max_subarray(a, n, n, opt); });
      if (std::string(m.m) == "alg9") alg9_s = s;
      line(m.name, s, m.on_gpu ? &gt : nullptr, r, steps);
    }
    if (n <= 40 && wants("brute")) {
      ms::Rect r;
      const double s = timed(1, [&] { r = ms::max_subarray(a, n, n, ms::parse_method("brute")); });
      line("brute (reference)", s, nullptr, r, steps, false);
    }
    if (n == threads_at && wants("cpu")) {
      const int maxt = omp_get_max_threads();
      std::vector<int> counts;
      for (int t = 1; t < maxt; t *= 2) counts.push_back(t);
      counts.push_back(maxt);
      for (int t : counts) {
        omp_set_num_threads(t);
        ms::Rect r;
        const double s =
            timed(repeat, [&] { r = ms::max_subarray(a, n, n, ms::parse_method("cpu")); });
        char name[64];
        std::snprintf(name, sizeof name, "cpu double (%d thr)", t);
        line(name, s, nullptr, r, steps);
      }
      omp_set_num_threads(maxt);
    }
    if (std::find(k_sizes.begin(), k_sizes.end(), n) != k_sizes.end()) {
      char name[64];
      if (wants("kdisjoint") && gpu) {
        std::vector<ms::Rect> rs;
        const double s =
            timed(1, [&] { rs = ms::k_max_disjoint(a, n, n, k, ms::parse_method("cuda")); });
        std::snprintf(name, sizeof name, "k=%d disjoint cuda", k);
        line(name, s, nullptr, rs.front(), steps * k, false);
        rep.emit("%6d %-22s %10s  k-th: %d %d %d %d %.6g\n", n, "", "", rs.back().left + 1,
                 rs.back().top + 1, rs.back().right + 1, rs.back().bottom + 1, rs.back().sum);
      }
      if (wants("kdisjoint") && n <= max_cpu / 2) {
        std::vector<ms::Rect> rs;
        const double s =
            timed(1, [&] { rs = ms::k_max_disjoint(a, n, n, k, ms::parse_method("cpu")); });
        std::snprintf(name, sizeof name, "k=%d disjoint cpu", k);
        line(name, s, nullptr, rs.front(), steps * k, false);
        rep.emit("%6d %-22s %10s  k-th: %d %d %d %d %.6g\n", n, "", "", rs.back().left + 1,
                 rs.back().top + 1, rs.back().right + 1, rs.back().bottom + 1, rs.back().sum);
      }
      if (wants("koverlap") && n <= max_cpu / 2) {
        std::vector<ms::Rect> rs;
        const double s =
            timed(1, [&] { rs = ms::k_max_overlapping(a, n, n, k, ms::parse_method("cpu")); });
        std::snprintf(name, sizeof name, "k=%d overlapping cpu", k);
        line(name, s, nullptr, rs.front(), steps * k, false);
        rep.emit("%6d %-22s %10s  k-th: %d %d %d %d %.6g\n", n, "", "", rs.back().left + 1,
                 rs.back().top + 1, rs.back().right + 1, rs.back().bottom + 1, rs.back().sum);
      }
    }
    if (wants("convex")) {
      ms::ConvexRegion cpu_region;
      bool have_cpu = false;
      auto convex_line = [&](const char* name, double s, const ms::ConvexRegion& c) {
        const bool same = !have_cpu || (c.left == cpu_region.left && c.top == cpu_region.top &&
                                        c.bottom == cpu_region.bottom && c.sum == cpu_region.sum);
        rep.emit("%6d %-22s %10.4f %26s %9.2f %9s  convex: columns %d..%d, %lld px, sum %.6g%s\n",
                 n, name, s, "", steps / s / 1e9, "", c.left + 1, c.right + 1,
                 static_cast<long long>(c.npix()), c.sum, same ? "" : "  MISMATCH");
      };
      if (n <= max_convex) {
        const double s = timed(1, [&] { cpu_region = ms::max_convex(a, n, n); });
        convex_line("convex (1 core)", s, cpu_region);
        have_cpu = true;
      }
      if (gpu && n <= max_convex_gpu) {
        ms::ConvexRegion c;
        const double s = timed(1, [&] { c = ms::max_convex(a, n, n, celeris::Device::Cuda); });
        convex_line("convex cuda", s, c);
      }
    }
  }
  return 0;
}
