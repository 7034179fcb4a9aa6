// write_ascii_table against its definition: each row the cells' snprintf texts joined by one
// blank. The rows are written through a buffer of cells (table_ascii.cpp format_rows) in blocks
// of rows on several threads; the table here crosses every boundary of that: rows longer than
// the buffer (a vector column of 2,000 elements), cells longer than a cell's room (snprintf's
// 1,100-character text of a zero-padded format), formats outside the fast road, NaN and
// infinities, more rows than a block holds, and more than a round of blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "celeris/table.hpp"

namespace {

std::string cell(const celeris::Column& c, double v) {
  const bool integer = c.type == celeris::ColumnType::Int32 || c.type == celeris::ColumnType::Int64;
  std::string f = c.print_format;
  if (integer) f.insert(f.size() - 1, "ll");
  std::string buf(2048, '\0');
  const int n = integer
                    ? std::snprintf(buf.data(), buf.size(), f.c_str(), static_cast<long long>(v))
                    : std::snprintf(buf.data(), buf.size(), f.c_str(), v);
  buf.resize(static_cast<size_t>(n));
  return buf;
}

// Writes `t` (with its header when `header`) and reads it back: every row against its cells'
// snprintf texts joined by one blank (the first two differences named). Returns the rows read.
size_t expect_rows_as_snprintf(const celeris::Table& t, bool header, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.cat").string();
  celeris::write_ascii_table(path, t, header);
  std::ifstream in(path);
  std::string line;
  size_t r = 0, bad = 0;
  while (std::getline(in, line)) {
    if (header && line.rfind("#", 0) == 0) continue;
    if (r >= t.rows) {
      ADD_FAILURE() << "more rows than the table's " << t.rows;
      break;
    }
    std::string want;
    for (const celeris::Column& c : t.columns)
      for (int k = 0; k < c.repeat; ++k) {
        if (!want.empty()) want += ' ';
        want += cell(c, c.at(r, k));
      }
    if (line != want && ++bad <= 2)
      ADD_FAILURE() << "row " << r << ":\n" << line.substr(0, 400) << "\n" << want.substr(0, 400);
    ++r;
  }
  EXPECT_EQ(bad, 0u);
  std::filesystem::remove_all(dir);
  return r;
}

// Every kind of cell and row the formatting meets (the file's header comment).
celeris::Table mixed_table() {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  celeris::Table t;
  t.rows = 2600;  // more than one block of rows (2,048)
  auto add = [&](const std::string& name, celeris::ColumnType type, int repeat,
                 const std::string& format) {
    celeris::Column c{name, "", "", type, repeat, format, {}};
    for (size_t i = 0; i < t.rows * static_cast<size_t>(repeat); ++i) {
      double v = u(rng) * std::pow(10.0, static_cast<int>(rng() % 13) - 4);
      if (type != celeris::ColumnType::Float64) v = std::round(v);
      if (type == celeris::ColumnType::Float64 && i % 97 == 5) v = i % 2 ? nan : -inf;
      c.values.push_back(v);
    }
    t.columns.push_back(std::move(c));
  };
  add("NUMBER", celeris::ColumnType::Int32, 1, "%10d");
  add("X", celeris::ColumnType::Float64, 1, "%11.4f");
  add("FLUX", celeris::ColumnType::Float64, 1, "%12.7g");
  add("E", celeris::ColumnType::Float64, 1, "%15.7e");
  add("ZERO_PADDED", celeris::ColumnType::Float64, 1, "%08.3f");  // snprintf's road
  add("WIDE", celeris::ColumnType::Float64, 1, "%01100.2f");      // past a cell's room
  add("LEFT", celeris::ColumnType::Float64, 1, "%-10.3f");
  add("VECTOR", celeris::ColumnType::Float64, 2000, "%12.7g");  // a row past the buffer
  add("FLAGS", celeris::ColumnType::Int32, 1, "%3d");
  return t;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(AsciiTable, RowsAreTheCellsSnprintfTexts) {
  const celeris::Table t = mixed_table();
  EXPECT_EQ(expect_rows_as_snprintf(t, false, "celeris_ascii_table_test"), t.rows);
}

// More rows than one round of blocks holds (64 blocks of 2,048 rows): every row once, in order.
TEST(AsciiTable, RoundsOfBlocksKeepEveryRowInOrder) {
  celeris::Table t;
  t.rows = 140000;
  celeris::Column number{"NUMBER", "", "", celeris::ColumnType::Int32, 1, "%10d", {}};
  celeris::Column x{"X", "", "", celeris::ColumnType::Float64, 1, "%11.4f", {}};
  for (size_t i = 0; i < t.rows; ++i) {
    number.values.push_back(static_cast<double>(i + 1));
    x.values.push_back(0.0001 * static_cast<double>(i));
  }
  t.columns = {number, x};
  EXPECT_EQ(expect_rows_as_snprintf(t, true, "celeris_ascii_rounds_test"), t.rows);
}

// The text a stream's back workers make ahead (ascii_table_text), written by write_text_file, is
// write_ascii_table's file byte for byte: with and without the header (a unit longer than a
// header line's buffer among its columns), and for a table of no rows.
TEST(AsciiTable, TextMadeAheadIsTheWrittenFile) {
  celeris::Table t = mixed_table();
  t.columns[1].unit = std::string(300, 'u');
  t.columns[2].description = "a flux";
  const auto dir = std::filesystem::temp_directory_path() / "celeris_ascii_text_test";
  std::filesystem::create_directories(dir);
  const std::string a = (dir / "a.cat").string(), b = (dir / "b.cat").string();
  for (const bool header : {false, true}) {
    celeris::write_ascii_table(a, t, header);
    const std::string text = celeris::ascii_table_text(t, header);
    celeris::write_text_file(b, text);
    const std::string file = slurp(a);
    EXPECT_GT(file.size(), t.rows);
    EXPECT_TRUE(file == slurp(b)) << "header " << header;
    EXPECT_GE(celeris::ascii_table_chars(t, header), file.size() / 2) << "header " << header;
  }
  celeris::Table empty = t;
  empty.rows = 0;
  for (celeris::Column& c : empty.columns) c.values.clear();
  celeris::write_ascii_table(a, empty, true);
  celeris::write_text_file(b, celeris::ascii_table_text(empty, true));
  EXPECT_TRUE(slurp(a) == slurp(b));
  EXPECT_NE(slurp(a).find(std::string(300, 'u')), std::string::npos);
  std::filesystem::remove_all(dir);
}
