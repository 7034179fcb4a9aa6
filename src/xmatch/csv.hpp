// CSV catalogs, read line by line (internal to src/xmatch): the whole-table reader read_csv and
// the block-by-block conversion to a FITS table that lets --memory stream CSV inputs.
#pragma once

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

namespace celeris::xmatch::csv {

// Whether a catalog path names a CSV file (ends in .csv, case-insensitive, before any [...]).
bool is_csv_path(const std::string& path);
std::string trim(const std::string& s);
// One CSV record: comma-separated, fields optionally in double quotes ("" inside is a quote).
std::vector<std::string> split(const std::string& line);
// A cell as a number: empty, nan, null and na are NaN; `integral` is cleared by a fraction, an
// exponent or a NaN (blank or spelled out: an integer column cannot hold it, so a column with
// blanks is Float64). False when the cell is text.
bool parse_number(const std::string& s, double& v, bool& integral);

// The records of a CSV file: the first non-blank, non-'#' line is the header of column names.
class Reader {
 public:
  explicit Reader(const std::string& path);  // throws when unreadable or without a header line
  const std::vector<std::string>& names() const { return names_; }
  // The next data record (fields as many as the names, else an error naming the line).
  bool next(std::vector<std::string>& fields);

 private:
  bool next_record(std::vector<std::string>& fields);  // skips blank and '#' lines

  std::string path_;
  std::ifstream in_;
  std::vector<std::string> names_;
  size_t lineno_ = 0;
};

// Converts a CSV catalog to a FITS table at `fits_path` holding about `block_bytes` of values in
// memory (at least 256 rows), with the columns and types read_csv gives (numeric columns only:
// Int64 when every cell is an integer, else Float64). Two passes over the file: types, then values.
// The RA/Dec columns (find_radec_columns with the hints `ra`, `dec`) are validated on the way,
// errors naming the CSV file. Returns the number of rows.
size_t to_fits(const std::string& csv_path, const std::string& fits_path, const std::string& ra,
               const std::string& dec, size_t block_bytes);

}  // namespace celeris::xmatch::csv
