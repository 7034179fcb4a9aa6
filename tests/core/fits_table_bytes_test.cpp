// write_fits_table encodes the rows itself (fits_table.cpp): its files must hold the bytes
// CFITSIO's fits_write_col of the same double values writes, every type, edge values included.
#include <fitsio.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/table.hpp"

namespace fs = std::filesystem;
using celeris::Column;
using celeris::ColumnType;
using celeris::Table;

namespace {

fs::path tmpdir() {
  fs::path d = fs::temp_directory_path() / ("celeris_table_bytes_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

char code(ColumnType t) {
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

// The reference: the same HDUs written by CFITSIO, one fits_write_col of TDOUBLE per column.
void write_reference(const fs::path& path, const Table& t, const std::string& extname) {
  fitsfile* f = nullptr;
  int status = 0;
  fits_create_file(&f, ("!" + path.string()).c_str(), &status);
  fits_create_img(f, 8, 0, nullptr, &status);
  std::vector<std::string> names, forms, units;
  for (const Column& c : t.columns) {
    names.push_back(c.name);
    forms.push_back(std::to_string(c.repeat) + code(c.type));
    units.push_back(c.unit);
  }
  std::vector<char*> pn, pf, pu;
  for (size_t i = 0; i < names.size(); ++i)
    pn.push_back(names[i].data()), pf.push_back(forms[i].data()), pu.push_back(units[i].data());
  fits_create_tbl(f, BINARY_TBL, static_cast<LONGLONG>(t.rows), static_cast<int>(names.size()),
                  pn.data(), pf.data(), pu.data(), extname.c_str(), &status);
  for (size_t ci = 0; ci < t.columns.size(); ++ci)
    fits_write_col(f, TDOUBLE, static_cast<int>(ci + 1), 1, 1,
                   static_cast<LONGLONG>(t.columns[ci].values.size()),
                   const_cast<double*>(t.columns[ci].values.data()), &status);
  fits_close_file(f, &status);
  ASSERT_EQ(status, 0);
}

Column column(const std::string& name, ColumnType type, int repeat) {
  Column c;
  c.name = name;
  c.unit = "u";
  c.type = type;
  c.repeat = repeat;
  return c;
}

}  // namespace

TEST(FitsTableBytes, EveryTypeAsCfitsioWritesIt) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Values at the edges of CFITSIO's conversions (truncation toward zero, the half unit kept
  // at each end of an integer range, NaN, infinities, float rounding), then random ones.
  const std::vector<double> common = {0.0, -0.0, 0.5, -0.5, 0.999999, -0.999999,
                                      1.5, -1.5, 2.7, -2.7, 1e-320,   nan};
  auto with = [&](std::vector<double> more) {
    more.insert(more.begin(), common.begin(), common.end());
    return more;
  };
  const std::vector<double> floats = with(
      {inf, -inf, 1.0e30, -1.0e30, 3.4028235e38, 3.4028236e38, 1e39, 1.0 / 3.0, 123456789.123});
  const std::vector<double> i16 = with({32767.49, -32768.49, 32767.0, -32768.0, 32766.9});
  const std::vector<double> i32 =
      with({2147483647.49, -2147483648.49, 2147483647.0, -2147483648.0, 123456789.9});
  const std::vector<double> i64 = with({9223372036854775807.0, -9223372036854775808.0,
                                        9223372036854775808.0, 1e18 + 0.5, -4503599627370497.0});
  Table t;
  t.rows = 3000;
  t.columns = {column("I16", ColumnType::Int16, 1),   column("I32", ColumnType::Int32, 1),
               column("I64", ColumnType::Int64, 1),   column("F32", ColumnType::Float32, 1),
               column("F64", ColumnType::Float64, 1), column("V32", ColumnType::Float32, 3),
               column("VI", ColumnType::Int32, 2)};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-30000.0, 30000.0);
  for (Column& c : t.columns) {
    const std::vector<double>& edges = c.type == ColumnType::Int16   ? i16
                                       : c.type == ColumnType::Int32 ? i32
                                       : c.type == ColumnType::Int64 ? i64
                                                                     : floats;
    const size_t n = t.rows * static_cast<size_t>(c.repeat);
    for (size_t i = 0; i < n; ++i) c.values.push_back(i < edges.size() ? edges[i] : u(rng));
  }
  const fs::path d = tmpdir();
  celeris::FitsTableOptions options;
  options.extname = "OBJECTS";
  celeris::write_fits_table((d / "new.fits").string(), t, options);
  write_reference(d / "ref.fits", t, "OBJECTS");
  const std::string a = bytes_of(d / "new.fits"), b = bytes_of(d / "ref.fits");
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b);
  // More rows than one of the writer's 4 MB blocks, over several blocks.
  Table big;
  big.rows = 300000;
  big.columns = {column("A", ColumnType::Float64, 1), column("B", ColumnType::Int32, 1),
                 column("C", ColumnType::Float32, 2)};
  for (Column& c : big.columns)
    for (size_t i = 0; i < big.rows * static_cast<size_t>(c.repeat); ++i)
      c.values.push_back(u(rng));
  celeris::write_fits_table((d / "big.fits").string(), big, options);
  write_reference(d / "bigref.fits", big, "OBJECTS");
  EXPECT_TRUE(bytes_of(d / "big.fits") == bytes_of(d / "bigref.fits"));
  fs::remove_all(d);
}

