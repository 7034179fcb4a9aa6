// ascii_table_text_gpu (core/table_ascii_gpu.hpp) against ascii_table_text, its reference (itself
// checked against snprintf by number_format_test.cpp and table_ascii_test.cpp): the same bytes
// for random values over many magnitudes in every kind of format SExtractor's parameters use,
// rounding ties, zeros of both signs, integers, vector columns, and the rows the GPU leaves to the
// host (NaN, infinities, values beyond the exact road) put back in their places. Skipped without
// a device.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "celeris/device.hpp"
#include "celeris/table.hpp"
#include "core/table_ascii_gpu.hpp"

using namespace celeris;

namespace {

Column column(const std::string& name, ColumnType type, const std::string& format, int repeat,
              size_t rows) {
  Column c;
  c.name = name;
  c.description = "the " + name;
  c.unit = repeat > 1 ? "count" : "";
  c.type = type;
  c.repeat = repeat;
  c.print_format = format;
  c.values.resize(rows * static_cast<size_t>(repeat));
  return c;
}

// A value of a random magnitude and sign, or now and then a tie of the printed precision, a
// zero or an integer.
double random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> mant(-10.0, 10.0);
  std::uniform_int_distribution<int> expo(-12, 12), pick(0, 9), small(0, 2000);
  switch (pick(rng)) {
    case 0:
      return (small(rng) + 0.5) * std::pow(10.0, -(pick(rng) % 8));  // k + 1/2 of a unit
    case 1:
      return pick(rng) < 5 ? 0.0 : -0.0;
    case 2:
      return static_cast<double>(small(rng) - 1000);
    default:
      return mant(rng) * std::pow(10.0, expo(rng));
  }
}

// Formats of every style, flag and width; an empty one takes the writer's default.
Table random_table(size_t rows, unsigned seed) {
  const std::vector<std::string> float_formats = {
      "%12.7g", "%10.4f", "%+11.7f", "%-10.4f", "%18.10e", "% 9.3E", "",
      "%8.4f",  "%13.6G", "%.3f",    "%5.1f",   "%11.5e",  "%-12.7g"};
  Table t;
  t.rows = rows;
  t.columns.push_back(column("NUMBER", ColumnType::Int32, "%10d", 1, rows));
  t.columns.push_back(column("FLAGS", ColumnType::Int16, "%3d", 1, rows));
  t.columns.push_back(column("ID", ColumnType::Int64, "%-8d", 1, rows));
  t.columns.push_back(column("PLUS", ColumnType::Int32, "%+6d", 1, rows));
  t.columns.push_back(column("BITS", ColumnType::Int32, "%u", 1, rows));
  t.columns.push_back(column("NOFMT", ColumnType::Int32, "", 1, rows));
  for (size_t i = 0; i < float_formats.size(); ++i)
    t.columns.push_back(column("F" + std::to_string(i), ColumnType::Float64, float_formats[i],
                               i == 7 ? 3 : 1, rows));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> integer(-100000, 100000);
  for (Column& c : t.columns) {
    const bool is_int = c.type != ColumnType::Float64;
    for (double& v : c.values) v = is_int ? integer(rng) : random_value(rng);
  }
  return t;
}

void expect_same_text(const Table& t, bool header) {
  const std::string want = ascii_table_text(t, header);
  const std::optional<std::string> got = ascii_table_text_gpu(t, header);
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->size(), want.size());
  if (*got == want) return;
  size_t at = 0;
  while (at < want.size() && (*got)[at] == want[at]) ++at;
  const size_t line = want.rfind('\n', at) == std::string::npos ? 0 : want.rfind('\n', at) + 1;
  FAIL() << "first difference at " << at << ", line:\n  cpu: " << want.substr(line, 200)
         << "\n  gpu: " << got->substr(line, 200);
}

bool have_device() {
  return cuda_device_count() > 0;
}

}  // namespace

TEST(AsciiTableGpu, RandomValuesAsTheHost) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (unsigned seed : {1u, 2u, 3u}) {
    const Table t = random_table(20000, seed);
    expect_same_text(t, true);
    expect_same_text(t, false);
  }
}

TEST(AsciiTableGpu, HostRowsInTheirPlaces) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  Table t = random_table(3000, 7);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Cells outside the road: non-finite, beyond %f's range, subnormal or huge for %g and %e, an
  // integer column's value beyond a long long; in the first and last rows and runs between.
  const std::vector<std::pair<size_t, double>> odd = {{0, nan},    {1, inf},   {2, -inf}, {3, 1e25},
                                                      {4, 5e-324}, {5, 1e305}, {6, -nan}};
  const std::vector<size_t> rows = {0, 1, 2, 17, 18, 1500, 2999};
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& [col, v] = odd[i % odd.size()];
    Column& c = t.columns[6 + col];
    c.values[rows[i] * static_cast<size_t>(c.repeat)] = v;
  }
  t.columns[0].values[2998] = 1e19;  // %10d of a value no long long holds
  expect_same_text(t, true);
}

TEST(AsciiTableGpu, LeavesOtherFormatsToTheHost) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  Table t = random_table(10, 3);
  EXPECT_TRUE(ascii_table_text_gpu(t, true).has_value());
  t.columns[7].print_format = "%08.3f";  // zero padding: snprintf's
  EXPECT_FALSE(ascii_table_text_gpu(t, true).has_value());
  Table empty = random_table(0, 3);
  EXPECT_FALSE(ascii_table_text_gpu(empty, true).has_value());
}

// A column whose every cell is off the road (NaN): the whole table is the host writer's.
TEST(AsciiTableGpu, ManyHostRowsAsTheHost) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  Table t = random_table(5000, 11);
  for (double& v : t.columns[8].values) v = std::numeric_limits<double>::quiet_NaN();
  expect_same_text(t, true);
}

TEST(AsciiTableGpu, OneRowAndWideCells) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  Table t;
  t.rows = 1;
  t.columns.push_back(column("WIDE", ColumnType::Float64, "%60.3f", 1, 1));
  t.columns.push_back(column("LEFT", ColumnType::Float64, "%-40.2e", 1, 1));
  t.columns.push_back(column("LONG", ColumnType::Float64, "%.19f", 1, 1));
  t.columns[0].values = {-123456.789};
  t.columns[1].values = {6.02214076e23};
  t.columns[2].values = {9.25};
  expect_same_text(t, true);
}
