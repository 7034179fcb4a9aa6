// HATS catalogs as cross-match inputs: a directory as LSDB / hats-import write it
// (https://www.ivoa.net/documents/Notes/HATS/):
//   hats.properties (or properties; hipscat's catalog_info.json)  hats_col_ra, hats_col_dec, ...
//   partition_info.csv                                              Norder,Npix (one line each)
//   dataset/Norder=K/Dir=D/Npix=N.parquet                           D = N / 10000 * 10000
// (Npix=N may be a directory of Parquet files read together; hipscat put Norder=K/ at the top.)
// A collection (collection.properties) stands for its primary catalog (hats_primary_table_url).
// Margin caches (find_hats_margin) are read by MPI ranks only: each rank reads its own partitions
// and the margin files of the right catalog's partitions it matches (src/xmatch/mpi); one process
// holds every partition and needs none.
//
// Rows of a HATS catalog are numbered in sky order: partitions by their NESTED pixel range
// (Npix << 2 (29 - Norder)), each partition's files in name order, rows in file order. Output
// row numbers and the pairs of `celeris xmatch` follow that order, so a FITS or CSV table of the
// rows in that order gives the same output.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch {

struct HatsPartition {
  int order = 0;                   // Norder
  int64_t pix = 0;                 // Npix, NESTED at `order`
  std::vector<std::string> files;  // its Parquet files, in name order
};

struct HatsCatalog {
  std::string path;  // the catalog directory (a collection's primary catalog)
  std::string ra,
      dec;  // hats_col_ra / hats_col_dec (hipscat: ra_column / dec_column); may be empty
  std::vector<HatsPartition> partitions;  // in sky order (see above), no two overlapping
};

// Whether `path` is a directory holding a HATS catalog or collection (a properties file, or
// partition_info.csv).
bool is_hats_catalog(const std::string& path);

// The layout of a HATS catalog: properties, partition_info.csv, every partition's files. Reads no
// Parquet. Throws one line naming the catalog for a missing partition_info.csv, a bad line in
// it, overlapping or repeated partitions, a missing partition file, or a catalog that is not a
// table of objects or sources (a margin cache, an index, a map).
HatsCatalog open_hats(const std::string& path);

// A margin cache: for each listed partition of its catalog, the rows of the other partitions that
// lie within threshold_arcsec of that partition's pixel (dataproduct_type=margin,
// hats_margin_threshold). `missing[k]` is empty when partition k's files exist, else the error
// naming the absent file (reported by whoever needs that partition, not at open).
struct HatsMargin {
  std::string path;
  double threshold_arcsec = 0;
  std::vector<HatsPartition> partitions;  // in sky order
  std::vector<std::string> missing;
};

// The margin cache LSDB / hats-import write beside a catalog: a collection's default_margin (else
// the first of all_margins), or a directory `<catalog>_margin` next to a catalog directory.
// std::nullopt when there is none. Throws when the directory found is not a margin cache, its
// threshold is absent or not a number, or its partition_info.csv is bad.
std::optional<HatsMargin> find_hats_margin(const std::string& path);

// Whether this build reads Parquet (CELERIS_PARQUET).
bool parquet_available();

// The catalog's RA/Dec column names from its properties, when both are given there.
std::pair<std::string, std::string> hats_radec_columns(const std::string& path);

// The numeric columns of every partition (read_fits_table's rule: other columns are skipped),
// rows in the catalog's row order; `columns` (names case-insensitive) reads only those, e.g.
// RA/Dec for a count (Parquet is columnar: the other columns are not read at all). Partitions
// must have the same numeric columns.
Table read_hats_table(const std::string& path, const std::vector<std::string>& columns = {});

// The rows of a HATS catalog by number (RowFetcher, celeris/xmatch.hpp), for an output written
// in blocks without holding the catalog (MPI rank 0): a first pass reads every file once for the
// column types read_hats_table gives (a partition holding a null makes its column Float64) and
// the row counts; a fetch then reads the files holding the wanted rows, keeping the last one, so
// one file's rows are held at a time. Rows in a block's order of sky (as HATS rows are numbered)
// read each file about once.
std::unique_ptr<RowFetcher> hats_rows(const std::string& path);

// The numeric columns of the catalog without values, from its first file (rows: 0, not counted;
// hats_positions(...)->rows() counts them from every file's footer).
Table hats_schema(const std::string& path);

// The RA/Dec columns (names case-insensitive, as for FITS), one partition at a time. Each
// partition's row count comes from its Parquet footer; scan_rows opens only the partitions
// holding the rows asked for, so an MPI rank reading its share of the rows reads only a
// contiguous run of partitions (a region of the sky); scan_pixels (the chunks of --memory) skips
// the partitions outside the region once a full scan found all their rows inside their pixel.
// Positions validated as fits_positions does.
std::unique_ptr<PositionSource> hats_positions(const std::string& path, const std::string& ra,
                                               const std::string& dec);

}  // namespace celeris::xmatch
