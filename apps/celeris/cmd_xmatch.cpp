// `celeris xmatch`: cross-match two catalogs (or one with itself) by position.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"
#include "cli_parse.hpp"
#include "commands.hpp"

namespace celeris::cli {

namespace {

Table read_nonempty(const std::string& path) {
  Table t = xmatch::read_catalog(path);
  if (t.rows == 0) throw Error(path + ": empty table (no rows)");
  return t;
}

// A one-line progress bar on stderr, redrawn in place.
void draw_progress(size_t done, size_t total) {
  const int width = 40;
  const double f = total ? double(done) / double(total) : 1.0;
  const int filled = int(f * width + 0.5);
  std::fprintf(stderr, "\rxmatch [%.*s%*s] %5.1f%% (%zu / %zu left rows)", filled,
               "########################################", width - filled, "", 100 * f, done,
               total);
  if (done >= total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace

int run_xmatch(const Args& args) {
  CLI::App app{
      "celeris xmatch: HEALPix cross-match of two catalogs (FITS tables or CSV): all "
      "pairs within a radius, or the best ones; or a self-match of one catalog (--self)",
      "celeris xmatch"};
  std::vector<std::string> inputs;
  std::string out, radius = "1arcsec", find = "all", join = "1and2", search = "auto";
  std::string ra1, dec1, ra2, dec2;
  bool self = false, quiet = false;
  xmatch::Options o;
  app.add_option("inputs", inputs, "LEFT RIGHT catalogs (one with --self)")
      ->required()
      ->expected(1, 2);
  app.add_option("-o,--output", out, "output catalog (.csv: CSV, else FITS)")->required();
  app.add_option("-r,--radius", radius, "match radius with unit: 2arcsec, 1.5arcmin, 0.01deg")
      ->capture_default_str();
  app.add_option("--find", find, "all | best | best1 | best2")->capture_default_str();
  app.add_option("--join", join, "1and2 | 1or2 | all1 | all2 | 1not2 | 2not1")
      ->capture_default_str();
  app.add_option("--ra1", ra1, "RA column of LEFT (default: auto-detect)");
  app.add_option("--dec1", dec1, "Dec column of LEFT");
  app.add_option("--ra2", ra2, "RA column of RIGHT");
  app.add_option("--dec2", dec2, "Dec column of RIGHT");
  app.add_flag("--self", self, "self-match one catalog: pairs of distinct rows, each pair once");
  app.add_option("--search", search, "search intervals: auto | neighbours | disc")
      ->capture_default_str();
  app.add_option("--order", o.order, "HEALPix order of the index (default: from the radius)");
  app.add_option("--threads", o.threads, "CPU threads (default: all)");
  std::string backend = "auto";
  app.add_option("--device,--backend", backend,
                 "cpu | cuda | auto (CUDA when a GPU is present); --backend is the former name")
      ->capture_default_str();
  std::string memory, gpu_memory;
  bool progress = false;
  app.add_option("--gpu-memory", gpu_memory,
                 "bound the GPU memory of the CUDA join (e.g. 4G; default: 80% of the free "
                 "memory); larger catalogs are matched in HEALPix chunks on the GPU");
  app.add_option(
      "--memory", memory,
      "bound the memory (e.g. 2G, 500M): FITS inputs are streamed, matched in HEALPix "
      "chunks that fit it, the pairs spilled to a temporary file next to the output "
      "and the output written in blocks (CSV inputs are first converted to temporary FITS "
      "tables in blocks; find best/best2 re-sort the pairs on disk)");
  app.add_flag("--progress", progress,
               "progress bar on stderr with --memory (default: only when stderr is a terminal)");
  app.add_flag("-q,--quiet", quiet, "no summary line");
  if (const auto code = parse_args(app, args)) return *code;
  if (self && inputs.size() != 1) throw Error("--self takes one input catalog");
  if (!self && inputs.size() != 2) throw Error("give two input catalogs (or one with --self)");
  o.radius_arcsec = xmatch::parse_radius_arcsec(radius);
  o.find = xmatch::parse_find(find);
  o.join = xmatch::parse_join(join);
  o.search = xmatch::parse_search(search);
  o.backend = parse_device(backend);
  if (!gpu_memory.empty()) o.device_memory = xmatch::parse_memory_size(gpu_memory);

  const auto t0 = std::chrono::steady_clock::now();
  if (!memory.empty()) {
    const bool bar = progress || isatty(STDERR_FILENO);
    xmatch::StreamedMatch files;
    files.left_path = inputs[0];
    files.right_path = self ? inputs[0] : inputs[1];
    files.output = out;
    files.ra1 = ra1;
    files.dec1 = dec1;
    files.ra2 = ra2;
    files.dec2 = dec2;
    files.self = self;
    const xmatch::StreamedCounts n =
        xmatch::streamed_crossmatch(files, o, xmatch::parse_memory_size(memory),
                                    bar ? std::function<void(size_t, size_t)>(draw_progress)
                                        : std::function<void(size_t, size_t)>());
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!quiet)
      std::printf(
          "xmatch: %zu x %zu rows, radius %g arcsec, order %d: %zu output rows -> %s (%.3f s, "
          "streamed)\n",
          n.left_rows, n.right_rows, o.radius_arcsec, xmatch::index_order(o), n.output_rows,
          out.c_str(), secs);
    return 0;
  }
  const Table left = read_nonempty(inputs[0]);
  const auto [r1, d1] = xmatch::find_radec_columns(left, ra1, dec1, inputs[0]);
  const xmatch::SkyPoints p1 = xmatch::table_positions(left, r1, d1, inputs[0]);
  std::vector<xmatch::Pair> rows;
  Table right_storage;
  const Table* right = &left;
  xmatch::SkyPoints p2;
  if (!self) {
    right_storage = read_nonempty(inputs[1]);
    right = &right_storage;
    const auto [r2, d2] = xmatch::find_radec_columns(*right, ra2, dec2, inputs[1]);
    p2 = xmatch::table_positions(*right, r2, d2, inputs[1]);
  }
  rows = self ? xmatch::self_crossmatch(p1, o) : xmatch::crossmatch(p1, p2, o);
  const Table joined = xmatch::joined_table(left, *right, rows, o.join);
  xmatch::write_catalog(out, joined);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!quiet)
    std::printf(
        "xmatch: %zu x %zu rows, radius %g arcsec, order %d: %zu output rows -> %s (%.3f s)\n",
        left.rows, right->rows, o.radius_arcsec, xmatch::index_order(o), joined.rows, out.c_str(),
        secs);
  return 0;
}

}  // namespace celeris::cli