TEST(FitsTableBytes, IntegerOverflowFailsWithoutAFile) {
  const fs::path d = tmpdir();
  for (const auto& [type, value] : std::vector<std::pair<ColumnType, double>>{
           {ColumnType::Int16, 32767.5},
           {ColumnType::Int16, -32768.5},
           {ColumnType::Int32, 2147483647.5},
           {ColumnType::Int32, std::numeric_limits<double>::infinity()},
           {ColumnType::Int64, -1e19}}) {
    Table t;
    t.rows = 2;
    t.columns = {column("X", type, 1)};
    t.columns[0].values = {1.0, value};
    const fs::path p = d / "overflow.fits";
    EXPECT_THROW(celeris::write_fits_table(p.string(), t, {}), celeris::Error) << value;
    EXPECT_FALSE(fs::exists(p)) << value;
  }
  fs::remove_all(d);
}

TEST(FitsTableBytes, StreamedBlocksAsOneTable) {
  // FitsTableWriter appends blocks through the same encoder; the file must equal one write.
  Table t;
  t.rows = 1000;
  t.columns = {column("A", ColumnType::Float32, 1), column("B", ColumnType::Int16, 2)};
  for (Column& c : t.columns)
    for (size_t i = 0; i < t.rows * static_cast<size_t>(c.repeat); ++i)
      c.values.push_back(static_cast<double>(i % 977) - 400.3);
  const fs::path d = tmpdir();
  celeris::FitsTableOptions options;
  options.extname = "OBJECTS";
  celeris::write_fits_table((d / "one.fits").string(), t, options);
  {
    celeris::FitsTableWriter w((d / "streamed.fits").string(), t, options);
    for (size_t r0 = 0; r0 < t.rows; r0 += 300) {
      Table block = t;
      block.rows = std::min<size_t>(300, t.rows - r0);
      for (Column& c : block.columns) {
        const auto rep = static_cast<size_t>(c.repeat);
        c.values.assign(c.values.begin() + static_cast<long>(r0 * rep),
                        c.values.begin() + static_cast<long>((r0 + block.rows) * rep));
      }
      w.append(block);
    }
    w.finish();
  }
  EXPECT_TRUE(bytes_of(d / "one.fits") == bytes_of(d / "streamed.fits"));
  fs::remove_all(d);
}

// Rows encoded ahead (encode_fits_rows, a stream's back workers) and written by write_fits_table
// give its own file byte for byte, in FITS_1.0 and FITS_LDAC; an overflowing value fails the
// write either way, leaving no file; rows encoded for another table are refused.
TEST(FitsTableBytes, RowsEncodedAheadAreTheSameFile) {
  Table t;
  t.rows = 70000;  // more than one of the writer's 4 MB blocks
  t.columns = {column("A", ColumnType::Float64, 1), column("B", ColumnType::Int16, 2),
               column("C", ColumnType::Float32, 3), column("D", ColumnType::Int64, 1),
               column("E", ColumnType::Int32, 1)};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-30000.0, 30000.0);
  for (Column& c : t.columns)
    for (size_t i = 0; i < t.rows * static_cast<size_t>(c.repeat); ++i) c.values.push_back(u(rng));
  const fs::path d = tmpdir();
  for (const bool ldac : {false, true}) {
    celeris::FitsTableOptions options;
    options.ldac = ldac;
    options.extra_cards = {"COMMENT one card"};
    celeris::write_fits_table((d / "a.fits").string(), t, options);
    const celeris::FitsRows rows = celeris::encode_fits_rows(t);
    EXPECT_EQ(rows.bytes.size(), celeris::fits_row_bytes(t) * t.rows);
    EXPECT_FALSE(rows.overflow);
    options.rows = &rows;
    celeris::write_fits_table((d / "b.fits").string(), t, options);
    EXPECT_TRUE(bytes_of(d / "a.fits") == bytes_of(d / "b.fits")) << "ldac " << ldac;
  }
  Table over = t;
  over.columns[1].values[5] = 40000.0;  // beyond Int16
  const celeris::FitsRows rows = celeris::encode_fits_rows(over);
  EXPECT_TRUE(rows.overflow);
  celeris::FitsTableOptions options;
  options.rows = &rows;
  EXPECT_THROW(celeris::write_fits_table((d / "c.fits").string(), over, options), celeris::Error);
  EXPECT_FALSE(fs::exists(d / "c.fits"));
  Table shorter = t;
  shorter.rows = 10;
  for (Column& c : shorter.columns) c.values.resize(10 * static_cast<size_t>(c.repeat));
  EXPECT_THROW(celeris::write_fits_table((d / "d.fits").string(), shorter, options),
               celeris::Error);
  fs::remove_all(d);
}
