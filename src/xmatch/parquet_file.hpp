// Internal to src/xmatch: the numeric columns of one Parquet file, read through the Arrow C++
// Parquet reader (parquet_file.cpp, built with CELERIS_PARQUET) or refused with one line saying
// how to enable it (parquet_missing.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "celeris/table.hpp"

namespace celeris::xmatch::parquet_file {

// Whether this build reads Parquet.
bool available();

// One Parquet file, opened once (its footer read) for any number of calls. Throws naming the file
// when it cannot be opened or is not a Parquet file (or, without CELERIS_PARQUET, saying how to
// enable it).
class File {
 public:
  explicit File(const std::string& path);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  // Row count from the footer alone (no column is read).
  uint64_t rows() const;

  // The numeric top-level columns without values (rows: rows()): int8-64 and uint8-32 as
  // Int16/Int32/Int64, uint64 as Int64 (exact up to 2^53, as every Table cell), float16/32 as
  // Float32, double as Float64, bool as Int16. Other columns (strings, lists, structs,
  // timestamps) are not in the schema, as read_fits_table skips non-numeric FITS columns.
  Table schema() const;

  // Every row of the named columns (names as schema() gives them, exact case) into `out` (its
  // columns replaced, in the order of `names`): values as double, nulls as NaN (a column holding
  // a null is Float64 in `out`). Only those column chunks are read. A HATS partition is one such
  // read (partitions hold about a million rows by design).
  void read(const std::vector<std::string>& names, Table& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace celeris::xmatch::parquet_file
