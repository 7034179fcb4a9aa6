// bench_simulate_hats: a simulated sky catalog written as a HATS catalog partition by partition,
// so that no process ever holds the whole catalog (the 1.23 B-row self-match: 30 GB of
// Parquet, written by the threads of one host each holding one partition at a time).
//
//   bench_simulate_hats --rows N [--order K] [--seed S] [--matches-per-row M]
//                       [--match-radius ARCSEC] [--repeats R] [--scatter ARCSEC] -o DIR
//
// The sky is cut into the 12 * 4^K NESTED pixels of order K, each one partition holding N / npix
// rows (the first N % npix partitions one more; HEALPix pixels have equal areas, so the density
// is uniform). A partition's rows are sources drawn uniformly in its pixel (the centre of a random
// order-29 sub-pixel, 0.4 mas wide), each detected 1 + Poisson(R - 1) times with a Gaussian
// scatter per axis (a detection falling outside the pixel is drawn again, so every row lies in
// its partition as HATS requires), as celeris simulate catalog does for the whole sky. With
// --matches-per-row M, R is chosen as sim::repeats_for_matches does, so that a self-match at
// --match-radius gives M matches per row on average (the row itself counted). Each partition is
// seeded from (seed, pixel): the catalog does not depend on the thread count.
//
// Columns: id (int64, 0-based catalog row: partitions in pixel order, rows in file order), ra,
// dec (double, degrees): 24 B a row, 30 GB of Parquet for 1.23 B rows (random doubles do not
// compress). Writes
// hats.properties, partition_info.csv, dataset/_common_metadata and
// dataset/Norder=K/Dir=D/Npix=N.parquet into DIR.partial,
// renamed to DIR when every partition is written (DIR must not exist).
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <omp.h>
#include <parquet/arrow/writer.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/simulate.hpp"
#include "simulate_partition.hpp"

namespace fs = std::filesystem;
namespace hp = celeris::healpix;

