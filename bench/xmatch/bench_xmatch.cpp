// bench_xmatch [rows] [radius_arcsec] [threads]: self-match of a simulated catalog in the paper's
// d1 band (dec -0.8343 .. 0.0209 deg) with both search methods on CPU threads and, with a GPU,
// the CUDA join (checked pair for pair against the first CPU run); the peer is the O(N^2) brute
// force on a 20k-row subsample, extrapolated. Prints machine, date and command.
#include <omp.h>
#include <sys/utsname.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/xmatch.hpp"

using namespace celeris::xmatch;
using Clock = std::chrono::steady_clock;

static double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int main(int argc, char** argv) {
  const size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const double radius = argc > 2 ? std::atof(argv[2]) : 2.0;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
  utsname u{};
  uname(&u);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("# bench_xmatch  machine: %s %s, %d OpenMP threads, %d CUDA devices  date: %s\n",
              u.nodename, u.machine, threads > 0 ? threads : omp_get_max_threads(),
              celeris::cuda_device_count(), date);
  std::printf("# command:");
  for (int k = 0; k < argc; ++k) std::printf(" %s", argv[k]);
  std::printf("\n");

  CatalogParams p;
  p.rows = rows;
  p.seed = 42;
  p.dec_min = -0.8343;
  p.dec_max = 0.0209;
  p.repeats = 3.0;
  p.scatter_arcsec = 0.5;
  auto t = Clock::now();
  const celeris::Table cat = simulate_catalog(p);
  SkyPoints pts;  // columns RA, DEC of simulate_catalog
  pts.ra = cat.columns[2].values;
  pts.dec = cat.columns[3].values;
  std::printf("simulate %zu rows: %.3f s\n", rows, seconds_since(t));

  std::vector<celeris::Backend> backends = {celeris::Backend::Cpu};
  if (celeris::cuda_device_count() > 0) backends.push_back(celeris::Backend::Cuda);
  std::vector<Pair> reference;
  bool have_reference = false;
  for (celeris::Backend b : backends) {
    for (Search s : {Search::Neighbours, Search::Disc}) {
      Options o;
      o.radius_arcsec = radius;
      o.search = s;
      o.threads = threads;
      o.backend = b;
      if (b == celeris::Backend::Cuda) self_pairs(pts, o);  // warm-up: context creation
      t = Clock::now();
      const auto pairs = self_pairs(pts, o);
      const double dt = seconds_since(t);
      if (!have_reference) {
        reference = pairs;
        have_reference = true;
      }
      bool same = pairs.size() == reference.size();
      for (size_t k = 0; same && k < pairs.size(); ++k)
        same = pairs[k].i == reference[k].i && pairs[k].j == reference[k].j;
      std::printf(
          "self-match %-4s %-10s order %2d radius %g arcsec: %zu pairs (%.2f per row) "
          "in %.3f s (%.2f Mrows/s)%s\n",
          b == celeris::Backend::Cuda ? "cuda" : "cpu",
          s == Search::Neighbours ? "neighbours" : "disc", index_order(o), radius, pairs.size(),
          2.0 * pairs.size() / rows, dt, rows / dt / 1e6,
          same ? "" : "  MISMATCH with the first run");
    }
  }
  // Peer: brute force on a subsample, scaled by (N / n)^2.
  const size_t n = std::min<size_t>(rows, 20000);
  SkyPoints sub;
  sub.ra.assign(pts.ra.begin(), pts.ra.begin() + n);
  sub.dec.assign(pts.dec.begin(), pts.dec.begin() + n);
  t = Clock::now();
  const auto bf = brute_force_pairs(sub, sub, radius, true);
  const double dt = seconds_since(t);
  std::printf(
      "brute force %zu rows (1 thread): %zu pairs in %.3f s; extrapolated to %zu rows: "
      "%.0f s\n",
      n, bf.size(), dt, rows, dt * double(rows) / n * double(rows) / n);
  return 0;
}
