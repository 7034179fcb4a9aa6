// CSV catalogs read line by line: read_csv (whole table) and csv::to_fits (in blocks).
#include "csv.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "celeris/xmatch.hpp"

namespace celeris::xmatch {

namespace csv {

bool is_csv_path(const std::string& path) {
  std::string p = path.substr(0, path.find('['));
  for (auto& c : p) c = char(std::tolower(static_cast<unsigned char>(c)));
  return p.size() >= 4 && p.compare(p.size() - 4, 4, ".csv") == 0;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  bool quoted = false;
  for (size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (quoted) {
      if (c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
        cur += '"';
        ++k;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      f.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  f.push_back(trim(cur));
  return f;
}

bool parse_number(const std::string& s, double& v, bool& integral) {
  if (s.empty()) {  // blank: NaN, which only a floating-point column can hold
    v = std::numeric_limits<double>::quiet_NaN();
    integral = false;
    return true;
  }
  std::string t = s;
  for (auto& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (t == "nan" || t == "null" || t == "na") {
    v = std::numeric_limits<double>::quiet_NaN();
    integral = false;
    return true;
  }
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  if (s.find_first_of(".eEiInN") != std::string::npos) integral = false;
  return true;
}

Reader::Reader(const std::string& path) : path_(path), in_(path) {
  if (!in_) throw Error(path + ": cannot open");
  if (!next_record(names_)) throw Error(path + ": empty CSV file (no header line)");
}

bool Reader::next_record(std::vector<std::string>& fields) {
  std::string line;
  while (std::getline(in_, line)) {
    ++lineno_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    fields = split(line);
    return true;
  }
  return false;
}

bool Reader::next(std::vector<std::string>& fields) {
  if (!next_record(fields)) return false;
  if (fields.size() != names_.size())
    throw Error(path_ + ": line " + std::to_string(lineno_) + ": " + std::to_string(fields.size()) +
                " fields, the header has " + std::to_string(names_.size()));
  return true;
}

size_t to_fits(const std::string& csv_path, const std::string& fits_path, const std::string& ra,
               const std::string& dec, size_t block_bytes) {
  // Pass 1: which columns are numeric, and integral.
  size_t rows = 0;
  std::vector<char> numeric, integral;
  {
    Reader r(csv_path);
    numeric.assign(r.names().size(), 1);
    integral.assign(r.names().size(), 1);
    std::vector<std::string> f;
    double v;
    while (r.next(f)) {
      ++rows;
      for (size_t c = 0; c < f.size(); ++c) {
        if (!numeric[c]) continue;
        bool in = integral[c] != 0;
        numeric[c] = parse_number(f[c], v, in);
        integral[c] = in;
      }
    }
  }
  if (rows == 0) throw Error(csv_path + ": empty table (no rows)");
  Reader r(csv_path);
  Table block;
  std::vector<size_t> source;  // CSV field of each kept column
  for (size_t c = 0; c < r.names().size(); ++c) {
    if (!numeric[c]) continue;  // text column: skipped, as read_csv does
    Column col;
    col.name = r.names()[c];
    col.type = integral[c] ? ColumnType::Int64 : ColumnType::Float64;
    block.columns.push_back(std::move(col));
    source.push_back(c);
  }
  const auto [ra_name, dec_name] = find_radec_columns(block, ra, dec, csv_path);
  const Column* cra = block.find(ra_name);
  const Column* cdec = block.find(dec_name);
  const size_t kra = size_t(cra - block.columns.data()), kdec = size_t(cdec - block.columns.data());

  const size_t block_rows =
      std::max<size_t>(256, block_bytes / (sizeof(double) * std::max<size_t>(1, source.size())));
  FitsTableWriter out(fits_path, block);
  std::vector<std::string> f;
  size_t row = 0;
  auto flush = [&]() {
    if (block.rows == 0) return;
    out.append(block);
    for (Column& c : block.columns) c.values.clear();
    block.rows = 0;
  };
  while (r.next(f)) {
    for (size_t k = 0; k < source.size(); ++k) {
      double v;
      bool in = true;
      parse_number(f[source[k]], v, in);
      block.columns[k].values.push_back(v);
    }
    check_sky_position(block.columns[kra].values.back(), block.columns[kdec].values.back(), row,
                       csv_path, block.columns[kra].name, block.columns[kdec].name);
    ++row;
    if (++block.rows == block_rows) flush();
  }
  flush();
  out.finish();
  return rows;
}

}  // namespace csv

Table read_csv(const std::string& path) {
  csv::Reader r(path);
  std::vector<std::vector<std::string>> cells(r.names().size());
  for (std::vector<std::string> f; r.next(f);)
    for (size_t c = 0; c < f.size(); ++c) cells[c].push_back(std::move(f[c]));
  Table t;
  t.rows = cells.empty() ? 0 : cells[0].size();
  for (size_t c = 0; c < r.names().size(); ++c) {
    Column col;
    col.name = r.names()[c];
    col.values.resize(t.rows);
    bool numeric = true, integral = true;
    for (size_t k = 0; k < t.rows && numeric; ++k)
      numeric = csv::parse_number(cells[c][k], col.values[k], integral);
    if (!numeric) continue;  // text column: skipped, as read_fits_table skips strings
    col.type = integral ? ColumnType::Int64 : ColumnType::Float64;
    t.columns.push_back(std::move(col));
  }
  return t;
}

}  // namespace celeris::xmatch