namespace {

using celeris::bench::Params;
using celeris::bench::Rows;
using celeris::bench::simulate_partition;

template <class T, class ArrowArray>
std::shared_ptr<arrow::Array> wrap(const std::vector<T>& v) {
  return std::make_shared<ArrowArray>(int64_t(v.size()), arrow::Buffer::Wrap(v));
}

std::shared_ptr<arrow::Schema> catalog_schema() {
  return arrow::schema({arrow::field("id", arrow::int64(), false),
                        arrow::field("ra", arrow::float64(), false),
                        arrow::field("dec", arrow::float64(), false)});
}

void write_parquet(const std::string& path, const Rows& r) {
  const auto schema = catalog_schema();
  const auto table = arrow::Table::Make(
      schema, {wrap<int64_t, arrow::Int64Array>(r.id), wrap<double, arrow::DoubleArray>(r.ra),
               wrap<double, arrow::DoubleArray>(r.dec)});
  auto out = arrow::io::FileOutputStream::Open(path);
  if (!out.ok()) throw celeris::Error(path + ": " + out.status().message());
  // Random doubles neither compress nor fit a dictionary: plain pages, no compression (24 B a
  // row on disk instead of 29 with the default dictionary attempt).
  const auto props = parquet::WriterProperties::Builder()
                         .disable_dictionary()
                         ->compression(parquet::Compression::UNCOMPRESSED)
                         ->build();
  const arrow::Status s =
      parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), *out, 1 << 20, props);
  if (!s.ok()) throw celeris::Error(path + ": " + s.message());
  if (!(*out)->Close().ok()) throw celeris::Error(path + ": close failed");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "bench_simulate_hats: a simulated catalog written as a HATS catalog, partition by "
      "partition"};
  Params p;
  std::string out;
  double matches = 0, match_radius = celeris::sim::table3_radius_arcsec;
  app.add_option("--rows", p.rows, "rows")->required();
  app.add_option("--order", p.order, "HEALPix order of the partitions (0..12)")
      ->capture_default_str();
  app.add_option("--seed", p.seed)->capture_default_str();
  app.add_option("--repeats", p.repeats, "mean detections per source (>= 1)")
      ->capture_default_str();
  app.add_option("--scatter", p.scatter_arcsec, "detection scatter per axis, arcsec")
      ->capture_default_str();
  app.add_option("--matches-per-row", matches,
                 "choose --repeats for this many self-match matches per row (row included)");
  app.add_option("--match-radius", match_radius, "radius for --matches-per-row, arcsec")
      ->capture_default_str();
  app.add_option("-o,--output", out, "output HATS directory (must not exist)")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    if (p.order < 0 || p.order > 12) throw celeris::Error("--order must be in 0..12");
    if (p.rows == 0) throw celeris::Error("--rows must be positive");
    if (matches > 0)
      p.repeats = celeris::sim::repeats_for_matches(size_t(p.rows), -90, 90, match_radius, matches);
    if (p.repeats < 1) throw celeris::Error("--repeats must be >= 1");
    if (fs::exists(out)) throw celeris::Error(out + ": exists");
    const std::string tmp = out + ".partial";
    fs::remove_all(tmp);
    const int64_t npix = 12 * (int64_t(1) << (2 * p.order));
    const auto first_row = [&](int64_t pix) { return celeris::bench::first_row(p, pix); };
    for (int64_t d = 0; d < npix; d += 10000)
      fs::create_directories(fs::path(tmp) / "dataset" / ("Norder=" + std::to_string(p.order)) /
                             ("Dir=" + std::to_string(d)));
    const auto t0 = std::chrono::steady_clock::now();
    std::atomic<bool> failed{false};
    std::string error;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t pix = 0; pix < npix; ++pix) {
      if (failed) continue;
      try {
        const uint64_t first = first_row(pix), count = first_row(pix + 1) - first;
        const Rows r = simulate_partition(p, pix, first, count);
        write_parquet((fs::path(tmp) / "dataset" / ("Norder=" + std::to_string(p.order)) /
                       ("Dir=" + std::to_string(pix / 10000 * 10000)) /
                       ("Npix=" + std::to_string(pix) + ".parquet"))
                          .string(),
                      r);
      } catch (const std::exception& e) {
#pragma omp critical
        if (!failed.exchange(true)) error = e.what();
      }
    }
    if (failed) throw celeris::Error(error);
    // dataset/_common_metadata: the schema alone (a Parquet file without rows), which LSDB
    // reads before opening a catalog.
    write_parquet((fs::path(tmp) / "dataset" / "_common_metadata").string(), Rows{});
    {
      std::ofstream info(fs::path(tmp) / "partition_info.csv");
      info << "Norder,Npix\n";
      for (int64_t pix = 0; pix < npix; ++pix) info << p.order << ',' << pix << '\n';
      std::ofstream prop(fs::path(tmp) / "hats.properties");
      prop << "#HATS catalog\nobs_collection=" << fs::path(out).filename().string()
           << "\ndataproduct_type=object\nhats_nrows=" << p.rows
           << "\nhats_col_ra=ra\nhats_col_dec=dec\nhats_npix_suffix=.parquet\nhats_order="
           << p.order << "\nhats_builder=celeris bench_simulate_hats (seed " << p.seed
           << ", repeats " << p.repeats << ", scatter " << p.scatter_arcsec << " arcsec)\n";
      if (!info || !prop) throw celeris::Error(tmp + ": cannot write the metadata");
    }
    fs::rename(tmp, out);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "bench_simulate_hats: %llu rows in %lld order-%d partitions, repeats %.4g -> %s "
        "(%.1f s, %d threads, %.3g rows/s)\n",
        (unsigned long long)p.rows, (long long)npix, p.order, p.repeats, out.c_str(), s,
        omp_get_max_threads(), double(p.rows) / s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_simulate_hats: error: %s\n", e.what());
    fs::remove_all(out + ".partial");
    return 1;
  }
  return 0;
}
