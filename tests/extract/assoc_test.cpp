// ASSOC (stages/assoc_list.hpp, stages/assoc.hpp) against hand-worked lists: SExtractor's column
// mapping, the strict radius test, the tie rules of each ASSOC_TYPE, the rows outside the image,
// MEAN's undivided sums, and the row selection; and a brute-force reference on random lists.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "celeris/error.hpp"
#include "extract/stages/assoc.hpp"

namespace celeris::extract {
namespace {

AssocList parse(const std::string& text, AssocSettings s, int vector_size,
                std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> w;
  AssocList l = parse_assoc_list(text, "t.list", s, vector_size, warnings ? *warnings : w);
  return l;
}

struct Match {
  int n;
  std::vector<double> v;
};
Match run(const AssocList& l, double x, double y, int size = 3, double radius = 2.0,
          int height = 100) {
  AssocIndex index(l, radius, nullptr);
  Match m{0, std::vector<double>(size, -1.0)};
  m.n = index.match(x, y, height, m.v.data(), size);
  return m;
}

TEST(AssocList, ColumnsAsSExtractorMapsThem) {
  AssocSettings s;  // ASSOC_PARAMS 2,3,4, ASSOC_DATA 2,3,4
  s.data = {4, 0, 1};
  std::vector<std::string> warnings;
  const AssocList l = parse("# c\n\n1 10 20 30 40\n2 11 21 31 41\n", s, 3, &warnings);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l.ndata, 2);  // the 0 is skipped
  EXPECT_EQ(l.x[1], 11);
  EXPECT_EQ(l.y[1], 21);
  EXPECT_EQ(l.weight[1], 31);
  EXPECT_EQ(l.data[2], 31);  // column 4, then column 1
  EXPECT_EQ(l.data[3], 2);
  ASSERT_EQ(warnings.size(), 1u);  // VECTOR_ASSOC(3) with 2 data columns
  s.data = {0};                    // all columns, at most the vector's size
  EXPECT_EQ(parse("1 10 20 30 40\n", s, 3).ndata, 3);
  EXPECT_EQ(parse("1 10 20 30 40\n", s, 8).ndata, 5);
  EXPECT_EQ(parse("1 10 20 30 40\n", s, 0).ndata, 0);  // NUMBER_ASSOC alone
}

TEST(AssocList, WeightedTypeWithoutWeightIsFirst) {
  AssocSettings s;
  s.params = {2, 3};
  s.type = AssocType::Max;
  std::vector<std::string> warnings;
  EXPECT_EQ(parse("1 2 3\n", s, 1, &warnings).type, AssocType::First);
  EXPECT_EQ(warnings.size(), 1u);
  s.type = AssocType::Sum;  // SUM needs no weight
  EXPECT_EQ(parse("1 2 3\n", s, 1).type, AssocType::Sum);
}

TEST(AssocList, BadListsAreRefused) {
  AssocSettings s;
  for (const char* text : {"1 2 3 4\n1 2 3\n", "1 2 3 4\n1 2 3 4 5\n", "1 2 3 4\n1 2 x 4\n",
                           "1 2 3 4\n1 2 nan 4\n", "1 2 3 4\n1 2 3 inf\n", "1 2 3 4\n\t1 2 3 4\n",
                           "1 2 3 4\n  \n", "1 2 3\n" /* ASSOC_PARAMS #3 = column 4 */})
    EXPECT_THROW(parse(text, s, 3), Error) << text;
  EXPECT_NO_THROW(parse("1 2 3 4\n\t \n#\n\n", s, 3));  // blank after a tab: skipped
  s.data = {1, 7};
  EXPECT_THROW(parse("1 2 3 4\n", s, 3), Error);
  s.data = {3, 3};
  EXPECT_THROW(parse("1 2 3 4\n", s, 3), Error);
  s.data = {1};
  s.params = {2, 2};
  EXPECT_THROW(parse("1 2 3 4\n", s, 3), Error);
  s.params = {2, 3};  // NaN in a column not used is what SExtractor reads too
  EXPECT_NO_THROW(parse("1 2 3 nan\n", s, 1));
}

TEST(Assoc, StrictRadiusAndRowsOutsideTheImage) {
  AssocSettings s;
  s.data = {1};
  const AssocList l = parse("1 10 50 0\n2 14 50 0\n", s, 1);
  EXPECT_EQ(run(l, 12, 50, 1).n, 0);  // both exactly 2 away: dist < radius^2 fails
  EXPECT_EQ(run(l, 12.001, 50, 1).n, 1);
  EXPECT_EQ(run(l, 12, 50, 1, 2.0001).n, 2);
  // y rounds (with 0.499999) to a row outside a 50-row image: no association.
  EXPECT_EQ(run(parse("1 10 50.2 0\n", s, 1), 10, 49.500001, 1, 2.0, 50).n, 0);
  EXPECT_EQ(run(parse("1 10 50.2 0\n", s, 1), 10, 49.5, 1, 2.0, 50).n, 1);
  const Match none = run(l, 40, 40, 3);
  EXPECT_EQ(none.n, 0);
  EXPECT_EQ(none.v, std::vector<double>(3, 0.0));  // zeroed
}

TEST(Assoc, TiesGoToTheFirstInYThenFileOrder) {
  AssocSettings s;
  s.data = {1};
  // From (10, 50): entries 1 and 2 at distance 1 on the same y, in file order; entry 3 lower
  // (1.5 away) comes first in SExtractor's order although third in the file; entry 4 higher.
  AssocList l = parse("1 11 50 5\n2 9 50 5\n3 10 48.5 5\n4 10 51.5 7\n", s, 1);
  EXPECT_EQ(run(l, 10, 50, 1).v[0], 1);  // NEAREST: the first of the two nearest, in file order
  EXPECT_EQ(run(l, 10, 50, 1).n, 4);
  l.type = AssocType::First;
  EXPECT_EQ(run(l, 10, 50, 1).v[0], 3);  // the smallest y
  l.type = AssocType::Min;
  EXPECT_EQ(run(l, 10, 50, 1).v[0], 3);  // weights 5, 5, 5: the first in y order
  l.type = AssocType::Max;
  EXPECT_EQ(run(l, 10, 50, 1).v[0], 4);
}

TEST(Assoc, CombiningTypes) {
  AssocSettings s;
  s.data = {4, 6};
  // columns: id x y weight (also copied as data) other data
  const std::string text = "1 10 10 1 20 100\n2 11 10 3 21 300\n3 50 50 1 22 900\n";
  AssocList l = parse(text, s, 2);
  l.type = AssocType::Mean;  // weighted by column 4
  Match m = run(l, 10.5, 10, 2);
  EXPECT_EQ(m.n, 2);
  EXPECT_DOUBLE_EQ(m.v[0], (1 * 1 + 3 * 3) / 4.0);
  EXPECT_DOUBLE_EQ(m.v[1], (100 * 1 + 300 * 3) / 4.0);
  l.type = AssocType::Sum;
  m = run(l, 10.5, 10, 2);
  EXPECT_EQ(m.v[1], 400);
  l.type = AssocType::MagMean;  // weights 10^(-0.4 w) through SExtractor's ln 10
  m = run(l, 10.5, 10, 2);
  const double w1 = std::exp(2.30258509299 * -0.4), w2 = std::exp(2.30258509299 * -1.2);
  EXPECT_DOUBLE_EQ(m.v[1], (100 * w1 + 300 * w2) / (w1 + w2));
  l.type = AssocType::MagSum;  // the data are magnitudes: -2.5 log10 of the summed fluxes
  m = run(l, 10.5, 10, 2);
  EXPECT_DOUBLE_EQ(m.v[0], -2.5 * std::log10(std::exp(2.30258509299 * -0.4 * 1) +
                                             std::exp(2.30258509299 * -0.4 * 3)));
  EXPECT_EQ(m.v[1], 99.0);  // |100| and |300| >= 99: no flux
  // MEAN with weights summing below 1e-30: NUMBER_ASSOC 0, the sums left undivided.
  AssocList z = parse("1 10 10 0 5 7\n2 11 10 0 6 8\n", s, 2);
  z.type = AssocType::Mean;
  z.weight = {2.0, -2.0};
  m = run(z, 10.5, 10, 2);
  EXPECT_EQ(m.n, 0);
  EXPECT_EQ(m.v[1], 2.0 * 7 - 2.0 * 8);
}

// Against a brute force over every entry (in y-then-file order) on random lists with ties.
TEST(Assoc, NearestEqualsBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 60);
  std::string text;
  std::vector<double> xs, ys;
  for (int i = 0; i < 400; ++i) {
    double x = std::round(u(rng) * 4) / 4, y = std::round(u(rng) * 2) / 2;  // many equal y
    xs.push_back(x);
    ys.push_back(y);
    text += std::to_string(i + 1) + " " + std::to_string(x) + " " + std::to_string(y) + " 0\n";
  }
  AssocSettings s;
  s.data = {1};
  const AssocList l = parse(text, s, 1);
  std::vector<size_t> order(l.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return l.y[a] < l.y[b]; });
  for (int t = 0; t < 500; ++t) {
    const double x = u(rng), y = u(rng) + 0.5;
    int count = 0;
    double best = 1e30, id = 0;
    for (size_t e : order) {
      const double d = (l.x[e] - x) * (l.x[e] - x) + (l.y[e] - y) * (l.y[e] - y);
      if (d < 9.0) {
        ++count;
        if (d < best) best = d, id = double(e + 1);
      }
    }
    const Match m = run(l, x, y, 1, 3.0, 100);
    ASSERT_EQ(m.n, count);
    ASSERT_EQ(m.v[0], id);
  }
}

TEST(Assoc, KeepRowsRenumbers) {
  Table t;
  t.rows = 4;
  Column number{"NUMBER", "", "", ColumnType::Int32, 1, "%10d", {1, 2, 3, 4}};
  Column vec{"VECTOR_ASSOC", "", "", ColumnType::Float64, 2, "%12.7g", {1, 2, 3, 4, 5, 6, 7, 8}};
  t.columns = {number, vec};
  keep_rows(t, {0, 1, 0, 1});
  EXPECT_EQ(t.rows, 2u);
  EXPECT_EQ(t.columns[0].values, (std::vector<double>{1, 2}));
  EXPECT_EQ(t.columns[1].values, (std::vector<double>{3, 4, 7, 8}));
}

}  // namespace
}  // namespace celeris::extract
