// bench_count_billion: the 1.23 B-row self-match at 0.0056 deg, counted, from a catalog in
// host memory, on one GPU (or the cores).
//
//   bench_count_billion [--rows 1230000000] [--order 5] [--seed 1] [--matches-per-row 15.8]
//                       [--match-radius 20.16] [--radius 0.0056deg] [--bins 20]
//                       [--device cuda|cpu] [--gpu-memory SIZE] [--check-cpu]
//
// 1. generate: the catalog of bench_simulate_hats (the same rows, simulate_partition.hpp: each
//    order-K pixel's rows from (seed, pixel) alone), made by all cores straight into host memory
//    (16 B a row), no disk: a 1.23 B-row HATS catalog is 30 GB of Parquet to write and read back,
//    while the host's 128 GiB hold the positions and the count's working arrays (about 60 B a row
//    in all).
// 2. partition: rows per coarse pixel (chunk_order, all cores), the chunk plan (plan_chunks) and
//    the rows bucketed by pixel (PartitionChunks), as an MPI rank holding the whole catalog would.
// 3. join: PartitionChunks::count, the path of `mpirun ... celeris xmatch --count` on each rank:
//    on the GPU, runs of chunks that fit the device memory gathered, uploaded, indexed and counted
//    there (no pair written); on the CPU, chunk by chunk.
// "end to end" = partition + join: from the positions in host memory to the histogram.
// --check-cpu: also counts on the CPU (count_pairs) and exits 1 unless the counts are equal.
// Prints machine, date, command, the count (celeris's --count text) and a results table.
#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <numeric>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/simulate.hpp"
#include "celeris/xmatch.hpp"
#include "simulate_partition.hpp"

namespace xm = celeris::xmatch;
namespace hp = celeris::healpix;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Every pixel's rows written at its catalog rows, pixels shared among the cores.
void generate(const celeris::bench::Params& p, xm::SkyPoints& out) {
  out.ra.resize(p.rows);
  out.dec.resize(p.rows);
  const int64_t npix = hp::npix(p.order);
#pragma omp parallel for schedule(dynamic, 4)
  for (int64_t pix = 0; pix < npix; ++pix) {
    const uint64_t first = celeris::bench::first_row(p, pix);
    const uint64_t count = celeris::bench::first_row(p, pix + 1) - first;
    const celeris::bench::Rows r = celeris::bench::simulate_partition(p, pix, first, count);
    std::copy(r.ra.begin(), r.ra.end(), out.ra.begin() + int64_t(first));
    std::copy(r.dec.begin(), r.dec.end(), out.dec.begin() + int64_t(first));
  }
}

