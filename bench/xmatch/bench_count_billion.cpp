// bench_count_billion: the 1.23 B-row self-match at 0.0056 deg, counted, from a catalog in
// host memory, on one GPU (or the cores), in one process or under mpirun.
//
//   [mpirun -n K] bench_count_billion [--rows 1230000000] [--order 5] [--seed 1]
//                       [--matches-per-row 15.8] [--match-radius 20.16] [--radius 0.0056deg]
//                       [--bins 20] [--device cuda|cpu] [--gpu-memory SIZE]
//                       [--path sorted|buckets] [--check-cpu]
//
// 1. generate: the catalog of bench_simulate_hats (the same rows, simulate_partition.hpp: each
//    order-K pixel's rows from (seed, pixel) alone), made by all cores straight into host memory
//    (16 B a row), no disk: a 1.23 B-row HATS catalog is 30 GB of Parquet to write and read back.
//    Under mpirun each rank generates only its own order-K pixels (a contiguous NESTED range, an
//    equal share) and their neighbours (its margin), so no rows are exchanged.
// 2. partition, `--path sorted` (the default): the rows sorted by coarse pixel (pixel_sorted:
//    pixels computed once, one parallel counting sort of RA/Dec). `--path buckets` (one process
//    only): the path before 2026-11-24, PartitionChunks' row-number buckets (kept to compare).
// 3. join: count_sorted_part (sorted) over the rank's own pixels: on the GPU, runs of chunks that
//    fit the device memory uploaded straight from the sorted arrays and counted there (no pair
//    written); on the CPU, chunk by chunk. (buckets: PartitionChunks::count, which gathers each
//    run's rows and row numbers into copies first.) Under mpirun the histograms are summed on
//    rank 0 (MPI_Reduce).
// "end to end" = partition + join (+ the reduction): from the positions in host memory to the
// histogram; under mpirun the slowest rank's. The table has one line per rank.
// --check-cpu (one process): also counts on the CPU (count_pairs) and exits 1 unless the counts
// are equal.
// Prints machine, date, command, the count (celeris's --count text) and a results table.
#include <omp.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <string>
#include <vector>

#ifdef CELERIS_HAVE_MPI
#include <mpi.h>
#endif

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/simulate.hpp"
#include "celeris/xmatch.hpp"
#include "simulate_partition.hpp"
#include "xmatch/sorted_count.hpp"

namespace xm = celeris::xmatch;
namespace hp = celeris::healpix;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The rows of the given order-K pixels (ascending), each pixel's rows at its place among them
// (so the rows are in catalog order), pixels shared among the cores.
void generate(const celeris::bench::Params& p, const std::vector<int64_t>& pixels,
              xm::SkyPoints& out) {
  std::vector<uint64_t> at(pixels.size() + 1, 0);
  for (size_t k = 0; k < pixels.size(); ++k)
    at[k + 1] = at[k] + celeris::bench::first_row(p, pixels[k] + 1) -
                celeris::bench::first_row(p, pixels[k]);
  out.ra.resize(at.back());
  out.dec.resize(at.back());
#pragma omp parallel for schedule(dynamic, 4)
  for (int64_t k = 0; k < int64_t(pixels.size()); ++k) {
    const int64_t pix = pixels[size_t(k)];
    const uint64_t first = celeris::bench::first_row(p, pix);
    const celeris::bench::Rows r =
        celeris::bench::simulate_partition(p, pix, first, at[size_t(k) + 1] - at[size_t(k)]);
    std::copy(r.ra.begin(), r.ra.end(), out.ra.begin() + int64_t(at[size_t(k)]));
    std::copy(r.dec.begin(), r.dec.end(), out.dec.begin() + int64_t(at[size_t(k)]));
  }
}

