// FITS binary tables through CFITSIO.
#include <fitsio.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/table.hpp"
#include "fits_util.hpp"

namespace celeris {

const Column* Table::find(const std::string& name) const {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  const std::string want = lower(name);
  for (const auto& c : columns)
    if (lower(c.name) == want) return &c;
  return nullptr;
}

namespace {

char tform_code(ColumnType t) {
  switch (t) {
    case ColumnType::Int16:
      return 'I';
    case ColumnType::Int32:
      return 'J';
    case ColumnType::Int64:
      return 'K';
    case ColumnType::Float32:
      return 'E';
    case ColumnType::Float64:
      return 'D';
  }
  return 'D';
}

// SExtractor's LDAC_IMHEAD: a one-row table whose single cell holds the image header cards.
// The summary cards (SEXBKGND, SEXGAIN, ...) go before END, where SExtractor puts them and where
// PSFEx and SCAMP read them.
void write_ldac_imhead(fitsfile* f, const FitsHeader& header,
                       const std::vector<std::string>& extra_cards, int& status) {
  // Image cards, summary cards, then END so that LDAC readers can parse the block as a header.
  std::vector<std::string> cards(header.cards());
  cards.insert(cards.end(), extra_cards.begin(), extra_cards.end());
  cards.emplace_back("END");
  for (std::string& card : cards) card.resize(80, ' ');
  const long ncards = static_cast<long>(cards.size());
  std::string tform = std::to_string(80 * ncards) + "A";
  char* ttype[] = {const_cast<char*>("Field Header Card")};
  char* tformp[] = {const_cast<char*>(tform.c_str())};
  fits_create_tbl(f, BINARY_TBL, 1, 1, ttype, tformp, nullptr, "LDAC_IMHEAD", &status);
  std::string tdim = "(80, " + std::to_string(ncards) + ")";
  fits_update_key(f, TSTRING, "TDIM1", const_cast<char*>(tdim.c_str()), nullptr, &status);
  // With TDIM (80, N) CFITSIO takes the cell as N strings of 80 characters: write N of them
  // (one string would fill the first card and leave the others blank).
  std::vector<char*> cells;
  for (std::string& card : cards) cells.push_back(card.data());
  fits_write_col(f, TSTRING, 1, 1, 1, ncards, cells.data(), &status);
}

// The binary-table HDU of `table`'s columns with `rows` rows (values not written).
void create_table_hdu(fitsfile* f, const Table& table, const FitsTableOptions& options, size_t rows,
                      int& status) {
  std::vector<std::string> names, forms, units;
  for (const auto& c : table.columns) {
    names.push_back(c.name);
    forms.push_back(std::to_string(c.repeat) + tform_code(c.type));
    units.push_back(c.unit);
  }
  std::vector<char*> pn, pf, pu;
  for (size_t i = 0; i < names.size(); ++i) {
    pn.push_back(names[i].data());
    pf.push_back(forms[i].data());
    pu.push_back(units[i].data());
  }
  const std::string extname = options.ldac ? "LDAC_OBJECTS" : options.extname;
  fits_create_tbl(f, BINARY_TBL, static_cast<LONGLONG>(rows), static_cast<int>(names.size()),
                  pn.data(), pf.data(), pu.data(), extname.c_str(), &status);
  for (size_t i = 0; i < table.columns.size(); ++i)  // TDIMn of multi-dimensional cells
    if (const auto& d = table.columns[i].dims; !d.empty())
      fits_write_tdim(f, static_cast<int>(i + 1), static_cast<int>(d.size()),
                      const_cast<long*>(d.data()), &status);
  for (const auto& card : options.extra_cards) fits_write_record(f, card.c_str(), &status);
}

size_t type_bytes(ColumnType t) {
  switch (t) {
    case ColumnType::Int16:
      return 2;
    case ColumnType::Int32:
    case ColumnType::Float32:
      return 4;
    case ColumnType::Int64:
    case ColumnType::Float64:
      return 8;
  }
  return 8;
}

template <typename U>
void put_big_endian(unsigned char* out, U u) {
  for (size_t b = 0; b < sizeof(U); ++b)
    out[b] = static_cast<unsigned char>(u >> (8 * (sizeof(U) - 1 - b)));
}

// CFITSIO's conversion of a double to a FITS integer (putcold.c's ffr8fi2/4/8 without scaling):
// below `low` or above `high` (CFITSIO's DSHRT/DINT/DLONGLONG limits, half a unit past the
// type's range) the type's minimum or maximum and an overflow; else truncated toward zero. Where
// C++ leaves the cast undefined (NaN, and 2^63, which passes CFITSIO's 64-bit test) the value
// CFITSIO's cast gives on x86-64 (cvttsd2si: the lowest 32- or 64-bit integer, of which a 16-bit
// one keeps the low bits, 0).
template <typename I>
I to_integer(double d, double low, double high, bool& ok) {
  if (d < low) return ok = false, std::numeric_limits<I>::min();
  if (d > high) return ok = false, std::numeric_limits<I>::max();
  if (std::isnan(d) || d >= 9223372036854775808.0)
    return sizeof(I) == 2 ? 0 : std::numeric_limits<I>::min();
  return static_cast<I>(d);
}

// The FITS bytes of rows [first_row, first_row + rows) of one column into a row-major buffer
// (its cells `row_bytes` apart, their elements big-endian one after the other), converted as
// CFITSIO's fits_write_col of TDOUBLE values converts them (putcold.c, no TSCAL/TZERO): integers
// truncated toward zero, values beyond the type's range (CFITSIO's DSHRT/DINT/DLONGLONG limits,
// half a unit out) stored clamped and reported as an overflow. Returns false on an overflow.
bool encode_column(const Column& c, size_t first_row, size_t rows, unsigned char* out,
                   size_t row_bytes) {
  const size_t repeat = static_cast<size_t>(c.repeat), width = type_bytes(c.type);
  const double* v = c.values.data() + first_row * repeat;
  bool ok = true;
  for (size_t r = 0; r < rows; ++r, out += row_bytes)
    for (size_t k = 0; k < repeat; ++k) {
      const double d = v[r * repeat + k];
      unsigned char* cell = out + k * width;
      switch (c.type) {
        case ColumnType::Float64:
          put_big_endian(cell, std::bit_cast<uint64_t>(d));
          break;
        case ColumnType::Float32:
          put_big_endian(cell, std::bit_cast<uint32_t>(static_cast<float>(d)));
          break;
        case ColumnType::Int16:
          put_big_endian(cell,
                         static_cast<uint16_t>(to_integer<int16_t>(d, -32768.49, 32767.49, ok)));
          break;
        case ColumnType::Int32:
          put_big_endian(cell, static_cast<uint32_t>(
                                   to_integer<int32_t>(d, -2147483648.49, 2147483647.49, ok)));
          break;
        case ColumnType::Int64:
          put_big_endian(cell, static_cast<uint64_t>(to_integer<int64_t>(
                                   d, -9.2233720368547755808e18, 9.2233720368547755807e18, ok)));
          break;
      }
    }
  return ok;
}

// A row's bytes, and each column's offset in it.
size_t row_layout(const Table& table, std::vector<size_t>& offset) {
  size_t row_bytes = 0;
  offset.clear();
  for (const auto& c : table.columns) {
    offset.push_back(row_bytes);
    row_bytes += type_bytes(c.type) * static_cast<size_t>(c.repeat);
  }
  return row_bytes;
}

// Writes the rows of `table` from file row first_row + 1 on. The rows are encoded here, in
// blocks of about 4 MB, and each block goes to CFITSIO in one fits_write_tblbytes: a
// fits_write_col per column and block cost 20 ms a frame on a 41.7k-row catalog, more than
// encoding. Rows past the end of the table (the last HDU) extend it. An overflowing value
// fails as fits_write_col fails on it (NUM_OVERFLOW), after the rows are written.
void write_row_blocks(fitsfile* f, const Table& table, size_t first_row, int& status) {
  std::vector<size_t> offset;
  const size_t row_bytes = row_layout(table, offset);
  if (row_bytes == 0 || table.rows == 0) return;
  const size_t block = std::max<size_t>(1, (4u << 20) / row_bytes);
  std::vector<unsigned char> bytes(std::min(block, table.rows) * row_bytes);
  bool ok = true;
  for (size_t r0 = 0; r0 < table.rows && status <= 0; r0 += block) {
    const size_t n = std::min(block, table.rows - r0);
    for (size_t ci = 0; ci < table.columns.size(); ++ci)
      ok &= encode_column(table.columns[ci], r0, n, bytes.data() + offset[ci], row_bytes);
    fits_write_tblbytes(f, static_cast<LONGLONG>(first_row + r0 + 1), 1,
                        static_cast<LONGLONG>(n * row_bytes), bytes.data(), &status);
  }
  if (!ok && status <= 0) status = NUM_OVERFLOW;
}

// Moves to the table HDU read_fits_table reads: the one named in the path, else the first
// table that is not an LDAC_IMHEAD.
void move_to_table(fitsfile* f, const std::string& path) {
  int status = 0, hdutype = 0, hdunum = 0;
  fits_get_hdu_type(f, &hdutype, &status);
  fits_get_hdu_num(f, &hdunum);
  if (path.find('[') == std::string::npos && hdutype == IMAGE_HDU) {
    int nhdu = 0;
    fits_get_num_hdus(f, &nhdu, &status);
    bool found = false;
    for (int h = 2; h <= nhdu && !found; ++h) {
      fits_movabs_hdu(f, h, &hdutype, &status);
      char extname[FLEN_VALUE] = {0};
      int s2 = 0;
      fits_read_key(f, TSTRING, "EXTNAME", extname, nullptr, &s2);
      if (hdutype != IMAGE_HDU && std::string(extname) != "LDAC_IMHEAD") found = true;
    }
    check_fits(status, path);
    if (!found) throw Error(path + ": no table HDU found");
  } else if (hdutype == IMAGE_HDU) {
    throw Error(path + ": HDU " + std::to_string(hdunum) + " is an image, not a table");
  }
  check_fits(status, path);
}

// The rows encoded ahead (encode_fits_rows), as write_row_blocks would have written them.
void write_encoded_rows(fitsfile* f, const FitsRows& rows, int& status) {
  if (!rows.bytes.empty())
    fits_write_tblbytes(f, 1, 1, static_cast<LONGLONG>(rows.bytes.size()),
                        const_cast<unsigned char*>(rows.bytes.data()), &status);
  if (rows.overflow && status <= 0) status = NUM_OVERFLOW;
}

}  // namespace

size_t fits_row_bytes(const Table& table) {
  std::vector<size_t> offset;
  return row_layout(table, offset);
}

FitsRows encode_fits_rows(const Table& table) {
  FitsRows out;
  std::vector<size_t> offset;
  const size_t row_bytes = row_layout(table, offset);
  out.bytes.resize(row_bytes * table.rows);
  if (out.bytes.empty()) return out;
  bool ok = true;
  for (size_t ci = 0; ci < table.columns.size(); ++ci)
    ok &= encode_column(table.columns[ci], 0, table.rows, out.bytes.data() + offset[ci], row_bytes);
  out.overflow = !ok;
  return out;
}

void write_fits_table(const std::string& path, const Table& table,
                      const FitsTableOptions& options) {
  write_fits_tables(path, {{&table, options}});
}

void write_fits_tables(const std::string& path,
                       const std::vector<std::pair<const Table*, FitsTableOptions>>& tables) {
  write_atomically(path, [&](const std::string& tmp) {
    FitsFile file = FitsFile::create(tmp);
    fitsfile* f = file.get();
    int status = 0;
    fits_create_img(f, 8, 0, nullptr, &status);  // empty primary HDU
    for (const auto& [table, options] : tables) {
      if (options.ldac) write_ldac_imhead(f, options.image_header, options.extra_cards, status);
      create_table_hdu(f, *table, options, table->rows, status);
      if (options.rows) {
        if (options.rows->bytes.size() != fits_row_bytes(*table) * table->rows)
          throw Error("internal: " + path + ": rows encoded for another table");
        write_encoded_rows(f, *options.rows, status);
      } else {
        write_row_blocks(f, *table, 0, status);
      }
    }
    check_fits(status, path);
    file.close();
  });
}

struct FitsTableReader::Impl {
  std::string path;
  FitsFile file;
  Table schema;
  std::vector<int> colnums;  // CFITSIO column number of every schema column
};

FitsTableReader::FitsTableReader(const std::string& path)
    : impl_(new Impl{path, FitsFile::open_read(path), {}, {}}) {
  fitsfile* f = impl_->file.get();
  move_to_table(f, path);
  int status = 0, ncols = 0;
  LONGLONG nrows = 0;
  fits_get_num_rowsll(f, &nrows, &status);
  fits_get_num_cols(f, &ncols, &status);
  check_fits(status, path);
  impl_->schema.rows = static_cast<size_t>(nrows);
  for (int ci = 1; ci <= ncols; ++ci) {
    int typecode = 0;
    long repeat = 0, width = 0;
    fits_get_coltype(f, ci, &typecode, &repeat, &width, &status);
    char key[FLEN_KEYWORD], name[FLEN_VALUE] = {0}, unit[FLEN_VALUE] = {0};
    std::snprintf(key, sizeof key, "TTYPE%d", ci);
    int s2 = 0;
    fits_read_key(f, TSTRING, key, name, nullptr, &s2);
    std::snprintf(key, sizeof key, "TUNIT%d", ci);
    s2 = 0;
    fits_read_key(f, TSTRING, key, unit, nullptr, &s2);
    if (typecode == TSTRING || typecode == TLOGICAL || typecode == TBIT || repeat < 1) continue;
    Column c;
    c.name = name;
    c.unit = unit;
    c.repeat = static_cast<int>(repeat);
    c.type = (typecode == TFLOAT)                        ? ColumnType::Float32
             : (typecode == TDOUBLE)                     ? ColumnType::Float64
             : (typecode == TLONGLONG)                   ? ColumnType::Int64
             : (typecode == TSHORT || typecode == TBYTE) ? ColumnType::Int16
                                                         : ColumnType::Int32;
    impl_->schema.columns.push_back(std::move(c));
    impl_->colnums.push_back(ci);
  }
  check_fits(status, path);
}

FitsTableReader::~FitsTableReader() = default;
FitsTableReader::FitsTableReader(FitsTableReader&&) noexcept = default;
FitsTableReader& FitsTableReader::operator=(FitsTableReader&&) noexcept = default;

const Table& FitsTableReader::schema() const {
  return impl_->schema;
}

void FitsTableReader::read(size_t first, size_t count, Table& out) const {
  const Table& s = impl_->schema;
  if (first + count > s.rows)
    throw Error(impl_->path + ": rows " + std::to_string(first + 1) + "-" +
                std::to_string(first + count) + " beyond the table's " + std::to_string(s.rows));
  out.rows = count;
  out.columns.resize(s.columns.size());
  int status = 0;
  double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t k = 0; k < s.columns.size(); ++k) {
    Column& c = out.columns[k];
    const Column& d = s.columns[k];
    c.name = d.name;
    c.unit = d.unit;
    c.type = d.type;
    c.repeat = d.repeat;
    c.values.resize(count * static_cast<size_t>(d.repeat));
    if (count == 0) continue;
    int anynul = 0;
    fits_read_col(impl_->file.get(), TDOUBLE, impl_->colnums[k], static_cast<LONGLONG>(first + 1),
                  1, static_cast<LONGLONG>(count) * d.repeat, &nan, c.values.data(), &anynul,
                  &status);
    check_fits(status, impl_->path + ": column " + d.name);
  }
}