// Rows per pixel at `order`, all cores (a histogram per thread, summed).
std::vector<uint64_t> counts_per_pixel(const xm::SkyPoints& s, int order) {
  const size_t npix = size_t(hp::npix(order));
  std::vector<uint64_t> total(npix, 0);
#pragma omp parallel
  {
    std::vector<uint64_t> mine(npix, 0);
#pragma omp for schedule(static)
    for (int64_t k = 0; k < int64_t(s.size()); ++k)
      ++mine[size_t(hp::radec2pix_nest(order, s.ra[size_t(k)], s.dec[size_t(k)]))];
#pragma omp critical
    for (size_t q = 0; q < npix; ++q) total[q] += mine[q];
  }
  return total;
}

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_count_billion: a counted self-match of a catalog generated in host memory"};
  celeris::bench::Params p;
  p.rows = 1230000000;
  double matches = 15.8, match_radius = celeris::sim::table3_radius_arcsec;
  std::string radius = "0.0056deg", device = "cuda", gpu_memory;
  int bins = 20;
  bool check_cpu = false;
  app.add_option("--rows", p.rows, "rows")->capture_default_str();
  app.add_option("--order", p.order, "HEALPix order of the generated pixels (0..12)")
      ->capture_default_str();
  app.add_option("--seed", p.seed)->capture_default_str();
  app.add_option("--matches-per-row", matches,
                 "mean matches per row (row included) at --match-radius; 0: --repeats 1")
      ->capture_default_str();
  app.add_option("--match-radius", match_radius, "arcsec")->capture_default_str();
  app.add_option("--radius", radius, "match radius")->capture_default_str();
  app.add_option("--bins", bins, "histogram bins")->capture_default_str();
  app.add_option("--device", device, "cuda | cpu")->capture_default_str();
  app.add_option("--gpu-memory", gpu_memory, "device bytes the count may use (default 80% free)");
  app.add_flag("--check-cpu", check_cpu, "count again on the CPU and compare");
  CLI11_PARSE(app, argc, argv);
  try {
    if (p.order < 0 || p.order > 12) throw celeris::Error("--order must be in 0..12");
    if (p.rows == 0 || p.rows >= (uint64_t(1) << 32))
      throw celeris::Error("--rows must be in 1 .. 2^32 - 1");
    if (device != "cuda" && device != "cpu") throw celeris::Error("--device must be cuda or cpu");
    if (matches > 0)
      p.repeats = celeris::sim::repeats_for_matches(size_t(p.rows), -90, 90, match_radius, matches);
    xm::Options o;
    o.radius_arcsec = xm::parse_radius_arcsec(radius);
    o.backend = device == "cuda" ? celeris::Backend::Cuda : celeris::Backend::Cpu;
    if (!gpu_memory.empty()) o.device_memory = xm::parse_memory_size(gpu_memory);
    if (o.backend == celeris::Backend::Cuda && celeris::cuda_device_count() == 0)
      throw celeris::Error("--device cuda: no CUDA device");
    struct utsname un;
    uname(&un);
    std::printf("# bench_count_billion, %s UTC, %s, %d threads\n# command:", utc_now().c_str(),
                un.nodename, omp_get_max_threads());
    for (int k = 0; k < argc; ++k) std::printf(" %s", argv[k]);
    std::printf("\n");
    std::fflush(stdout);

    // 1. The catalog in host memory, held as the right rows of one partition (the left rows are
    // the same rows: a self-match), with their catalog row numbers.
    auto t = Clock::now();
    xm::PartitionRows rows;
    generate(p, rows.right);
    const double t_generate = since(t);
    std::printf("# generated %llu rows (repeats %.4g) in %.1f s\n", (unsigned long long)p.rows,
                p.repeats, t_generate);
    std::fflush(stdout);

    // 2. Partition: counts per coarse pixel, the plan, the buckets.
    t = Clock::now();
    rows.right_rows.resize(p.rows);
    rows.left_in_right.resize(p.rows);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < int64_t(p.rows); ++k) {
      rows.right_rows[size_t(k)] = k;
      rows.left_in_right[size_t(k)] = uint32_t(k);
    }
    const int order = xm::chunk_order(o);
    const std::vector<uint64_t> counts = counts_per_pixel(rows.right, order);
    // Chunks of 1/64 of the catalog (in chunk_bytes_per_*_row), grouped into runs that fill the
    // device by PartitionChunks::count.
    const uint64_t total_bytes =
        p.rows * (xm::chunk_bytes_per_left_row + xm::chunk_bytes_per_right_row);
    const size_t least = xm::min_chunk_bytes(order, counts, counts);
    const xm::ChunkPlan plan =
        xm::plan_chunks(order, counts, counts, true, std::max<size_t>(least, total_bytes / 64));
    xm::PartitionChunks chunks(rows, plan, 0, plan.chunks.size(), o);
    const double t_partition = since(t);

    // 3. Join: counted.
    t = Clock::now();
    xm::PairCount count(o.radius_arcsec, bins);
    xm::ChunkStats stats;
    chunks.count(count, &stats);
    const double t_join = since(t);
    std::fputs(xm::format_count(count).c_str(), stdout);
    const double end_to_end = t_partition + t_join;
    std::printf(
        "\n| rows | device | pairs | matches/row | generate s | partition s | gather s | "
        "join s | end to end s | rows/s | join pairs/s |\n| --- | --- | --- | --- | --- | --- | "
        "--- | --- | --- | --- | --- |\n| %llu | %s | %llu | %.3f | %.1f | %.2f | %.2f | %.2f | "
        "%.2f | %.3g | %.3g |\n",
        (unsigned long long)p.rows, device.c_str(), (unsigned long long)count.pairs,
        1 + 2.0 * double(count.pairs) / double(p.rows), t_generate, t_partition,
        stats.gather_seconds, stats.join_seconds, end_to_end, double(p.rows) / end_to_end,
        double(count.pairs) / std::max(1e-9, stats.join_seconds));
    std::printf("# %zu chunks at coarse order %d, largest run %zu rows (left + right)\n",
                plan.chunks.size(), order, stats.peak_rows);
    std::fflush(stdout);
    if (check_cpu) {
      t = Clock::now();
      xm::Options cpu = o;
      cpu.backend = celeris::Backend::Cpu;
      xm::PairCount want(o.radius_arcsec, bins);
      xm::count_pairs(rows.right, rows.right, true, cpu, want);
      const bool same = want.pairs == count.pairs && want.histogram == count.histogram;
      std::printf("# --check-cpu: CPU count %llu pairs in %.1f s: %s\n",
                  (unsigned long long)want.pairs, since(t), same ? "identical" : "DIFFERENT");
      if (!same) return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_count_billion: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
