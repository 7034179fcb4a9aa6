// Catalog tables for the cross-match: CSV and FITS input/output, RA/Dec column detection and
// validation, and the joined output table.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/xmatch.hpp"
#include "celeris/xmatch_hats.hpp"
#include "csv.hpp"
#include "sexagesimal.hpp"
#include "text_catalogs.hpp"

namespace celeris::xmatch {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void format_value(std::string& out, double v, bool integer, bool single) {
  if (std::isnan(v)) return;  // blank cell
  char buf[64];
  if (integer && std::fabs(v) < 9.007199254740992e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    out += buf;
    return;
  }
  // Shortest text that reads back to the same value (at float precision for Float32 columns).
  const auto r = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                        : std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

bool is_integer(ColumnType t) {
  return t == ColumnType::Int16 || t == ColumnType::Int32 || t == ColumnType::Int64;
}

// The CSV header line: column names, vector columns as NAME_1, NAME_2, ...
std::string csv_header(const Table& table) {
  std::string line;
  for (const Column& col : table.columns)
    for (int e = 0; e < col.repeat; ++e) {
      if (!line.empty()) line += ',';
      line += col.repeat == 1 ? col.name : col.name + "_" + std::to_string(e + 1);
    }
  return line + '\n';
}

// Appends the CSV lines of rows [begin, end) to `text`.
void append_csv_rows(std::string& text, const Table& table, size_t begin, size_t end) {
  for (size_t r = begin; r < end; ++r) {
    bool first = true;
    for (const Column& col : table.columns)
      for (int e = 0; e < col.repeat; ++e) {
        if (!first) text += ',';
        first = false;
        format_value(text, col.at(r, e), is_integer(col.type), col.type == ColumnType::Float32);
      }
    text += '\n';
  }
}

}  // namespace

void write_csv(const std::string& path, const Table& table) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw Error(path + ": cannot write");
    out << csv_header(table);
    std::string text;
    for (size_t r0 = 0; r0 < table.rows; r0 += 4096) {
      text.clear();
      append_csv_rows(text, table, r0, std::min<size_t>(r0 + 4096, table.rows));
      out << text;
    }
    out.close();
    if (!out) throw Error(path + ": write failed");
  });
}

struct CatalogWriter::Impl {
  std::string path, tmp;
  std::unique_ptr<FitsTableWriter> fits;  // FITS output, else CSV through `csv`
  std::ofstream csv;
  std::string text;
  bool done = false;
};

CatalogWriter::CatalogWriter(const std::string& path, const Table& schema) : impl_(new Impl) {
  impl_->path = path;
  if (!csv::is_csv_path(path)) {
    FitsTableOptions opt;
    opt.extname = "XMATCH";
    impl_->fits = std::make_unique<FitsTableWriter>(path, schema, opt);
    return;
  }
  impl_->tmp = temporary_sibling(path);
  impl_->csv.open(impl_->tmp, std::ios::binary);
  if (!impl_->csv) throw Error(path + ": cannot write");
  impl_->csv << csv_header(schema);
}

CatalogWriter::~CatalogWriter() {
  if (impl_->fits || impl_->done) return;  // FitsTableWriter discards its own temporary
  impl_->csv.close();
  discard_temporary(impl_->tmp);
}

void CatalogWriter::append(const Table& block) {
  if (impl_->fits) return impl_->fits->append(block);
  impl_->text.clear();
  append_csv_rows(impl_->text, block, 0, block.rows);
  impl_->csv << impl_->text;
  if (!impl_->csv) throw Error(impl_->path + ": write failed");
}

void CatalogWriter::finish() {
  if (impl_->fits) return impl_->fits->finish();
  impl_->csv.close();
  if (!impl_->csv) throw Error(impl_->path + ": write failed");
  impl_->done = true;
  commit_temporary(impl_->tmp, impl_->path);
}

Table read_catalog(const std::string& path) {
  if (is_hats_catalog(path)) return read_hats_table(path);  // a directory of Parquet partitions
  if (csv::is_csv_path(path)) {
    Table t = read_csv(path);
    add_sexagesimal_columns(path, t);  // "12:34:56.7" RA/Dec text columns, as degrees
    return t;
  }
  // Text formats recognised by their first bytes (src/xmatch/text_catalogs.cpp).
  if (path.find('[') == std::string::npos) {
    if (is_votable(path)) return read_votable(path);
    if (is_ascii_head(path)) return read_ascii_head(path);
  }
  return read_fits_table(path);
}

void write_catalog(const std::string& path, const Table& table) {
  if (csv::is_csv_path(path)) {
    write_csv(path, table);
  } else {
    FitsTableOptions opt;
    opt.extname = "XMATCH";
    write_fits_table(path, table, opt);
  }
}

