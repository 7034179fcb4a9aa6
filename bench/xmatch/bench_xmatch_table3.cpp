// bench_xmatch_table3 [sets] [threads]: self-match of the paper's Table III data sets (d1, d5,
// d25, simulated as `celeris simulate catalog --table3 NAME` does) at its radius 0.0056 deg, on
// the CPU threads and, with a GPU, the CUDA join with its phase breakdown. `sets`: comma list,
// default d1,d5,d25. Every GPU result is checked pair for pair against the CPU's.
//
// Times "host arrays -> host pairs": from RA/Dec arrays in host memory (unit vectors computed on
// the device) to the pairs in host memory, as columns (left-row offsets, right
// row, separation: CudaPairs) in pinned, ordinary or registered memory (HostMemory); and through
// the library call
// self_pairs (std::vector<Pair> rows, what the CLI uses). Three runs after a warm-up: the first
// with new result arrays, then reusing them.
#include <omp.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include "../common/median.hpp"
#include "celeris/device.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"
#ifdef CELERIS_HAVE_CUDA
#include "xmatch/join_cuda.hpp"
#endif

using namespace celeris::xmatch;
namespace hp = celeris::healpix;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

using celeris::bench::median;

#ifdef CELERIS_HAVE_CUDA
// Pair for pair: the GPU's columns against the CPU's rows (sorted by (i, j)).
bool same_pairs(const celeris::xmatch::detail::CudaPairs& g, const std::vector<Pair>& cpu,
                size_t n) {
  if (g.size() != cpu.size()) return false;
  for (size_t i = 0; i < n; ++i)
    for (uint64_t k = g.offsets[i]; k < g.offsets[i + 1]; ++k)
      if (cpu[k].i != int64_t(i) || cpu[k].j != int64_t(g.j[k]) ||
          std::abs(cpu[k].sep_arcsec - g.sep_arcsec[k]) > 1e-9)
        return false;
  return true;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::string sets = argc > 1 ? argv[1] : "d1,d5,d25";
  const int threads = argc > 2 ? std::atoi(argv[2]) : omp_get_max_threads();
  omp_set_num_threads(threads);
  utsname u{};
  uname(&u);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("# bench_xmatch_table3  machine: %s %s, %d OpenMP threads  date: %s\n", u.nodename,
              u.machine, threads, date);
  std::printf("# devices: %s\n", celeris::describe_devices().c_str());
  std::printf("# command:");
  for (int k = 0; k < argc; ++k) std::printf(" %s", argv[k]);
  std::printf("\n# radius %.4f arcsec (0.0056 deg); matches/row = 1 + 2 pairs / rows\n",
              table3_radius_arcsec);

  std::stringstream list(sets);
  std::string name;
  while (std::getline(list, name, ',')) {
    const CatalogParams p = table3_params(name);
    auto t = Clock::now();
    const celeris::Table cat = simulate_catalog(p);
    SkyPoints pts;  // columns RA, DEC of simulate_catalog
    pts.ra = cat.columns[2].values;
    pts.dec = cat.columns[3].values;
    const size_t n = pts.size();
    std::printf(
        "\n## %s: %zu rows, dec [%g, %g], %.3f detections per source (simulated in %.1f s)\n",
        name.c_str(), n, p.dec_min, p.dec_max, p.repeats, seconds_since(t));

    Options o;
    o.radius_arcsec = table3_radius_arcsec;
    o.threads = threads;
    o.backend = celeris::Backend::Cpu;
    std::vector<double> cpu_t;
    std::vector<Pair> cpu;
    for (int r = 0; r < (n > 5000000 ? 1 : 3); ++r) {
      cpu.clear();
      cpu.shrink_to_fit();
      t = Clock::now();
      cpu = self_pairs(pts, o);
      cpu_t.push_back(seconds_since(t));
    }
    const double cpu_s = median(cpu_t);
    std::printf(
        "cpu  %2d threads neighbours order %d: %zu pairs, %.3f matches/row, %.3f s "
        "(%.1f Mpairs/s)\n",
        threads, index_order(o), cpu.size(), 1.0 + 2.0 * cpu.size() / n, cpu_s,
        cpu.size() / cpu_s / 1e6);

#ifdef CELERIS_HAVE_CUDA
    if (celeris::cuda_device_count() == 0) continue;
    namespace dt = celeris::xmatch::detail;
    const int order = index_order(o);
    const double radius = table3_radius_arcsec * hp::pi / (180.0 * 3600.0);
    {  // warm-up: context, module load
      dt::CudaPairs g;
      dt::join_cuda_columns(pts, pts, order, true, radius, true, dt::HostMemory::Pageable, g);
    }
    for (dt::HostMemory mem :
         {dt::HostMemory::Pinned, dt::HostMemory::Pageable, dt::HostMemory::Registered}) {
      // Run 0: fresh result arrays (allocation, and first touch or page-locking, included);
      // runs 1, 2: the same arrays again, as a caller matching repeatedly would.
      dt::CudaPairs g;
      for (int r = 0; r < 3; ++r) {
        t = Clock::now();
        dt::join_cuda_columns(pts, pts, order, true, radius, true, mem, g);
        const double tot = seconds_since(t);
        const bool same = r > 0 || same_pairs(g, cpu, n);
        const dt::CudaTimes& c = g.times;
        std::printf(
            "cuda %-10s result arrays %s: %zu pairs, %.3f s host arrays -> host pairs "
            "(%.0f Mpairs/s, %.1fx the CPU)%s\n",
            mem == dt::HostMemory::Pinned     ? "pinned"
            : mem == dt::HostMemory::Pageable ? "pageable"
                                              : "registered",
            r == 0 ? "new   " : "reused", g.size(), tot, g.size() / tot / 1e6, cpu_s / tot,
            r > 0  ? ""
            : same ? ", pairs identical to the CPU's"
                   : ", MISMATCH with the CPU");
        std::printf(
            "     ms: upload + unit vectors %.1f | index (pixels, CUB sort, gather, "
            "histogram) %.1f | count %.1f | scan %.1f | write %.1f | host alloc %.1f | "
            "download %.1f\n",
            c.upload, c.index, c.count, c.scan, c.write, c.host_alloc, c.download);
      }
    }
    // The batched writing pass, downloads overlapping the next batch (Options::cuda_batches),
    // against the one-pass write then download: rounds of 1, 4 and 8 batches interleaved so that
    // load changes hit all alike; medians of 7 rounds, arrays reused (a warm-up round first).
    for (dt::HostMemory mem : {dt::HostMemory::Pinned, dt::HostMemory::Pageable}) {
      const std::vector<int> counts = {1, 4, 8};
      std::vector<dt::CudaPairs> g(counts.size());
      std::vector<std::vector<double>> tot(counts.size()), wd(counts.size());
      for (int r = 0; r < 8; ++r)
        for (size_t c = 0; c < counts.size(); ++c) {
          t = Clock::now();
          dt::join_cuda_columns(pts, pts, order, true, radius, true, mem, g[c], counts[c]);
          if (r == 0) continue;
          tot[c].push_back(seconds_since(t));
          wd[c].push_back(g[c].times.write_download);
        }
      for (size_t c = 0; c < counts.size(); ++c)
        std::printf(
            "cuda %-8s %d batch%s, arrays reused, median of 7: %.3f s (%.1fx the CPU), "
            "write + download %.1f ms%s\n",
            mem == dt::HostMemory::Pinned ? "pinned" : "pageable", counts[c],
            counts[c] == 1 ? " " : "es", median(tot[c]), cpu_s / median(tot[c]), median(wd[c]),
            same_pairs(g[c], cpu, n) ? ", pairs identical" : ", MISMATCH");
    }
    {
      o.backend = celeris::Backend::Cuda;
      t = Clock::now();
      const auto rows = self_pairs(pts, o);
      const double s = seconds_since(t);
      bool same = rows.size() == cpu.size();
      for (size_t k = 0; same && k < rows.size(); ++k)
        same = rows[k].i == cpu[k].i && rows[k].j == cpu[k].j;
      std::printf("cuda self_pairs (std::vector<Pair> rows, as the CLI): %.3f s%s\n", s,
                  same ? ", identical" : ", MISMATCH");
    }
#endif
  }
  return 0;
}
