// NumberFormat (the ASCII catalog's cells through std::to_chars) against snprintf, its
// reference: every print format of SExtractor's parameter table and others, on random values
// over many magnitudes, values on rounding boundaries, zeros of both signs, NaN and infinities.
#include "core/number_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

using celeris::NumberFormat;

namespace {

std::string reference(const std::string& format, bool integer, double v) {
  std::string f = format;
  if (integer && (f.back() == 'd' || f.back() == 'u' || f.back() == 'i'))
    f.insert(f.size() - 1, "ll");
  char buf[512];
  if (integer)
    std::snprintf(buf, sizeof buf, f.c_str(), static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, f.c_str(), v);
  return buf;
}

std::string formatted(const NumberFormat& nf, double v) {
  std::string out;
  nf.append(v, out);
  return out;
}

std::vector<double> test_values() {
  std::vector<double> v = {0.0,    -0.0,    1.0,        -1.0,          0.5,     -0.5,     1.5,
                           2.5,    0.125,   0.0625,     9.5,           99.5,    999.9995, 0.00005,
                           1e-5,   1e-4,    1e-3,       9.99995,       1e15,    -1e15,    1e300,
                           1e-300, 5e-324,  123456789., 1e16,          1e17,    0.1,      0.2,
                           0.3,    1e7,     9999999.5,  99.995,        -99.995, 0.000123, 3.0e-8,
                           1e-150, 3.7e200, -2.5e-120,  9.99999995e99, 1e100};
  const double inf = std::numeric_limits<double>::infinity();
  v.push_back(inf);
  v.push_back(-inf);
  v.push_back(std::numeric_limits<double>::quiet_NaN());
  v.push_back(-std::numeric_limits<double>::quiet_NaN());
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> mant(-10.0, 10.0);
  std::uniform_int_distribution<int> expo(-40, 40);
  for (int i = 0; i < 20000; ++i) v.push_back(mant(rng) * std::pow(10.0, expo(rng)));
  // Halfway cases of the printed precision: k + 0.5 units of the last digit.
  for (int p = 0; p < 8; ++p)
    for (int k = 0; k < 200; ++k) v.push_back((k + 0.5) * std::pow(10.0, -p));
  return v;
}

// Every value through every format, against snprintf (the first three differences of each
// format named).
void expect_as_snprintf(const std::vector<std::string>& formats,
                        const std::vector<double>& values) {
  for (const std::string& f : formats) {
    const NumberFormat nf(f, false);
    size_t bad = 0;
    for (double v : values) {
      const std::string want = reference(f, false, v), got = formatted(nf, v);
      if (want != got && ++bad <= 3)
        ADD_FAILURE() << f << " of " << std::hexfloat << v << ": " << got << " != " << want;
    }
    EXPECT_EQ(bad, 0u) << f;
  }
}

}  // namespace

TEST(NumberFormat, FloatsAsSnprintf) {
  const std::vector<std::string> formats = {
      "%12.7g",  "%18.10e", "%8.4f",   "%6.2f", "%15.7e", "%11.7f",  "%11.4f",
      "%+11.7f", "%9.5f",   "%9.3f",   "%7.5f", "%+6.2f", "%10.3f",  "%8.1f",
      "%10.4g",  "%.10g",   "%g",      "%e",    "%f",     "%.0f",    "%.0e",
      "%.0g",    "%-10.3f", "% 8.2f",  "%E",    "%12.5G", "%-+9.2e", "%010.3f",
      "%#8.3g",  "x%5.1f",  "%3.1f%%", "%.25f", "%40.30e"};
  expect_as_snprintf(formats, test_values());
}