std::pair<std::string, std::string> find_radec_columns(const Table& table, const std::string& ra,
                                                       const std::string& dec,
                                                       const std::string& what) {
  if (!ra.empty() || !dec.empty()) {
    if (ra.empty() || dec.empty()) throw Error(what + ": give both the RA and the Dec column");
    for (const std::string& n : {ra, dec}) {
      const Column* c = table.find(n);
      if (!c) throw Error(what + ": no numeric column '" + n + "'");
      if (c->repeat != 1) throw Error(what + ": column '" + n + "' is a vector column");
    }
    return {ra, dec};
  }
  static const char* const known[][2] = {
      {"RA", "DEC"},
      {"ALPHA_J2000", "DELTA_J2000"},
      {"ALPHAWIN_J2000", "DELTAWIN_J2000"},
      {"RAJ2000", "DEJ2000"},
      {"RA_ICRS", "DE_ICRS"},
      {"X_WORLD", "Y_WORLD"},
      // Galactic longitude/latitude, rotated to ICRS by the caller (galactic_by_name).
      {"GLON", "GLAT"},
      {"L", "B"},
      {"LII", "BII"}};
  for (const auto& k : known)
    if (table.find(k[0]) && table.find(k[1]))
      return {table.find(k[0])->name, table.find(k[1])->name};
  throw Error(what +
              ": no RA/Dec columns found (tried RA/DEC, ALPHA_J2000/DELTA_J2000, "
              "ALPHAWIN_J2000/DELTAWIN_J2000, RAJ2000/DEJ2000, RA_ICRS/DE_ICRS, X_WORLD/Y_WORLD, "
              "GLON/GLAT, L/B, LII/BII); "
              "name them with --ra1/--dec1 or --ra2/--dec2");
}

void check_sky_position(double ra, double dec, size_t row, const std::string& what,
                        const std::string& ra_name, const std::string& dec_name) {
  if (!std::isfinite(ra) || ra < -360 || ra > 360)
    throw Error(what + ": row " + std::to_string(row + 1) + ": " + ra_name + " = " +
                std::to_string(ra) + " is not a right ascension in degrees");
  if (!std::isfinite(dec) || dec < -90 || dec > 90)
    throw Error(what + ": row " + std::to_string(row + 1) + ": " + dec_name + " = " +
                std::to_string(dec) + " is not a declination in degrees [-90, 90]");
}

SkyPoints table_positions(const Table& table, const std::string& ra, const std::string& dec,
                          const std::string& what) {
  const Column* cr = table.find(ra);
  const Column* cd = table.find(dec);
  if (!cr) throw Error(what + ": no numeric column '" + ra + "'");
  if (!cd) throw Error(what + ": no numeric column '" + dec + "'");
  SkyPoints p;
  p.ra.resize(table.rows);
  p.dec.resize(table.rows);
  for (size_t r = 0; r < table.rows; ++r) {
    const double a = cr->at(r), d = cd->at(r);
    check_sky_position(a, d, r, what, cr->name, cd->name);
    p.ra[r] = a;
    p.dec[r] = d;
  }
  return p;
}

Table joined_table(const Table& left, const Table& right, const std::vector<Pair>& rows,
                   Join join) {
  bool blank1 = false, blank2 = false;
  for (const Pair& p : rows) {
    blank1 |= p.i < 0;
    blank2 |= p.j < 0;
  }
  return joined_table(left, right, rows, join, blank1, blank2);
}

Table joined_table(const Table& left, const Table& right, const std::vector<Pair>& rows, Join join,
                   bool blank1, bool blank2) {
  const bool use1 = join != Join::Not1, use2 = join != Join::Not2;
  const bool use_sep = use1 && use2;
  auto clashes = [](const Table& t, const std::string& name) { return t.find(name) != nullptr; };
  Table out;
  out.rows = rows.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto add_side = [&](const Table& t, const Table& other, bool with_other, bool blank, bool first) {
    for (const Column& c : t.columns) {
      Column o;
      o.name = c.name;
      if (with_other && (clashes(other, c.name) || lower(c.name) == "separation"))
        o.name += first ? "_1" : "_2";
      o.unit = c.unit;
      o.description = c.description;
      o.type = (blank && is_integer(c.type)) ? ColumnType::Float64 : c.type;
      o.repeat = c.repeat;
      o.print_format = c.print_format;
      o.values.resize(rows.size() * c.repeat);
      for (size_t r = 0; r < rows.size(); ++r) {
        const int64_t src = first ? rows[r].i : rows[r].j;
        for (int e = 0; e < c.repeat; ++e)
          o.values[r * c.repeat + e] = src < 0 ? nan : c.at(size_t(src), e);
      }
      out.columns.push_back(std::move(o));
    }
  };
  if (use1) add_side(left, right, use2, blank1, true);
  if (use2) add_side(right, left, use1, blank2, false);
  if (use_sep) {
    Column s;
    s.name = "Separation";
    s.unit = "arcsec";
    s.description = "angular separation of the matched rows";
    s.print_format = "%.6f";
    s.values.resize(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) s.values[r] = rows[r].sep_arcsec;
    out.columns.push_back(std::move(s));
  }
  return out;
}

}  // namespace celeris::xmatch