// Rank r of n's order-K pixels: its own [first, end) (an equal share of the NESTED range) and
// their neighbours (the margin), ascending.
std::vector<int64_t> rank_pixels(int order, int r, int n, int64_t& first, int64_t& end) {
  const int64_t npix = hp::npix(order);
  first = npix * r / n;
  end = npix * (r + 1) / n;
  std::vector<uint8_t> held(size_t(npix), 0);
  for (int64_t p = first; p < end; ++p) {
    int64_t nb[9];
    const int m = xm::pixel_and_neighbours(order, p, nb);
    for (int q = 0; q < m; ++q) held[size_t(nb[q])] = 1;
  }
  std::vector<int64_t> out;
  for (int64_t p = 0; p < npix; ++p)
    if (held[size_t(p)]) out.push_back(p);
  return out;
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

// The path before 2026-11-24 (PartitionChunks: buckets of row numbers, each run gathered).
void count_buckets(xm::SkyPoints&& all, const xm::Options& o, xm::PairCount& count,
                   double& t_partition, double& t_gather, double& t_join, bool no_join) {
  const auto t = Clock::now();
  const uint64_t n = all.size();
  xm::PartitionRows rows;
  rows.right = std::move(all);
  rows.right_rows.resize(n);
  rows.left_in_right.resize(n);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < int64_t(n); ++k) {
    rows.right_rows[size_t(k)] = k;
    rows.left_in_right[size_t(k)] = uint32_t(k);
  }
  const int order = xm::chunk_order(o);
  const std::vector<uint64_t> counts = counts_per_pixel(rows.right, order);
  const uint64_t total_bytes = n * (xm::chunk_bytes_per_left_row + xm::chunk_bytes_per_right_row);
  const size_t least = xm::min_chunk_bytes(order, counts, counts);
  const xm::ChunkPlan plan =
      xm::plan_chunks(order, counts, counts, true, std::max<size_t>(least, total_bytes / 64));
  xm::PartitionChunks chunks(rows, plan, 0, plan.chunks.size(), o);
  t_partition = since(t);
  if (no_join) return;
  const auto tj = Clock::now();
  xm::ChunkStats stats;
  chunks.count(count, &stats);
  t_gather = stats.gather_seconds;
  t_join = since(tj) - stats.gather_seconds;
  all = std::move(rows.right);
}

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", std::gmtime(&t));
  return buf;
}

// One rank's phases (seconds) and rows, as sent to rank 0.
struct RankTimes {
  double generate, partition, pixels, gather, join, upload_index, count, rows, own_rows, runs,
      peak_gb, join_cpu;
};

// CPU seconds (user + system) of all the process's threads so far: the join's share of the cores
// it got, which on a shared machine says pairs per core where the wall clock cannot.
double cpu_seconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  int rank = 0, ranks = 1, local_rank = 0;  // local_rank: the rank's place on its host
  // MPI only under mpirun (OpenMPI's or a PMI launcher's variables): a plain run stays one
  // process without MPI's singleton start-up.
  const bool mpi = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE");
#ifdef CELERIS_HAVE_MPI
  if (mpi) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &local_rank);
    MPI_Comm_free(&host);
  }
#else
  if (mpi) {
    std::fprintf(stderr, "bench_count_billion: error: built without MPI, run under mpirun\n");
    return 1;
  }