// %f and %g's exact integer road (number_format.cpp scaled_rounded) against snprintf where it
// decides: values over 31 decades and both signs, exact binary ties at every printed precision
// (i / 2^j, rounded to even by printf), decimal halfway strings read back (the double nearest a
// tie, just above or below it), and %g's carries into the next power of ten and across its
// switch between %f's and %e's forms; %e's own road (the same digits, always its form).
TEST(NumberFormat, ExactRoundingAsSnprintf) {
  std::vector<double> values;
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 120000; ++i) {
    const double v = std::pow(10.0, -12 + 31 * u(rng));
    values.push_back(rng() % 4 == 0 ? -v : v);
  }
  for (int i = 0; i < 60000; ++i) {
    const int j = 1 + static_cast<int>(rng() % 24);
    values.push_back(std::ldexp(static_cast<double>(rng() % (uint64_t{1} << 40)), -j));
  }
  char text[64];
  for (int i = 0; i < 60000; ++i) {
    // A decimal with 1-9 digits after the point, its last one a 5: a tie at one digit fewer.
    const int digits = 1 + static_cast<int>(rng() % 9);
    std::snprintf(
        text, sizeof text, "%llu.%0*llu5", static_cast<unsigned long long>(rng() % 100000),
        digits - 1,
        static_cast<unsigned long long>(rng() % static_cast<uint64_t>(std::pow(10, digits - 1))));
    values.push_back(std::strtod(text, nullptr));
  }
  for (int k = -12; k <= 18; ++k)
    for (const double f : {1.0, 0.99999995, 0.999999995, 0.9999999995, 0.99995, 0.999995, 1.0000005,
                           0.5, 0.95, 0.995}) {
      const double v = f * std::pow(10.0, k);
      for (const double w : {v, std::nextafter(v, 0.0), std::nextafter(v, 2 * v + 1)}) {
        values.push_back(w);
        values.push_back(-w);
      }
    }
  const std::vector<std::string> formats = {
      "%8.4f",  "%11.4f",  "%11.7f",  "%+11.7f", "%9.3f", "%.0f",  "%8.1f",   "%13.10f", "%.19f",
      "%.20f",  "%12.7g",  "%10.4g",  "%.10g",   "%g",    "%.0g",  "%.15g",   "%.16g",   "%12.5G",
      "% 9.2f", "%-12.7g", "%18.10e", "%15.7e",  "%.0e",  "%.14e", "%-+12.3E"};
  expect_as_snprintf(formats, values);
}

TEST(NumberFormat, IntegersAsSnprintf) {
  const std::vector<std::string> formats = {"%8d", "%10d", "%9d",  "%3d",  "%9u",  "%1d",
                                            "%d",  "%-6d", "%+5d", "% 4d", "%05d", "%i"};
  std::vector<double> values = {
      0,     1,           -1, 9, 10, 99999, -99999, 123456789012.0, 2147483648.0, -2147483649.0,
      65535, 4294967295.0};
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<long long> any(-(1LL << 52), 1LL << 52);
  for (int i = 0; i < 5000; ++i) values.push_back(static_cast<double>(any(rng)));
  for (const std::string& f : formats) {
    const NumberFormat nf(f, true);
    for (double v : values) EXPECT_EQ(formatted(nf, v), reference(f, true, v)) << f << " of " << v;
  }
}

TEST(NumberFormat, AppendsWithoutTouchingWhatIsThere) {
  std::string out = "abc ";
  NumberFormat("%6.2f", false).append(3.14159, out);
  EXPECT_EQ(out, "abc   3.14");
}

// write()'s contract: the cell at its destination and the end returned, or nullptr where
// snprintf's text would pass the room (a format outside the fast road), which append() then
// writes whole.
TEST(NumberFormat, WriteLeavesLongCellsToAppend) {
  char room[NumberFormat::kCellRoom];
  const NumberFormat wide("%01100.2f", false);
  EXPECT_EQ(wide.write(1.5, room, true), nullptr);
  std::string out;
  wide.append(1.5, out, true);
  std::string want(1101, '\0');  // reference()'s buffer is shorter
  want.resize(static_cast<size_t>(std::snprintf(want.data(), want.size(), "%01100.2f", 1.5)));
  EXPECT_EQ(want.size(), 1100u);
  EXPECT_EQ(out, " " + want);
  const NumberFormat flux("%12.7g", false);
  char* end = flux.write(1234.5678, room, true);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(std::string(room, end), " " + reference("%12.7g", false, 1234.5678));
}
