// Internal to src/xmatch/mpi: the MPI match of HATS catalogs by their own partitions. Each rank
// takes a contiguous run of the left catalog's partitions (sky order, balanced by rows), reads
// their Parquet files, the right partitions that meet them, and the margin cache files of those
// right partitions (the right rows within the margin threshold outside each partition), so no
// row travels between ranks. A margin row is a copy of a row of another partition: its catalog
// row number (needed for the single-process pair order) is looked up by exact position in that
// partition, by the rank that owns it, in one small exchange. When the catalogs do not allow it
// (no margin cache, a threshold below the radius, rows outside their partition's pixel, a
// margin row not found in its partition), the driver falls back to the row exchange.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "celeris/xmatch.hpp"
#include "celeris/xmatch_hats.hpp"
#include "celeris/xmatch_mpi.hpp"

namespace celeris::xmatch::mpi {

struct HatsInputs {
  HatsCatalog left, right;           // right: the left catalog again in a self-match
  HatsMargin margin;                 // the right catalog's margin cache
  std::string ra1, dec1, ra2, dec2;  // position columns as the catalogs' first files spell them
  bool self = false;
};

// The inputs of a match by partitions: both sides HATS catalogs (one in a self-match) and the
// right one with a margin cache of at least the radius. Otherwise std::nullopt and `why_not`
// says why (empty when no input is a HATS catalog). Reads layouts, properties and one schema: the
// same answer on every rank.
std::optional<HatsInputs> hats_partition_inputs(const Match& match, const Options& options,
                                                std::string& why_not);

// One rank's share of the partitions. Phases (the driver closes each throwing one with an
// agreement; the exchanges call MPI only):
//   read()  ->  exchange_lookups()  ->  answer()  ->  exchange_answers()  ->  resolve()
// then match(k) for each of the rank's left partitions.
class HatsPartitions {
 public:
  // Every Parquet footer (row counts) and this rank's run of left partitions; no data read.
  HatsPartitions(const HatsInputs& inputs, const Options& options, int rank, int size);
  ~HatsPartitions();
  HatsPartitions(const HatsPartitions&) = delete;
  HatsPartitions& operator=(const HatsPartitions&) = delete;

  size_t left_rows() const;  // the whole catalogs' rows
  size_t right_rows() const;
  std::string describe() const;  // "partition 2/4: HATS partitions ..." for error messages

  // This rank's left partitions, the right partitions meeting them, their margin files. Throws
  // for unreadable files and absent margin files.
  void read();
  // Margin rows whose partition another rank owns, sent there; their catalog rows sent back.
  void exchange_lookups();
  void answer();
  void exchange_answers();
  // Margin rows get their catalog rows (duplicates of rows held dropped). False when the
  // catalogs do not allow the match by partitions (why_not() says why): the job falls back.
  bool resolve();
  const std::string& why_not() const;

  size_t size() const;  // this rank's left partitions
  // The pairs (global rows, sorted by (i, j); a self-match keeps i < j) of left partition k.
  std::vector<Pair> match(size_t k);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace celeris::xmatch::mpi
