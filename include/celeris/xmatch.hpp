// celeris xmatch: positional cross-match of two sky catalogs (or of one with itself), HEALPix
// indexed, after Jia, Luo & Fan, "Cross-Matching Large Astronomical Catalogs on Heterogeneous
// Clusters" (papers/catalog-crossmatch.txt):
//   phase 1  index: every right-hand row gets its NESTED pixel; rows are sorted by pixel;
//   phase 2  search intervals: per left row, the pixel ranges that may hold matches, either the
//            row's pixel and its 8 neighbours (pixels at least `radius` wide) or an inclusive disc
//            query (sorted pixel ranges);
//   phase 3  filter + refine: every right row in those ranges is tested with the exact chord
//            distance, |v1 - v2|^2 <= 4 sin^2(radius / 2) (formula 5).
// Units: RA/Dec in degrees (ICRS or any equatorial frame, both sides the same), radius and
// separations in arcseconds. Rows are 0-based in the API; error messages name rows 1-based.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/simulate.hpp"
#include "celeris/table.hpp"

namespace celeris::xmatch {

// Positions of one catalog, degrees. dec in [-90, 90]; ra any finite value in [-360, 360].
struct SkyPoints {
  std::vector<double> ra, dec;
  size_t size() const { return ra.size(); }
};

// One output row: left row i, right row j (-1: blank side of an outer join), separation in
// arcsec (NaN when a side is blank).
struct Pair {
  int64_t i, j;
  double sep_arcsec;
};

// Which pairs to keep among all those within the radius (STILTS tmatch2 words).
enum class Find {
  All,  // every pair
  // STILTS tmatch2 find=best ("best match, symmetric"), as STILTS computes it: every row of the
  // side with more rows (the left when equal) takes its nearest partner; of those pairs, every
  // row of the other side keeps its nearest (ties: smaller i, then smaller j). Each row of
  // either side is in at most one pair. In a self-match: the mutually nearest pairs.
  Best,
  // celeris's own symmetric mode (`--find greedy`; it was `best` until 2026-11): pairs taken
  // greedily by increasing separation, skipping pairs with a row already taken (ties: smaller i,
  // then smaller j). Keeps more pairs than Best in crowded fields: a row whose nearest partner
  // went to another row still gets its next nearest free one.
  Greedy,
  Best1,  // for each left row, its nearest right row
  Best2,  // for each right row, its nearest left row
};

// Which rows appear in the output (STILTS tmatch2 words).
enum class Join {
  And,   // 1and2: matched pairs only
  Or,    // 1or2: pairs, plus unmatched rows of either side
  All1,  // all1: pairs, plus unmatched left rows
  All2,  // all2: pairs, plus unmatched right rows
  Not2,  // 1not2: left rows without a match
  Not1,  // 2not1: right rows without a match
};

// How phase 2 computes the search intervals.
enum class Search {
  Auto,        // neighbours when some order has pixels >= radius wide, else disc
  Neighbours,  // the row's pixel and its 8 neighbours
  Disc,        // inclusive disc query (the paper's queryDisc)
};

struct Options {
  double radius_arcsec = 1.0;
  Find find = Find::All;
  Join join = Join::And;
  Search search = Search::Auto;
  int order = -1;   // HEALPix order of the index; -1: automatic from the radius
  int threads = 0;  // OpenMP threads; 0: OpenMP's default
  // The device (celeris/device.hpp): Cuda: the GPU join of src/xmatch/join_cuda.cu (same
  // pairs); Auto: CUDA when a device exists. Keeps its former field name `backend` so that the
  // callers in other modules' work in flight still compile; the CLI spells it --device.
  Device backend = Device::Cpu;
  // Device bytes the CUDA join may use (0: 80% of the free memory). Catalogs that need more are
  // matched in HEALPix chunks (chunked_pairs), each on the GPU. At least 16 MiB.
  size_t device_memory = 0;
  // CUDA join: write the pairs in this many batches of left rows, each downloaded while the next
  // is written (1: one pass, then one download). H100, 25M-row self-match (bench_xmatch_table3
  // d25): write + download 62 -> 53 ms into pinned arrays with 4 batches, 219 -> 196 ms
  // (8 batches) into pageable ones, within the run-to-run spread of the whole call; so 1 stays
  // the default. Pairs identical either way (test XMatchCuda.BatchedDownloadSameAsOnePass).
  int cuda_batches = 1;
};

Find parse_find(const std::string& s);      // all | best | greedy | best1 | best2
Join parse_join(const std::string& s);      // 1and2 | 1or2 | all1 | all2 | 1not2 | 2not1
Search parse_search(const std::string& s);  // auto | neighbours | disc
// "2arcsec", "2 arcsec", "1.5arcmin", "0.1deg", "2\"", "1'"; a bare number is arcsec.
double parse_radius_arcsec(const std::string& s);

// The index order the join uses for a radius and search method (Options::order when >= 0).
int index_order(const Options& options);

// Phase 1-3: every pair (i, j) with chord(left[i], right[j]) within the radius, sorted by (i, j).
// Throws on non-finite or out-of-range coordinates (naming the row).
std::vector<Pair> match_pairs(const SkyPoints& left, const SkyPoints& right,
                              const Options& options);

// Self-match: every pair i < j of distinct rows within the radius, once, sorted by (i, j).
std::vector<Pair> self_pairs(const SkyPoints& points, const Options& options);

// Reference: the same pairs as match_pairs (or self_pairs when self) by an O(N*M) loop with the
// same distance test. For tests and benchmarks.
std::vector<Pair> brute_force_pairs(const SkyPoints& left, const SkyPoints& right,
                                    double radius_arcsec, bool self);

// Applies `find` to all pairs (sorted by (i, j)); the result is sorted by (i, j). n_left and
// n_right are the catalogs' row counts (Best starts from the side with more rows). In a
// self-match (`self`), Greedy counts a row's use on either side, Best keeps mutually nearest
// pairs, and Best1/Best2 give for every row r its nearest other row as (r, other); both
// orientations of a pair can then appear.
std::vector<Pair> select_pairs(std::vector<Pair> pairs, Find find, bool self, size_t n_left,
                               size_t n_right);

// Applies `join`: adds (i, -1) / (-1, j) rows for unmatched rows, or keeps only those. Left
// unmatched rows are interleaved in i order; right unmatched rows follow, in j order. In a
// self-match only And, All1 (every row) and Not2 (rows with no partner) are defined.
std::vector<Pair> join_rows(const std::vector<Pair>& pairs, size_t n_left, size_t n_right,
                            Join join, bool self);

// ---- larger than memory ---------------------------------------------------------------------

// A catalog's positions, read block by block (the whole catalog need not be in memory).
class PositionSource {
 public:
  using Visit =
      std::function<void(size_t first_row, const double* ra, const double* dec, size_t count)>;
  virtual ~PositionSource() = default;
  virtual size_t rows() const = 0;
  // Calls visit for consecutive blocks of rows covering the catalog, in row order.
  virtual void scan(const Visit& visit) const = 0;
  // The same for rows [first, first + count) only (an MPI rank's slice). The default scans the
  // whole catalog and clips; sources that can seek override it.
  virtual void scan_rows(size_t first, size_t count, const Visit& visit) const;
  // The same for a region of the sky: blocks covering at least every row whose NESTED pixel at
  // `order` has wanted[pixel] != 0 (other rows may come too), in row order. The default scans the
  // whole catalog; a source partitioned by sky pixel (HATS) skips partitions outside the region.
  virtual void scan_pixels(int order, const std::vector<uint8_t>& wanted, const Visit& visit) const;
};
// Positions already in memory (referenced, not copied).
std::unique_ptr<PositionSource> memory_positions(const SkyPoints& points);
// The RA/Dec columns of a FITS table, read `block_rows` rows at a time through CFITSIO (CFITSIO's
// extended syntax selects the HDU, as in read_catalog; names case-insensitive).
std::unique_ptr<PositionSource> fits_positions(const std::string& path, const std::string& ra,
                                               const std::string& dec, size_t block_rows);

// Bytes of working memory a chunk needs per left row and per right row (positions, index).
inline constexpr size_t chunk_bytes_per_left_row = 64;
inline constexpr size_t chunk_bytes_per_right_row = 128;

struct ChunkStats {
  size_t chunks = 0;     // number of chunks matched
  int coarse_order = 0;  // HEALPix order of the partition
  size_t peak_rows = 0;  // largest chunk: left rows + right rows (own and border)
  double gather_seconds = 0, join_seconds = 0;  // match_chunk_range: scans, match_pairs (summed)
};

// ---- the HEALPix chunk plan (shared by --memory chunks and MPI partitions) ----------------------

// A position in the order of left rows by (coarse pixel, rank of the row among that pixel's left
// rows, in row order): chunks are half-open intervals of it, so a crowded pixel's left rows can be
// split over several chunks (its right rows and its neighbours' then go to each of them).
struct ChunkCut {
  int64_t pix;
  uint64_t rank;
  bool operator<=(const ChunkCut& o) const {
    return pix < o.pix || (pix == o.pix && rank <= o.rank);
  }
};
// One chunk: the left rows in [begin, end), and the right rows of their pixels and those pixels'
// 8 neighbours (right_rows of them: the chunk's margin of one radius included).
struct ChunkRange {
  ChunkCut begin, end;
  uint64_t left_rows = 0, right_rows = 0;
};
struct ChunkPlan {
  int order = 0;      // coarse HEALPix order (NESTED), pixels at least one radius wide
  bool self = false;  // a self-match: the right side is the left one
  std::vector<uint64_t> left_counts, right_counts;  // rows per coarse pixel
  std::vector<ChunkRange> chunks;  // in (pixel, rank) order, covering every left row
};
// NESTED pixel p and its neighbours (7 or 8) at `order`, without repeats: the pixels whose rows
// a row of p can match when pixels are at least one radius wide. Returns how many were written.
int pixel_and_neighbours(int order, int64_t p, int64_t out[9]);
// The coarse order for the radius: pixels at least one radius wide, at most order 7.
int chunk_order(const Options& options);
// Rows per coarse pixel of a source, every position validated on the way (errors name `side`).
std::vector<uint64_t> pixel_counts(const PositionSource& src, int order, const std::string& side);
// Greedy chunks in (pixel, rank) order whose left rows plus right rows (chunk_bytes_per_*_row)
// cost at most `memory_bytes`. Throws when the right rows around one pixel alone exceed it.
ChunkPlan plan_chunks(int order, std::vector<uint64_t> left_counts,
                      std::vector<uint64_t> right_counts, bool self, size_t memory_bytes);
// The smallest bound plan_chunks accepts for these counts.
size_t min_chunk_bytes(int order, const std::vector<uint64_t>& left_counts,
                       const std::vector<uint64_t>& right_counts);
// The chunks cut into `parts` contiguous runs of nearly equal cost (left and right rows, as the
// plan counts them): part k holds chunks [bounds[k], bounds[k + 1]). A part may be empty when
// there are fewer chunks than parts.
std::vector<size_t> split_chunks(const ChunkPlan& plan, int parts);
// The pairs (sorted by (i, j), global rows) whose left row lies in chunks [first, last) of the
// plan: one scan of each source gathers those left rows and the right rows of their margin, then
// match_pairs (options.backend) joins them. In a self-match only pairs i < j are kept (`right` is
// ignored), so every pair is found in exactly one chunk.
std::vector<Pair> match_chunk_range(const PositionSource& left, const PositionSource& right,
                                    const Options& options, const ChunkPlan& plan, size_t first,
                                    size_t last, ChunkStats* stats = nullptr);

// A partition's rows in memory (an MPI rank's after the row exchange): the left rows of chunks
// [first, last) of a plan, and the right rows of those chunks' pixels and the pixels' neighbours
// (the margin of one radius), each side in global row order, with its global row numbers.
struct PartitionRows {
  SkyPoints left, right;
  std::vector<int64_t> left_rows, right_rows;
  // A self-match's left rows are among its right rows (a partition receives every row of its
  // pixels): given here as their positions in `right` (ascending), with `left` and `left_rows`
  // empty, they are not held twice (4 B a row instead of 24).
  std::vector<uint32_t> left_in_right;
  size_t left_count() const { return left_in_right.empty() ? left.size() : left_in_right.size(); }
};
struct PairCount;
// A partition's chunks [first, last) of a plan, matched one at a time from its rows in memory:
// the rows are bucketed by coarse pixel once (4 B per row), and each chunk takes its left rows
// and its margin's right rows from the buckets, so only one chunk's rows and pairs are held
// beside `rows` (which must outlive this object).
class PartitionChunks {
 public:
  // Throws when the left rows are not exactly those of the chunks.
  PartitionChunks(const PartitionRows& rows, const ChunkPlan& plan, size_t first, size_t last,
                  const Options& options);
  ~PartitionChunks();
  PartitionChunks(const PartitionChunks&) = delete;
  PartitionChunks& operator=(const PartitionChunks&) = delete;
  size_t size() const;  // last - first
  // The pairs of chunk first + k (global rows, sorted by (i, j); in a self-match only i < j):
  // those of match_chunk_range(first + k, first + k + 1) on the whole catalogs. Throws when a
  // margin pixel's right rows are not all present.
  std::vector<Pair> match(size_t k, ChunkStats* stats = nullptr);
  // Adds the pairs of every chunk to `count` without keeping them: the same counts as
  // count.add(match(k)) for each k. On the CPU chunk by chunk; on the GPU (options.backend) runs
  // of consecutive chunks whose rows fit the device memory (Options::device_memory) uploaded once
  // each, their pairs counted and binned there (src/xmatch/count_bins.hpp).
  void count(PairCount& count, ChunkStats* stats = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The pairs of match_pairs (or self_pairs when `self`; `right` is then ignored), computed in
// HEALPix chunks: both sides are binned by a coarse NESTED pixel (pixels at least one radius
// wide), the left rows ordered by (pixel, row); a chunk is a run of them (a crowded pixel's left
// rows may be split over several chunks) whose left rows, plus the right rows of their pixels and
// those pixels' 8 neighbours (every right row within the radius), cost at most `memory_bytes`
// (chunk_bytes_per_*_row); each chunk is matched with options.backend (CPU or GPU). The sources
// are scanned once to count rows per pixel and once per chunk. Pairs sorted by (i, j);
// `progress(done, total)` after each chunk (left rows done). Throws when the right rows around one
// coarse pixel alone exceed the bound (naming the bytes needed) or the radius exceeds 0.6 rad.
std::vector<Pair> chunked_pairs(const PositionSource& left, const PositionSource& right, bool self,
                                const Options& options, size_t memory_bytes,
                                const std::function<void(size_t, size_t)>& progress = {},
                                ChunkStats* stats = nullptr);

// The same pairs, chunk by chunk: each_chunk receives every chunk's pairs, sorted by (i, j) (the
// chunks themselves are in HEALPix order, so their concatenation is not sorted).
void chunked_pairs_each(const PositionSource& left, const PositionSource& right, bool self,
                        const Options& options, size_t memory_bytes,
                        const std::function<void(std::vector<Pair>&)>& each_chunk,
                        const std::function<void(size_t, size_t)>& progress = {},
                        ChunkStats* stats = nullptr);

// Larger than memory, end to end (what `celeris xmatch --memory` runs on FITS inputs): positions
// read through fits_positions, pairs matched by chunked_pairs_each and spilled to a temporary
// file next to `output` as sorted runs, merged back in (i, j) order; find and join applied on the
// merged stream (find best, best2 and a self-match's best1 collect the pairs in memory, 24 B
// each, as they need a global view); the output table (write_catalog's format) written in blocks,
// reading only the input rows each block needs. Peak memory is about `memory_bytes`, of which 2 B
// per input row go to matched-row flags. Returns the row counts. `right_path` is ignored when
// `self`.
// The frame of a catalog's position columns. Galactic (l, b) positions are rotated to ICRS
// (the Hipparcos A_G matrix) before matching; the output keeps the input columns.
enum class Frame { Icrs, Galactic };
struct StreamedMatch {
  std::string left_path, right_path, output;
  std::string ra1, dec1, ra2, dec2;  // empty: found as find_radec_columns does
  bool self = false;
  std::optional<Frame> frame1, frame2;  // empty: by column name (galactic_by_name)
};
struct StreamedCounts {
  size_t left_rows = 0, right_rows = 0, output_rows = 0;
};
StreamedCounts streamed_crossmatch(const StreamedMatch& files, const Options& options,
                                   size_t memory_bytes,
                                   const std::function<void(size_t, size_t)>& progress = {});

// Rows of an input table fetched by row number, for an output written in blocks.
class RowFetcher {
 public:
  virtual ~RowFetcher() = default;
  // The columns without values, with the types of the whole table as read_catalog reads it.
  virtual const Table& schema() const = 0;
  // Rows `wanted` (sorted, distinct) of every schema column, with the schema's types.
  virtual Table fetch(const std::vector<int64_t>& wanted) const = 0;
};
// A FITS table's rows, read in runs of nearby rows (FitsTableReader).
std::unique_ptr<RowFetcher> fits_rows(const std::string& path);

// The output table of `rows` (join_rows' result: global rows, -1 for a blank side) written to
// `output` in blocks of `block_rows` rows, each block's input rows fetched (`right` is `left`
// again in a self-match): the file write_catalog(joined_table(...)) writes from the whole
// tables, byte for byte, without holding them (MPI rank 0's table output). Returns the rows
// written.
size_t write_joined_rows(const RowFetcher& left, const RowFetcher& right,
                         const std::vector<Pair>& rows, Join join, const std::string& output,
                         size_t block_rows);

// `--count`: the number of pairs and a histogram of their separations, for matches whose pairs
// would not fit on disk. bins equal-width bins over [0, radius]; a pair at exactly the radius
// goes to the last bin. Counts are integers, so partial counts (chunks, MPI ranks) add up exactly.
struct PairCount {
  double radius_arcsec = 0;
  uint64_t pairs = 0;
  std::vector<uint64_t> histogram;
  PairCount() = default;
  PairCount(double radius, int bins);
  void add(const Pair& p);
  void add(const std::vector<Pair>& pairs);
  void merge(const PairCount& other);  // same radius and bins
};
// Adds to `count` the pairs of match_pairs(left, right) (self_pairs(left) when `self`; `right` is
// then ignored), options.find must be All. On the GPU (options.backend) the pairs are counted and
// binned on the device and never written: the catalogs uploaded once when they fit the device
// memory (Options::device_memory), else in runs of HEALPix chunks. The same counts as
// count.add(match_pairs(...)) on the CPU, bin for bin.
void count_pairs(const SkyPoints& left, const SkyPoints& right, bool self, const Options& options,
                 PairCount& count);
// The count as text: "pairs N", then one line per bin: lower and upper edge (arcsec), pairs.
std::string format_count(const PairCount& count);

// "2G", "500M", "64k", "1000000" (bytes; k/M/G/T are powers of 1024, case-insensitive).
size_t parse_memory_size(const std::string& s);

// The whole match: match_pairs or self_pairs, then select_pairs and join_rows.
std::vector<Pair> crossmatch(const SkyPoints& left, const SkyPoints& right, const Options& options);
std::vector<Pair> self_crossmatch(const SkyPoints& points, const Options& options);

// ---- tables ---------------------------------------------------------------------------------

// Reads a catalog: a HATS catalog directory (celeris/xmatch_hats.hpp, read_hats_table); CSV when
// the name ends in .csv (header line of names; numeric columns kept, text columns skipped; '#'
// lines ignored), else a FITS table (read_fits_table).
Table read_catalog(const std::string& path);
// Writes a catalog atomically: CSV when the name ends in .csv, else a FITS binary table.
void write_catalog(const std::string& path, const Table& table);
void write_csv(const std::string& path, const Table& table);
Table read_csv(const std::string& path);

// RA/Dec column names: the given ones, or the first pair present among RA/DEC,
// ALPHA_J2000/DELTA_J2000, ALPHAWIN_J2000/DELTAWIN_J2000, RAJ2000/DEJ2000, RA_ICRS/DE_ICRS,
// X_WORLD/Y_WORLD, then the Galactic GLON/GLAT, L/B, LII/BII (case-insensitive; see
// galactic_by_name). Throws naming `what` (e.g. the file) when absent.
std::pair<std::string, std::string> find_radec_columns(const Table& table, const std::string& ra,
                                                       const std::string& dec,
                                                       const std::string& what);
// The positions of a table, validated: throws naming `what`, the column and the 1-based row for
// NaN, infinite or out-of-range values.
SkyPoints table_positions(const Table& table, const std::string& ra, const std::string& dec,
                          const std::string& what);
// The same check for one position (row 0-based; the message names it 1-based).
void check_sky_position(double ra, double dec, size_t row, const std::string& what,
                        const std::string& ra_name, const std::string& dec_name);

// ---- coordinate frames ----------------------------------------------------------------------

// Frames: see Frame (above).
Frame parse_frame(const std::string& s);  // icrs | galactic
// Whether column names say Galactic: GLON/GLAT, L/B or LII/BII (any case).
bool galactic_by_name(const std::string& lon, const std::string& lat);
// A side's positions are Galactic: its frame when given, else by its column names.
bool is_galactic(const std::optional<Frame>& frame, const std::string& lon, const std::string& lat);
// Galactic (l, b) in degrees to ICRS (RA, Dec) in degrees, RA in [0, 360).
void galactic_to_icrs(double l, double b, double& ra, double& dec);
void galactic_to_icrs(SkyPoints& points);
std::unique_ptr<PositionSource> galactic_to_icrs(std::unique_ptr<PositionSource> src);

// The output table: for every row of `rows`, the columns of the left row then those of the right
// row (names clashing between the sides get _1 / _2), then Separation (arcsec). Blank sides are
// NaN (integer columns of a side that has blanks become Float64). Join::Not2 gives left columns
// only, Join::Not1 right columns only.
Table joined_table(const Table& left, const Table& right, const std::vector<Pair>& rows, Join join);
// The same with the blank sides given (blank1: some row has i < 0, blank2: some row has j < 0),
// for a table written in blocks that must all have the same column types.
Table joined_table(const Table& left, const Table& right, const std::vector<Pair>& rows, Join join,
                   bool blank1, bool blank2);

// write_catalog's output, written in blocks: CSV when the name ends in .csv, else a FITS binary
// table (XMATCH); to a temporary name renamed by finish() (the destructor discards it otherwise).
class CatalogWriter {
 public:
  CatalogWriter(const std::string& path, const Table& schema);
  ~CatalogWriter();
  CatalogWriter(const CatalogWriter&) = delete;
  CatalogWriter& operator=(const CatalogWriter&) = delete;
  void append(const Table& block);  // same columns as the schema
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- simulation -----------------------------------------------------------------------------
// The catalog simulator lives in celeris/simulate.hpp (celeris::sim); its former names here:
using sim::CatalogParams;
using sim::expected_matches;
using sim::repeats_for_matches;
using sim::simulate_catalog;
using sim::table3_params;
using sim::table3_radius_arcsec;

}  // namespace celeris::xmatch