struct FitsTableWriter::Impl {
  std::string path, tmp;
  FitsFile file;
  size_t columns = 0, rows = 0;
  bool done = false;
};

FitsTableWriter::FitsTableWriter(const std::string& path, const Table& schema,
                                 const FitsTableOptions& options) {
  if (options.ldac) throw Error(path + ": FitsTableWriter does not write FITS_LDAC");
  const std::string tmp = temporary_sibling(path);
  try {
    impl_.reset(new Impl{path, tmp, FitsFile::create(tmp), schema.columns.size(), 0, false});
    int status = 0;
    fits_create_img(impl_->file.get(), 8, 0, nullptr, &status);  // empty primary HDU
    create_table_hdu(impl_->file.get(), schema, options, 0, status);
    check_fits(status, path);
  } catch (...) {
    impl_.reset();
    discard_temporary(tmp);
    throw;
  }
}

FitsTableWriter::~FitsTableWriter() {
  if (impl_ && !impl_->done) {
    const std::string tmp = impl_->tmp;
    impl_.reset();  // closes the file
    discard_temporary(tmp);
  }
}

void FitsTableWriter::append(const Table& block) {
  if (block.columns.size() != impl_->columns)
    throw Error(impl_->path + ": appended block has " + std::to_string(block.columns.size()) +
                " columns, the table " + std::to_string(impl_->columns));
  int status = 0;
  write_row_blocks(impl_->file.get(), block, impl_->rows, status);
  check_fits(status, impl_->path);
  impl_->rows += block.rows;
}

void FitsTableWriter::finish() {
  impl_->file.close();
  impl_->done = true;
  commit_temporary(impl_->tmp, impl_->path);
}

size_t FitsTableWriter::rows() const {
  return impl_->rows;
}

Table read_fits_table(const std::string& path) {
  FitsTableReader reader(path);
  Table t;
  reader.read(0, reader.schema().rows, t);
  return t;
}

}  // namespace celeris
