// bench_maxsub: times the maximum-subarray methods on the same frames, as the paper's Figure 5
// does (Algorithms 8 and 9 on one core; here also Algorithm 9 on every OpenMP thread, float
// accumulation, K maxima and the convex sum).
//
//   bench_maxsub [--sizes 100,250,500,1000] [--image file.fits] [--k 5] [--repeat 3]
//                [--max-serial 1000] [--out bench/results/maxsub.txt]
//
// Frames: Gaussian noise (mean 0, sigma 1) with a few bright Gaussian blobs, or --image (NaN set
// to 0, median subtracted) cropped to each size. Prints machine, date, command, then one line per
// (size, method): seconds (best of --repeat), cells per second (m^2 n / s) and the rectangle, which
// must be the same for every method of a size (checked: a mismatch is marked).
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
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

double best_of(int repeat, const std::function<void()>& f) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

std::vector<int> parse_sizes(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) out.push_back(std::stoi(tok));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {100, 250, 500, 1000};
  std::string image, out_path;
  int k = 5, repeat = 3, max_serial = 1000;
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
      sizes = parse_sizes(next());
    else if (a == "--image")
      image = next();
    else if (a == "--k")
      k = std::stoi(next());
    else if (a == "--repeat")
      repeat = std::stoi(next());
    else if (a == "--max-serial")
      max_serial = std::stoi(next());
    else if (a == "--out")
      out_path = next();
    else {
      std::fprintf(stderr,
                   "usage: bench_maxsub [--sizes a,b,..] [--image f.fits] [--k K] "
                   "[--repeat R] [--max-serial N] [--out file]\n");
      return a == "-h" || a == "--help" ? 0 : 2;
    }
  }
  std::string report;
  auto emit = [&](const char* fmt, auto... xs) {
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, xs...);
    std::fputs(buf, stdout);
    std::fflush(stdout);
    report += buf;
  };
  char host[256] = "?";
  gethostname(host, sizeof host);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  emit("# bench_maxsub  host %s  date %s  omp_threads %d  cores %ld\n", host, date,
       omp_get_max_threads(), sysconf(_SC_NPROCESSORS_ONLN));
  emit("# command: %s\n", command.c_str());
  emit("# devices: %s\n", celeris::describe_devices().c_str());
  emit("# frames: %s\n", image.empty() ? "Gaussian noise (mean -0.05) + 5 blobs" : image.c_str());
  emit("%6s %-22s %10s %12s  %s\n", "size", "method", "seconds", "Mcells/s",
       "result (x0 y0 x1 y1, 1-based) sum");
  celeris::FitsImage img;
  if (!image.empty()) img = celeris::read_fits_image(image);
  for (int n0 : sizes) {
    const std::vector<double> a = image.empty() ? synthetic(n0, 1234u + n0) : crop(img, n0);
    const int n = int(std::lround(std::sqrt(double(a.size()))));
    const double cells = double(n) * n * n;
    ms::Rect ref{};
    bool have_ref = false;
    auto line = [&](const char* name, double sec, const ms::Rect& r, double work) {
      const bool same = !have_ref || (r.top == ref.top && r.left == ref.left &&
                                      r.bottom == ref.bottom && r.right == ref.right);
      if (!have_ref) ref = r, have_ref = true;
      emit("%6d %-22s %10.4f %12.1f  %d %d %d %d %.6g%s\n", n, name, sec, work / sec / 1e6,
           r.left + 1, r.top + 1, r.right + 1, r.bottom + 1, r.sum, same ? "" : "  MISMATCH");
    };
    struct M {
      const char* name;
      ms::Method m;
      ms::Precision p;
      bool serial;
    };
    const M methods[] = {{"cuda double", ms::Method::Cuda, ms::Precision::Double, false},
                         {"cuda float", ms::Method::Cuda, ms::Precision::Float, false},
                         {"cpu double", ms::Method::Cpu, ms::Precision::Double, false},
                         {"cpu float", ms::Method::Cpu, ms::Precision::Float, false},
                         {"alg9 double (1 core)", ms::Method::Alg9, ms::Precision::Double, true},
                         {"alg8 double (1 core)", ms::Method::Alg8, ms::Precision::Double, true},
                         {"alg9 float (1 core)", ms::Method::Alg9, ms::Precision::Float, true}};
    const bool gpu = celeris::cuda_device_count() > 0;
    for (const M& m : methods) {
      if (m.serial && n > max_serial) continue;
      if (m.m == ms::Method::Cuda && !gpu) continue;
      ms::Rect r;
      const double s = best_of(repeat, [&] { r = ms::max_subarray(a, n, n, {m.m, m.p}); });
      line(m.name, s, r, cells);
    }
    if (n <= 40) {
      ms::Rect r;
      const double s = best_of(1, [&] { r = ms::max_subarray(a, n, n, {ms::Method::Brute, {}}); });
      line("brute (reference)", s, r, double(n) * n * n * n);
    }
    {
      std::vector<ms::Rect> rs;
      const double s = best_of(1, [&] { rs = ms::k_max_disjoint(a, n, n, k); });
      char name[64];
      std::snprintf(name, sizeof name, "k=%d disjoint cpu", k);
      line(name, s, rs.front(), cells * k);
    }
    {
      std::vector<ms::Rect> rs;
      const double s = best_of(1, [&] { rs = ms::k_max_overlapping(a, n, n, k); });
      char name[64];
      std::snprintf(name, sizeof name, "k=%d overlapping cpu", k);
      line(name, s, rs.front(), cells * k);
    }
    if (double(n) * n * n <= 2.2e9) {
      ms::ConvexRegion c;
      const double s = best_of(1, [&] { c = ms::max_convex(a, n, n); });
      emit("%6d %-22s %10.4f %12.1f  convex: columns %d..%d, %lld px, sum %.6g\n", n,
           "convex (1 core)", s, cells / s / 1e6, c.left + 1, c.right + 1,
           static_cast<long long>(c.npix()), c.sum);
    }
  }
  if (!out_path.empty()) {
    FILE* f = std::fopen(out_path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "bench_maxsub: cannot write %s\n", out_path.c_str());
      return 1;
    }
    std::fputs(report.c_str(), f);
    std::fclose(f);
  }
  return 0;
}
