// `celeris xmatch`: cross-match two catalogs (or one with itself) by position.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <tuple>

#include "celeris/device.hpp"
#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"
#include "celeris/xmatch_hats.hpp"
#ifdef CELERIS_HAVE_MPI
#include "celeris/xmatch_mpi.hpp"
#endif
#include "cli_parse.hpp"
#include "commands.hpp"

namespace celeris::cli {

namespace {

Table read_nonempty(const std::string& path) {
  Table t = xmatch::read_catalog(path);
  if (t.rows == 0) throw Error(path + ": empty table (no rows)");
  return t;
}

Table read_nonempty_columns(const std::string& path, const std::string& ra,
                            const std::string& dec) {
  Table t = xmatch::read_hats_table(path, {ra, dec});
  if (t.rows == 0) throw Error(path + ": empty table (no rows)");
  return t;
}

// A catalog for --count: a HATS catalog's RA/Dec columns only (Parquet is columnar), else the
// whole table.
Table read_for_count(const std::string& path, const std::string& ra, const std::string& dec) {
  if (!xmatch::is_hats_catalog(path)) return read_nonempty(path);
  const auto [r, d] = xmatch::find_radec_columns(xmatch::hats_schema(path), ra, dec, path);
  return read_nonempty_columns(path, r, d);
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

// --count on one process: the pairs (after --find) counted, in memory or, with --memory and
// --find all, chunk by chunk from the FITS columns.
int count_pairs_single(const std::vector<std::string>& inputs, bool self, const std::string& ra1,
                       const std::string& dec1, const std::string& ra2, const std::string& dec2,
                       const std::optional<xmatch::Frame>& f1,
                       const std::optional<xmatch::Frame>& f2, const std::string& memory,
                       const xmatch::Options& o, int bins, bool quiet) {
  const auto t0 = std::chrono::steady_clock::now();
  xmatch::PairCount c(o.radius_arcsec, bins);
  size_t n1 = 0, n2 = 0;
  if (!memory.empty()) {
    if (o.find != xmatch::Find::All)
      throw Error("--count with --memory counts --find all only (other modes need every pair)");
    // Positions: FITS columns scanned in blocks; a CSV catalog read whole.
    struct Side {
      Table table;
      xmatch::SkyPoints points;
      std::unique_ptr<xmatch::PositionSource> src;
    };
    auto open = [](const std::string& path, const std::string& ra, const std::string& dec,
                   const std::optional<xmatch::Frame>& frame) {
      auto s = std::make_unique<Side>();
      std::string lower = path;
      for (auto& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      if (xmatch::is_hats_catalog(path)) {
        const auto [r, d] = xmatch::find_radec_columns(xmatch::hats_schema(path), ra, dec, path);
        s->src = xmatch::hats_positions(path, r, d);
        if (s->src->rows() == 0) throw Error(path + ": empty table (no rows)");
        if (xmatch::is_galactic(frame, r, d)) s->src = xmatch::galactic_to_icrs(std::move(s->src));
      } else if (lower.size() >= 4 && lower.compare(lower.size() - 4, 4, ".csv") == 0) {
        s->table = read_nonempty(path);
        const auto [r, d] = xmatch::find_radec_columns(s->table, ra, dec, path);
        s->points = xmatch::table_positions(s->table, r, d, path);
        if (xmatch::is_galactic(frame, r, d)) xmatch::galactic_to_icrs(s->points);
        s->src = xmatch::memory_positions(s->points);
      } else {
        const FitsTableReader reader(path);
        if (reader.schema().rows == 0) throw Error(path + ": empty table (no rows)");
        const auto [r, d] = xmatch::find_radec_columns(reader.schema(), ra, dec, path);
        s->src = xmatch::fits_positions(path, r, d, size_t(1) << 16);
        if (xmatch::is_galactic(frame, r, d)) s->src = xmatch::galactic_to_icrs(std::move(s->src));
      }
      return s;
    };
    const auto left = open(inputs[0], ra1, dec1, f1);
    const auto right = self ? nullptr : open(inputs[1], ra2, dec2, f2);
    const xmatch::PositionSource& rsrc = self ? *left->src : *right->src;
    n1 = left->src->rows();
    n2 = rsrc.rows();
    xmatch::chunked_pairs_each(*left->src, rsrc, self, o, xmatch::parse_memory_size(memory),
                               [&](std::vector<xmatch::Pair>& p) { c.add(p); });
  } else {
    const Table left = read_for_count(inputs[0], ra1, dec1);
    const auto [r1, d1] = xmatch::find_radec_columns(left, ra1, dec1, inputs[0]);
    xmatch::SkyPoints p1 = xmatch::table_positions(left, r1, d1, inputs[0]);
    if (xmatch::is_galactic(f1, r1, d1)) xmatch::galactic_to_icrs(p1);
    std::vector<xmatch::Pair> pairs;
    n1 = n2 = left.rows;
    xmatch::SkyPoints p2;
    if (!self) {
      const Table right = read_for_count(inputs[1], ra2, dec2);
      const auto [r2, d2] = xmatch::find_radec_columns(right, ra2, dec2, inputs[1]);
      p2 = xmatch::table_positions(right, r2, d2, inputs[1]);
      if (xmatch::is_galactic(f2, r2, d2)) xmatch::galactic_to_icrs(p2);
      n2 = right.rows;
    }
    if (o.find == xmatch::Find::All) {
      // Counted without holding the pairs (on the GPU: counted on the device).
      xmatch::count_pairs(p1, p2, self, o, c);
    } else {
      pairs = self ? xmatch::self_pairs(p1, o) : xmatch::match_pairs(p1, p2, o);
      c.add(xmatch::select_pairs(std::move(pairs), o.find, self, n1, n2));
    }
  }
  std::fputs(xmatch::format_count(c).c_str(), stdout);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!quiet)
    std::printf("xmatch: %zu x %zu rows, radius %g arcsec: %llu pairs counted (%.3f s)\n", n1, n2,
                o.radius_arcsec, (unsigned long long)c.pairs, secs);
  return 0;
}

#ifdef CELERIS_HAVE_MPI
void print_times(const xmatch::mpi::PhaseTimes& t) {
  std::printf(
      "times (s, slowest rank): read %.3f partition %.3f gather %.3f join %.3f exchange %.3f "
      "select %.3f write %.3f\n",
      t.read, t.partition, t.gather, t.join, t.exchange, t.select, t.write);
}

// Under mpirun: the job split over the ranks (src/xmatch/mpi); rank 0 prints and writes.
int run_xmatch_mpi(const xmatch::mpi::Match& match, const xmatch::Options& o, bool quiet,
                   bool timings) {
  xmatch::mpi::Session session;
  const auto t0 = std::chrono::steady_clock::now();
  xmatch::mpi::Result r;
  try {
    r = xmatch::mpi::crossmatch(session, match, o);
  } catch (const xmatch::mpi::JobFailed& e) {
    // Rank 0 prints the message naming every failed rank, and the others wait for it: mpirun
    // ends the whole job at the first non-zero exit, which could cut rank 0 short.
    if (session.rank() == 0) {
      std::fprintf(stderr, "celeris xmatch: error: %s\n", e.what());
      std::fflush(stderr);
    }
    session.barrier();
    return 1;
  }
  if (session.rank() != 0) return 0;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (match.count) std::fputs(xmatch::format_count(r.count).c_str(), stdout);
  if (!quiet)
    std::printf(
        "xmatch: %zu x %zu rows, radius %g arcsec, %d ranks, %zu chunks at order %d: %zu %s "
        "(%.3f s, MPI)\n",
        r.left_rows, r.right_rows, o.radius_arcsec, r.ranks, r.chunks, r.coarse_order,
        match.count ? size_t(r.count.pairs) : r.output_rows,
        match.count ? "pairs counted" : ("output rows -> " + match.output).c_str(), secs);
  if (timings) print_times(r.times);
  return 0;
}
#endif

}  // namespace

int run_xmatch(const Args& args) {
  CLI::App app{
      "celeris xmatch: HEALPix cross-match of two catalogs (FITS tables, CSV, VOTable, or HATS "
      "catalog directories): all "
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
  app.add_option("-o,--output", out, "output catalog (.csv: CSV, else FITS)");
  app.add_option("-r,--radius", radius, "match radius with unit: 2arcsec, 1.5arcmin, 0.01deg")
      ->capture_default_str();
  app.add_option("--find", find, "all | best | greedy | best1 | best2 (best: as STILTS)")
      ->capture_default_str();
  app.add_option("--join", join, "1and2 | 1or2 | all1 | all2 | 1not2 | 2not1")
      ->capture_default_str();
  app.add_option("--ra1", ra1, "RA column of LEFT (default: auto-detect)");
  app.add_option("--dec1", dec1, "Dec column of LEFT");
  app.add_option("--ra2", ra2, "RA column of RIGHT");
  app.add_option("--dec2", dec2, "Dec column of RIGHT");
  std::string frame, frame1, frame2;
  app.add_option("--frame", frame,
                 "frame of both inputs' position columns: icrs | galactic (default: by column "
                 "name: GLON/GLAT, L/B, LII/BII are Galactic)");
  app.add_option("--frame1", frame1, "frame of LEFT's position columns (icrs | galactic)");
  app.add_option("--frame2", frame2, "frame of RIGHT's position columns (icrs | galactic)");
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
  bool count = false, timings = false;
  int bins = 20;
  app.add_flag("--count", count,
               "write no table: print the number of pairs (after --find) and a histogram of "
               "their separations on stdout");
  app.add_option("--bins", bins, "histogram bins of --count over [0, radius]")
      ->capture_default_str();
  app.add_flag("--timings", timings, "under mpirun: print the time of each phase");
  if (const auto code = parse_args(app, args)) return *code;
  if (!frame.empty() && (!frame1.empty() || !frame2.empty()))
    throw Error("give --frame, or --frame1 / --frame2, not both");
  std::optional<xmatch::Frame> f1, f2;
  if (!frame.empty()) f1 = f2 = xmatch::parse_frame(frame);
  if (!frame1.empty()) f1 = xmatch::parse_frame(frame1);
  if (!frame2.empty()) f2 = xmatch::parse_frame(frame2);
  if (self && !frame2.empty()) throw Error("--self takes --frame or --frame1, not --frame2");
  // A HATS catalog names its position columns (hats_col_ra / hats_col_dec): the default there.
  auto hats_default = [&](size_t k, std::string& ra, std::string& dec) {
    if (k < inputs.size() && ra.empty() && dec.empty() && xmatch::is_hats_catalog(inputs[k]))
      std::tie(ra, dec) = xmatch::hats_radec_columns(inputs[k]);
  };
  hats_default(0, ra1, dec1);
  if (!self) hats_default(1, ra2, dec2);
  if (count && !out.empty()) throw Error("--count writes no table: drop -o");
  if (!count && out.empty()) throw Error("give the output catalog with -o (or use --count)");
  if (count && join != "1and2") throw Error("--count counts pairs: use --join 1and2");
  if (self && inputs.size() != 1) throw Error("--self takes one input catalog");
  if (!self && inputs.size() != 2) throw Error("give two input catalogs (or one with --self)");
  for (const std::string& in : inputs) refuse_output_over_input(out, in, "--output");
  o.radius_arcsec = xmatch::parse_radius_arcsec(radius);
  o.find = xmatch::parse_find(find);
  o.join = xmatch::parse_join(join);
  o.search = xmatch::parse_search(search);
  o.backend = parse_device(backend);
  if (!gpu_memory.empty()) o.device_memory = xmatch::parse_memory_size(gpu_memory);

#ifdef CELERIS_HAVE_MPI
  if (xmatch::mpi::launched_by_mpirun()) {
    // Under mpirun, --memory bounds each rank's chunks; a table output gathers every pair and
    // the input tables on rank 0, which the bound would not honour.
    if (!memory.empty() && !count)
      throw Error(
          "under mpirun --memory is for --count only (a table output is written by rank 0 "
          "from every pair and the whole input tables)");
    xmatch::mpi::Match match;
    match.left_path = inputs[0];
    match.right_path = self ? inputs[0] : inputs[1];
    match.output = out;
    match.ra1 = ra1;
    match.dec1 = dec1;
    match.ra2 = ra2;
    match.dec2 = dec2;
    match.self = self;
    match.frame1 = f1;
    match.frame2 = self ? f1 : f2;
    match.count = count;
    match.bins = bins;
    if (!memory.empty()) {
      // Find modes that need every pair (best, greedy, best2, a self-match's best1) gather them
      // on rank 0, beyond any bound.
      if (!(o.find == xmatch::Find::All || (o.find == xmatch::Find::Best1 && !self)))
        throw Error(
            "under mpirun --count --memory counts --find all (or best1 of two catalogs) "
            "only: other modes gather every pair on rank 0");
      match.memory = xmatch::parse_memory_size(memory);
    }
    return run_xmatch_mpi(match, o, quiet, timings);
  }
#else
  // Started by mpirun with several ranks but built without MPI: every rank would run the whole
  // match and write the same output; refuse instead.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* n = std::getenv(v); n && std::atoi(n) > 1)
      throw Error("started by mpirun with " + std::string(n) +
                  " ranks, but this celeris was built without MPI (CELERIS_MPI)");
#endif
  if (timings) throw Error("--timings is only available under mpirun");
  const auto t0 = std::chrono::steady_clock::now();
  if (count)
    return count_pairs_single(inputs, self, ra1, dec1, ra2, dec2, f1, self ? f1 : f2, memory, o,
                              bins, quiet);
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
    files.frame1 = f1;
    files.frame2 = self ? f1 : f2;
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
  xmatch::SkyPoints p1 = xmatch::table_positions(left, r1, d1, inputs[0]);
  if (xmatch::is_galactic(f1, r1, d1)) xmatch::galactic_to_icrs(p1);
  std::vector<xmatch::Pair> rows;
  Table right_storage;
  const Table* right = &left;
  xmatch::SkyPoints p2;
  if (!self) {
    right_storage = read_nonempty(inputs[1]);
    right = &right_storage;
    const auto [r2, d2] = xmatch::find_radec_columns(*right, ra2, dec2, inputs[1]);
    p2 = xmatch::table_positions(*right, r2, d2, inputs[1]);
    if (xmatch::is_galactic(f2, r2, d2)) xmatch::galactic_to_icrs(p2);
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