#endif
  auto finish = [mpi](int rc) {
#ifdef CELERIS_HAVE_MPI
    if (mpi && rc != 0) MPI_Abort(MPI_COMM_WORLD, rc);
    if (mpi) MPI_Finalize();
#endif
    return rc;
  };
  CLI::App app{"bench_count_billion: a counted self-match of a catalog generated in host memory"};
  celeris::bench::Params p;
  p.rows = 1230000000;
  double matches = 15.8, match_radius = celeris::sim::table3_radius_arcsec;
  std::string radius = "0.0056deg", device = "cuda", gpu_memory, path = "sorted";
  int bins = 20;
  bool check_cpu = false, no_join = false;
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
  app.add_option(
      "--gpu-memory", gpu_memory,
      "device bytes the count may use (default 80% free; give it when ranks share a GPU)");
  app.add_option("--path", path, "sorted | buckets (the path before 2026-11-24, one process)")
      ->capture_default_str();
  app.add_flag("--check-cpu", check_cpu, "count again on the CPU and compare (one process)");
  app.add_flag("--no-join", no_join, "stop after the partition (times the host's part alone)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return finish(rc);
  }
  try {
    if (p.order < 0 || p.order > 12) throw celeris::Error("--order must be in 0..12");
    if (p.rows == 0 || p.rows >= (uint64_t(1) << 32))
      throw celeris::Error("--rows must be in 1 .. 2^32 - 1");
    if (device != "cuda" && device != "cpu") throw celeris::Error("--device must be cuda or cpu");
    if (path != "sorted" && path != "buckets")
      throw celeris::Error("--path must be sorted or buckets");
    if (no_join && check_cpu) throw celeris::Error("--no-join with --check-cpu");
    if (ranks > 1 && (path != "sorted" || check_cpu))
      throw celeris::Error("under mpirun only --path sorted, without --check-cpu");
    if (matches > 0)
      p.repeats = celeris::sim::repeats_for_matches(size_t(p.rows), -90, 90, match_radius, matches);
    xm::Options o;
    o.radius_arcsec = xm::parse_radius_arcsec(radius);
    o.backend = device == "cuda" ? celeris::Backend::Cuda : celeris::Backend::Cpu;
    if (!gpu_memory.empty()) o.device_memory = xm::parse_memory_size(gpu_memory);
    const int gpus = o.backend == celeris::Backend::Cuda ? celeris::cuda_device_count() : 0;
    if (o.backend == celeris::Backend::Cuda && gpus == 0)
      throw celeris::Error("--device cuda: no CUDA device");
    // One GPU per rank, as the CLI's MPI driver places them: the rank's place on its host modulo
    // the host's GPUs (ranks share a GPU when there are more ranks than GPUs).
    if (gpus > 0) celeris::select_cuda_device(local_rank % gpus);
    const int corder = xm::chunk_order(o);
    if (ranks > 1 && corder < p.order)
      throw celeris::Error("under mpirun the chunk order (" + std::to_string(corder) +
                           ") must be at least --order, so that ranks own whole coarse pixels");
    if (rank == 0) {
      struct utsname un;
      uname(&un);
      std::printf(
          "# bench_count_billion, %s UTC, %s, %d ranks x %d threads, %d GPUs (rank r on "
          "GPU r mod %d)\n# command:",
          utc_now().c_str(), un.nodename, ranks, omp_get_max_threads(), gpus, std::max(gpus, 1));
      for (int k = 0; k < argc; ++k) std::printf(" %s", argv[k]);
      std::printf("\n");
      std::fflush(stdout);
    }

    // 1. The rank's pixels (all of them in one process) and their margin, generated.
    int64_t own_first = 0, own_end = 0;
    const std::vector<int64_t> pixels = rank_pixels(p.order, rank, ranks, own_first, own_end);
    auto t = Clock::now();
    xm::SkyPoints all;
    generate(p, pixels, all);
    RankTimes rt{};
    rt.generate = since(t);
    rt.rows = double(all.size());
    rt.own_rows =
        double(celeris::bench::first_row(p, own_end) - celeris::bench::first_row(p, own_first));
    if (rank == 0) {
      std::printf("# generated %llu rows (repeats %.4g) in %.1f s on rank 0\n",
                  (unsigned long long)all.size(), p.repeats, rt.generate);
      std::fflush(stdout);
    }

    // 2 + 3. Partition and join.
    xm::PairCount count(o.radius_arcsec, bins);
    if (path == "buckets") {
      count_buckets(std::move(all), o, count, rt.partition, rt.gather, rt.join, no_join);
    } else {
      t = Clock::now();
      xm::PixelSortTimes st;
      xm::PixelSorted sorted = xm::pixel_sorted(all, corder, "catalog", &st);
      rt.partition = since(t);
      rt.pixels = st.pixels;
      if (!check_cpu) all = xm::SkyPoints();  // the unsorted copy is not needed any more
      t = Clock::now();
      const double cpu0 = cpu_seconds();
      xm::SortedCountStats stats;
      // The rank's own order-K pixels as coarse pixels (one process: all of them).
      const int64_t shift = ranks > 1 ? 2 * (corder - p.order) : 0;
      const int64_t first = ranks > 1 ? own_first << shift : 0;
      const int64_t end = ranks > 1 ? own_end << shift : hp::npix(corder);
      if (!no_join) xm::count_sorted_part(sorted, first, end, o, count, &stats);
      rt.join = since(t) - stats.stage_seconds;
      rt.join_cpu = cpu_seconds() - cpu0;
      rt.gather = stats.stage_seconds;
      rt.upload_index = stats.upload_index_ms / 1000;
      rt.count = stats.count_ms / 1000;
      rt.runs = double(stats.runs);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    rt.peak_gb = double(ru.ru_maxrss) / 1e6;  // kB -> GB

    // The histograms summed on rank 0; every rank's phases gathered there.
    t = Clock::now();
    std::vector<RankTimes> all_times(size_t(ranks), rt);
#ifdef CELERIS_HAVE_MPI
    if (mpi && ranks > 1) {
      std::vector<uint64_t> sum(count.histogram.size(), 0);
      MPI_Reduce(count.histogram.data(), sum.data(), int(sum.size()), MPI_UINT64_T, MPI_SUM, 0,
                 MPI_COMM_WORLD);
      count.histogram = sum;
      count.pairs = std::accumulate(sum.begin(), sum.end(), uint64_t(0));
      MPI_Gather(&rt, int(sizeof rt), MPI_BYTE, all_times.data(), int(sizeof rt), MPI_BYTE, 0,
                 MPI_COMM_WORLD);
    }
#endif
    const double t_reduce = since(t);
    if (rank == 0) {
      std::fputs(xm::format_count(count).c_str(), stdout);
      double end_to_end = 0;
      for (const RankTimes& r : all_times)
        end_to_end = std::max(end_to_end, r.partition + r.gather + r.join);
      end_to_end += t_reduce;
      std::printf(
          "\n| rank | rows (own + margin) | own rows | device | path | generate s | partition s "
          "(pixels) | "
          "gather s | join s (upload+index / count) | runs | peak RSS GB |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
      for (int r = 0; r < ranks; ++r) {
        const RankTimes& x = all_times[size_t(r)];
        std::printf(
            "| %d | %.0f | %.0f | %s | %s | %.1f | %.2f (%.2f) | %.2f | %.2f (%.2f / %.2f) | %.0f "
            "| "
            "%.1f |\n",
            r, x.rows, x.own_rows, device.c_str(), path.c_str(), x.generate, x.partition, x.pixels,
            x.gather, x.join, x.upload_index, x.count, x.runs, x.peak_gb);
      }
      double join_max = 0, join_cpu = 0;
      for (const RankTimes& r : all_times) {
        join_max = std::max(join_max, r.join);
        join_cpu += r.join_cpu;
      }
      std::printf(
          "\n| rows | ranks | device | path | pairs | matches/row | end to end s | rows/s | join "
          "pairs/s |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n| %llu | %d | %s "
          "| %s | %llu | %.3f | %.2f | %.3g | %.3g |\n",
          (unsigned long long)p.rows, ranks, device.c_str(), path.c_str(),
          (unsigned long long)count.pairs, 1 + 2.0 * double(count.pairs) / double(p.rows),
          end_to_end, double(p.rows) / end_to_end, double(count.pairs) / std::max(1e-9, join_max));
      std::printf(
          "# end to end = the slowest rank's partition + gather + join, + %.3f s reduce; "
          "join pairs/s = pairs / the slowest rank's join\n",
          t_reduce);
      if (path == "sorted")
        std::printf(
            "# join CPU time (user + system, all ranks' threads): %.2f s, %.3g pairs per "
            "CPU-second (per core, whatever else shares the cores)\n",
            join_cpu, double(count.pairs) / std::max(1e-9, join_cpu));
      std::fflush(stdout);
    }
    if (check_cpu) {
      t = Clock::now();
      xm::Options cpu = o;
      cpu.backend = celeris::Backend::Cpu;
      xm::PairCount want(o.radius_arcsec, bins);
      xm::count_pairs(all, all, true, cpu, want);
      const bool same = want.pairs == count.pairs && want.histogram == count.histogram;
      std::printf("# --check-cpu: CPU count %llu pairs in %.1f s: %s\n",
                  (unsigned long long)want.pairs, since(t), same ? "identical" : "DIFFERENT");
      if (!same) return finish(1);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_count_billion: error: %s\n", e.what());
    return finish(1);
  }
  return finish(0);
}
