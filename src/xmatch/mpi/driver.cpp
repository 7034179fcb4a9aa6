// The MPI job (mpi::crossmatch): read, partition, join, exchange, select, write; every phase
// closed by an agreement among the ranks (collectively), so one rank's error fails them all.
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"
#include "celeris/xmatch_hats.hpp"
#include "celeris/xmatch_mpi.hpp"
#include "collective.hpp"
#include "csv.hpp"
#include "distribute.hpp"
#include "exchange.hpp"
#include "hats_partitions.hpp"
#include "text_catalogs.hpp"

#ifdef CELERIS_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace celeris::xmatch::mpi {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One input catalog on one rank: its positions, and (rank 0, writing a table) its whole table.
struct Side {
  std::string path;
  size_t rows = 0;
  Table table;  // columns and values: rank 0 when it writes the output; else empty
  std::unique_ptr<SkyPoints> points;
  std::unique_ptr<PositionSource> positions;
};

// CSV, VOTable, ASCII_HEAD, or a FITS or HATS table wanted whole, is read into memory (as the
// single-process command does); otherwise only the FITS or HATS schema is read and the RA/Dec
// columns are read block by block (HATS: partition by partition). Galactic positions are rotated to
// ICRS.
Side open_side(const std::string& path, const std::string& ra, const std::string& dec,
               const std::optional<Frame>& frame, bool whole) {
  Side s;
  s.path = path;
  if (!whole && is_hats_catalog(path)) {
    // HATS: each rank's share of the rows is read from the partitions that hold it only.
    const auto [r, d] = find_radec_columns(hats_schema(path), ra, dec, path);
    s.positions = hats_positions(path, r, d);
    if (s.positions->rows() == 0) throw Error(path + ": empty table (no rows)");
    if (is_galactic(frame, r, d)) s.positions = galactic_to_icrs(std::move(s.positions));
  } else if (whole || csv::is_csv_path(path) || is_votable(path) || is_ascii_head(path)) {
    s.table = read_catalog(path);
    if (s.table.rows == 0) throw Error(path + ": empty table (no rows)");
    const auto [r, d] = find_radec_columns(s.table, ra, dec, path);
    s.points = std::make_unique<SkyPoints>(table_positions(s.table, r, d, path));
    if (is_galactic(frame, r, d)) galactic_to_icrs(*s.points);
    s.positions = memory_positions(*s.points);
  } else {
    const FitsTableReader reader(path);
    if (reader.schema().rows == 0) throw Error(path + ": empty table (no rows)");
    const auto [r, d] = find_radec_columns(reader.schema(), ra, dec, path);
    s.positions = fits_positions(path, r, d, size_t(1) << 16);
    if (is_galactic(frame, r, d)) s.positions = galactic_to_icrs(std::move(s.positions));
  }
  s.rows = s.positions->rows();
  return s;
}

// A FITS table or a HATS catalog (not CSV, VOTable nor ASCII_HEAD): rows can be fetched by
// number, so rank 0 writes a table output a block at a time instead of reading the inputs whole.
bool rows_by_number(const std::string& path) {
  return is_hats_catalog(path) ||
         (!csv::is_csv_path(path) && !is_votable(path) && !is_ascii_head(path));
}

std::unique_ptr<RowFetcher> row_fetcher(const std::string& path) {
  return is_hats_catalog(path) ? hats_rows(path) : fits_rows(path);
}

// Find modes decided by one left row's pairs alone can run on each rank before the exchange.
bool find_is_local(Find find, bool self) {
  return find == Find::All || (find == Find::Best1 && !self);
}

std::string describe_part(const ChunkPlan& plan, int rank, int size, size_t first, size_t last) {
  std::string s = "partition " + std::to_string(rank + 1) + "/" + std::to_string(size) + ": ";
  if (first >= last) return s + "no rows";
  const ChunkCut b = plan.chunks[first].begin, e = plan.chunks[last - 1].end;
  const int64_t last_pix = e.rank > 0 ? e.pix : e.pix - 1;
  return s + "chunks " + std::to_string(first) + "-" + std::to_string(last - 1) +
         ", HEALPix order-" + std::to_string(plan.order) + " pixels " + std::to_string(b.pix) +
         "-" + std::to_string(last_pix);
}

