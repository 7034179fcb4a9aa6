// A column-oriented table (structure of arrays): the form of every catalog celeris reads or
// writes. Numeric cells are held as double (integers exactly up to 2^53); a column may be a
// fixed-length vector per row (e.g. FLUX_APER with several apertures).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/fits.hpp"

namespace celeris {

enum class ColumnType { Int16, Int32, Int64, Float32, Float64 };

struct Column {
  std::string name;
  std::string unit;         // e.g. "pixel", "deg", "count"; empty when dimensionless
  std::string description;  // one line, shown in ASCII headers
  ColumnType type = ColumnType::Float64;
  int repeat = 1;              // elements per row
  std::string print_format;    // printf format of one element for ASCII output, e.g. "%10.4f"
  std::vector<double> values;  // rows * repeat, row-major
  // FITS TDIM of a multi-dimensional cell (VIGNET(w,h): {w, h}); empty: none. Last, and with
  // an initializer, so that brace-initialised columns need not name it.
  std::vector<long> dims = {};

  double at(size_t row, int elem = 0) const { return values[row * repeat + elem]; }
};

struct Table {
  std::vector<Column> columns;
  size_t rows = 0;

  const Column* find(const std::string& name) const;  // case-insensitive; nullptr if absent
};

// A table's rows as a FITS binary table's data: the bytes write_fits_table writes (big-endian,
// row after row, converted as CFITSIO's fits_write_col of doubles converts them), made ahead of
// the writing (a stream's back workers); `overflow`: a value beyond its integer column's range,
// which fails the write as it fails write_fits_table.
struct FitsRows {
  std::vector<unsigned char> bytes;
  bool overflow = false;
};
FitsRows encode_fits_rows(const Table& table);
// The bytes of one of the table's rows in a FITS binary table.
size_t fits_row_bytes(const Table& table);

// Binary-table output. Written to a temporary name and renamed when complete.
struct FitsTableOptions {
  std::string extname = "OBJECTS";
  bool ldac = false;                     // SExtractor FITS_LDAC: LDAC_IMHEAD + LDAC_OBJECTS
  FitsHeader image_header;               // copied into LDAC_IMHEAD (ldac) or ignored
  std::vector<std::string> extra_cards;  // added to the table HDU's header
  const FitsRows* rows = nullptr;        // the table's rows encoded ahead, else encoded here
};
void write_fits_table(const std::string& path, const Table& table,
                      const FitsTableOptions& options = {});
// Several tables in one file (the catalog of a multi-extension image, one table per extension),
// each with its own options (ldac: its LDAC_IMHEAD first); written to a temporary name and
// renamed when complete.
void write_fits_tables(const std::string& path,
                       const std::vector<std::pair<const Table*, FitsTableOptions>>& tables);

// ASCII output: SExtractor's ASCII_HEAD layout ("#   1 NAME  description  [unit]" per
// column, numbered by element) when `header`, then one row per line, values in each column's
// print_format separated by one blank.
void write_ascii_table(const std::string& path, const Table& table, bool header);
// The file write_ascii_table writes, whole, as text: a stream of frames makes it on the thread
// that measured the frame and writes it (write_text_file) on the one writing outputs in order.
// ascii_table_chars: about its length, for a caller deciding whether to hold it in memory.
std::string ascii_table_text(const Table& table, bool header);
size_t ascii_table_chars(const Table& table, bool header);
// `text` as the file `path`, atomically (write_atomically: STDOUT and special files included).
void write_text_file(const std::string& path, const std::string& text);

// Reads a FITS binary or ASCII table (CFITSIO extended syntax selects the HDU; with none, the
// first table HDU). Numeric columns only; other columns are skipped.
Table read_fits_table(const std::string& path);

// A FITS table read in row ranges, for catalogs too large to load whole (read_fits_table reads
// everything). The HDU and the columns are those read_fits_table would give.
class FitsTableReader {
 public:
  explicit FitsTableReader(const std::string& path);
  ~FitsTableReader();
  FitsTableReader(FitsTableReader&&) noexcept;
  FitsTableReader& operator=(FitsTableReader&&) noexcept;
  // The numeric columns without values; rows is the table's row count.
  const Table& schema() const;
  // Rows [first, first + count) of every schema column into `out` (its columns replaced).
  void read(size_t first, size_t count, Table& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A FITS binary table written in blocks of rows, for output too large to hold whole: the table
// HDU is created empty (NAXIS2 = 0) and grows with every append; the file is written to a
// temporary name and renamed by finish() (the destructor discards an unfinished file). The
// result is byte-identical to write_fits_table of the concatenated blocks (options.ldac is not
// supported).
class FitsTableWriter {
 public:
  // `schema`: the columns (names, units, types, repeats; values ignored).
  FitsTableWriter(const std::string& path, const Table& schema,
                  const FitsTableOptions& options = {});
  ~FitsTableWriter();
  FitsTableWriter(const FitsTableWriter&) = delete;
  FitsTableWriter& operator=(const FitsTableWriter&) = delete;
  // Appends the rows of `block`, whose columns match the schema.
  void append(const Table& block);
  void finish();
  size_t rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Writes `path` atomically: `write` receives a temporary path in the same directory; on success
// it is renamed over `path`, on exception it is removed and the exception rethrown.
//  - Temporaries are removed if the process gets SIGINT, SIGTERM or SIGHUP (a handler is
//    installed on first use where the program left the default), with the spill files the
//    cross-match derives from their names.
//  - An existing output that is not a regular file (/dev/null, a FIFO) is written in place
//    (the temporary, in the system's temporary directory, copied into it), never replaced.
//  - The output name STDOUT (SExtractor's CATALOG_NAME STDOUT) writes to standard output.
template <class F>
void write_atomically(const std::string& path, F&& write);
std::string temporary_sibling(const std::string& path);
void commit_temporary(const std::string& tmp, const std::string& path);
void discard_temporary(const std::string& tmp);
bool is_stdout_name(const std::string& path);
// `message` with every occurrence of the temporary's name replaced by the output's.
std::string with_output_name(std::string message, const std::string& tmp, const std::string& path);

// Throws celeris::Error when `output` is the same file as `input` (CFITSIO's [..] suffix
// allowed), naming `what` ("catalog", "check image", ...): writing it would destroy the input.
void refuse_output_over_input(const std::string& output, const std::string& input,
                              const std::string& what);

// The outputs of one run: files committed (commit_temporary) while an OutputRun lives are
// removed when it is destroyed without keep(), so that a run failing at its third output leaves
// neither the first nor the second behind.
class OutputRun {
 public:
  OutputRun();
  ~OutputRun();
  OutputRun(const OutputRun&) = delete;
  OutputRun& operator=(const OutputRun&) = delete;
  void keep();  // the run succeeded

 private:
  std::vector<std::string> committed_;
  bool kept_ = false;
};

template <class F>
void write_atomically(const std::string& path, F&& write) {
  const std::string tmp = temporary_sibling(path);
  try {
    write(tmp);
  } catch (const Error& e) {
    discard_temporary(tmp);
    throw Error(with_output_name(e.what(), tmp, path));  // the user named `path`, not `tmp`
  } catch (...) {
    discard_temporary(tmp);
    throw;
  }
  commit_temporary(tmp, path);
}

}  // namespace celeris