// Each rank's OpenMP threads and GPU.
void place_rank(const Session& s, Options& o) {
  if (o.threads <= 0) o.threads = std::max(1, omp_get_num_procs() / std::max(1, s.local_size()));
  omp_set_num_threads(o.threads);
  if (o.backend == Backend::Cpu) return;
  o.backend = resolve_backend(o.backend);
#ifdef CELERIS_HAVE_CUDA
  if (o.backend == Backend::Cuda) {
    const int n = cuda_device_count();
    select_cuda_device(s.local_rank() % n);
    // Ranks sharing a GPU share its memory: without --gpu-memory each plans for its share of 80%
    // of what is free now (else every rank would plan its device runs for the whole device).
    const int sharing = (s.local_size() + n - 1) / n;
    size_t free = 0, total = 0;
    if (o.device_memory == 0 && sharing > 1 && cudaMemGetInfo(&free, &total) == cudaSuccess)
      o.device_memory = free / 10 * 8 / size_t(sharing);
  }
#endif
}

}  // namespace

Result crossmatch(const Session& s, const Match& m, const Options& options) {
  Options o = options;
  Result res;
  res.ranks = s.size();
  PhaseTimes t;
  const bool self = m.self;
  if (m.count && o.join != Join::And) throw Error("--count counts pairs: use --join 1and2");
  // Rank 0 writes a table output from blocks of input rows read as needed when both inputs are
  // FITS tables or HATS catalogs; other formats are read whole by rank 0 (no row reader).
  bool blocks_out = false, rank0_table = false;
  const bool local_find = find_is_local(o.find, self);

  // Read: every rank opens the inputs; rank 0 reads the whole tables when it writes the output.
  std::string where = "reading the inputs";
  set_crash_context(s.rank(), where);
  auto t0 = Clock::now();
  Side left, right;
  std::optional<HatsInputs> hats;
  std::string why_not;  // why HATS inputs are not matched by partitions (stderr)
  collectively(s, where, [&] {
    place_rank(s, o);
    blocks_out = !m.count && rows_by_number(m.left_path) && (self || rows_by_number(m.right_path));
    rank0_table = s.rank() == 0 && !m.count && !blocks_out;
    hats = hats_partition_inputs(m, o, why_not);
    left = open_side(m.left_path, m.ra1, m.dec1, m.frame1, rank0_table);
    if (!self) right = open_side(m.right_path, m.ra2, m.dec2, m.frame2, rank0_table);
  });
  res.left_rows = left.rows;
  res.right_rows = self ? left.rows : right.rows;

  // Join: every rank matches its units of work (chunks of the plan, or HATS partitions) one at a
  // time, keeping one unit's pairs; they are counted, or go to rank 0 in rounds.
  const bool gather = !(m.count && local_find);  // pairs (not counts) go to rank 0
  std::vector<Pair> pairs;                       // rank 0: every rank's pairs, when gathered
  PairCount count = m.count ? PairCount(o.radius_arcsec, m.bins) : PairCount();
  // `count_all`, when given, counts every unit at once (PartitionChunks::count: on the GPU, the
  // rank's rows uploaded in as few runs as the device memory allows, the pairs counted there).
  auto join_units = [&](size_t units, const std::function<std::vector<Pair>(size_t)>& match,
                        const std::function<void(PairCount&)>& count_all = {}) {
    auto join_unit = [&](size_t k) {
      std::vector<Pair> p = match(k);
      // A find decided by one left row's pairs is applied per unit: a left row's pairs all lie
      // in its unit.
      if (local_find && o.find != Find::All)
        p = select_pairs(std::move(p), o.find, self, res.left_rows, res.right_rows);
      return p;
    };
    collectively(s, where, [&] {
      maybe_inject_fault(s.rank());
      const auto tj = Clock::now();
      // Counted here: the units' counts are summed on rank 0 after the last one.
      if (!gather && count_all && o.find == Find::All)
        count_all(count);
      else if (!gather)
        for (size_t k = 0; k < units; ++k) count.add(join_unit(k));
      t.join += since(tj);
    });
    if (!gather) return;
    // Round k: every rank matches its k-th unit (if it has one) and the pairs go to rank 0, so
    // no rank but rank 0 holds more than one unit's pairs; each round ends in an agreement.
    uint64_t mine = units, rounds = 0;
    MPI_Allreduce(&mine, &rounds, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    for (size_t k = 0; k < rounds; ++k) {
      std::vector<Pair> p;
      collectively(s, where, [&] {
        const auto tj = Clock::now();
        if (k < units) p = join_unit(k);
        t.join += since(tj);
      });
      t0 = Clock::now();
      gather_more_pairs(s, p, pairs);
      t.exchange += since(t0);
    }
  };

  // HATS inputs with a margin cache: each rank reads its own partitions and their margins.
  bool joined = false;
  if (hats) {
    std::unique_ptr<HatsPartitions> hp;
    where = "reading the HATS partitions";
    set_crash_context(s.rank(), where);
    t0 = Clock::now();
    collectively(s, where, [&] {
      hp = std::make_unique<HatsPartitions>(*hats, o, s.rank(), s.size());
      where = hp->describe();
      set_crash_context(s.rank(), where);
    });
    collectively(s, where, [&] { hp->read(); });
    hp->exchange_lookups();
    collectively(s, where, [&] { hp->answer(); });
    hp->exchange_answers();
    bool ok = false;
    collectively(s, where, [&] { ok = hp->resolve(); });
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    t.read += since(t0);
    if (all) {
      res.left_rows = hp->left_rows();
      res.right_rows = hp->right_rows();
      res.chunks = hats->left.partitions.size();  // units of work: the left partitions
      res.coarse_order = chunk_order(o);
      join_units(hp->size(), [&](size_t k) { return hp->match(k); });
      joined = true;
    } else {
      // The reason of the first rank that found one.
      std::string why = ok ? std::string() : hp->why_not();
      int len = int(why.size()), from = ok ? s.size() : s.rank(), first = 0;
      MPI_Allreduce(&from, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      MPI_Bcast(&len, 1, MPI_INT, first, MPI_COMM_WORLD);
      why.resize(size_t(len));
      MPI_Bcast(why.data(), len, MPI_CHAR, first, MPI_COMM_WORLD);
      why_not = why;
    }
  }
  if (!why_not.empty() && s.rank() == 0)
    std::cerr << "celeris xmatch: " << why_not
              << ": MPI ranks exchange rows instead of reading the margin cache\n";
  if (!joined) {
    const PositionSource& lsrc = *left.positions;
    const PositionSource& rsrc = self ? lsrc : *right.positions;

    // Read this rank's slice of the rows (RA/Dec only); partition: rows per coarse pixel summed
    // over the ranks, the same chunk plan on every rank, cut into one run per rank.
    ChunkPlan plan;
    std::vector<size_t> bounds;
    Slice lslice, rslice;
    std::vector<uint64_t> left_before;
    where = "reading rows " + std::to_string(s.rank() + 1) + "/" + std::to_string(s.size()) +
            " of the inputs";
    set_crash_context(s.rank(), where);
    const int order = chunk_order(o);
    std::vector<uint64_t> lmine, rmine;
    collectively(s, where, [&] {
      lslice = read_slice(lsrc, s.rank(), s.size());
      lmine = slice_counts(lslice, order);
      if (!self) {
        rslice = read_slice(rsrc, s.rank(), s.size());
        rmine = slice_counts(rslice, order);
      }
    });
    t.read += since(t0);
    t0 = Clock::now();
    PixelCounts lc = sum_counts(lmine), rc;
    if (!self) rc = sum_counts(rmine);
    left_before = std::move(lc.before);
    where = "planning the partitions";
    collectively(s, where, [&] {
      // Chunks of about 1/16 of a rank's share, so that the split can balance the ranks within a
      // few percent; at least 5/4 of what the densest pixel's margin needs, so that a crowded
      // pixel's left rows are cut into chunks of about a quarter of its right rows each (and may
      // go to several ranks).
      const uint64_t total =
          res.left_rows * chunk_bytes_per_left_row + res.right_rows * chunk_bytes_per_right_row;
      const std::vector<uint64_t>& rtotal = self ? lc.total : rc.total;
      const size_t least = min_chunk_bytes(order, lc.total, rtotal);
      size_t bound = std::max<size_t>(least + least / 4, size_t(total / (16 * uint64_t(s.size()))));
      // --memory: each rank's chunks within half of it, as the streamed single process's (the
      // pairs of a chunk and the join's scratch come on top); too small a bound is an error
      // naming the bytes needed.
      if (m.memory > 0) {
        if (m.memory / 2 < least)
          throw Error("--memory " + std::to_string(m.memory) +
                      " bytes is too small: the rows around the densest HEALPix order-" +
                      std::to_string(order) + " pixel need " + std::to_string(2 * least) +
                      " bytes (half of --memory goes to a chunk's rows)");
        bound = std::min(bound, m.memory / 2);
      }
      plan = plan_chunks(order, lc.total, rtotal, self, bound);
      bounds = split_chunks(plan, s.size());
    });
    t.partition += since(t0);
    res.chunks = plan.chunks.size();
    res.coarse_order = plan.order;
    const size_t first = bounds[size_t(s.rank())], last = bounds[size_t(s.rank()) + 1];

    // Exchange the rows: each partition receives its left rows and its margin's right rows.
    where = describe_part(plan, s.rank(), s.size(), first, last);
    set_crash_context(s.rank(), where);
    t0 = Clock::now();
    PartitionRows rows;
    collectively(s, where, [&] {
      rows = exchange_rows(s, plan, bounds, lslice, left_before, self ? nullptr : &rslice);
      lslice = Slice{};
      rslice = Slice{};
    });
    t.gather += since(t0);

    // Join: this rank's partition and its margin, a chunk at a time (one chunk's pairs held at
    // a time), on its cores or its GPU.
    std::unique_ptr<PartitionChunks> chunks;
    collectively(s, where,
                 [&] { chunks = std::make_unique<PartitionChunks>(rows, plan, first, last, o); });
    join_units(
        chunks->size(), [&](size_t k) { return chunks->match(k); },
        [&](PairCount& c) { chunks->count(c); });
    chunks.reset();
    rows = PartitionRows{};
  }

  // Exchange: counts reduced; gathered pairs sorted by (i, j) on rank 0.
  where = "exchanging results";
  set_crash_context(s.rank(), where);
  t0 = Clock::now();
  if (!gather) {
    count = reduce_count(s, count);
  } else {
    collectively(s, where, [&] {
      if (s.rank() == 0) sort_gathered_pairs(pairs);
    });
  }
  t.exchange += since(t0);

  // Select and write, on rank 0 only (the others wait in the agreement).
  where = "writing " + (m.count ? std::string("the count") : m.output);
  set_crash_context(s.rank(), where);
  collectively(s, where, [&] {
    if (s.rank() != 0) return;
    auto t1 = Clock::now();
    if (!local_find)
      pairs = select_pairs(std::move(pairs), o.find, self, res.left_rows, res.right_rows);
    if (m.count) {
      if (!local_find) count.add(pairs);
      res.count = count;
      t.select += since(t1);
      return;
    }
    const std::vector<Pair> rows = join_rows(pairs, res.left_rows, res.right_rows, o.join, self);
    pairs = {};
    t.select += since(t1);
    t1 = Clock::now();
    if (blocks_out) {
      const std::unique_ptr<RowFetcher> lf = row_fetcher(m.left_path);
      const std::unique_ptr<RowFetcher> rf = self ? nullptr : row_fetcher(m.right_path);
      res.output_rows =
          write_joined_rows(*lf, self ? *lf : *rf, rows, o.join, m.output, size_t(1) << 16);
    } else {
      const Table joined = joined_table(left.table, self ? left.table : right.table, rows, o.join);
      write_catalog(m.output, joined);
      res.output_rows = joined.rows;
    }
    t.write += since(t1);
  });
  res.times = slowest(t);
  return res;
}

}  // namespace celeris::xmatch::mpi
