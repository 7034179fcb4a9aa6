// After the join: which pairs to keep (find) and which rows to output (join), in the words of
// STILTS tmatch2, plus the option parsers.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/xmatch.hpp"
#include "pair_order.hpp"

namespace celeris::xmatch {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// For every key row, the closest pair among those whose key is the row (`less`: grouped by the
// key, closest first).
template <class Key, class Less>
std::vector<Pair> nearest_per(std::vector<Pair> sorted, Key key, Less less) {
  std::vector<Pair> best;
  std::sort(sorted.begin(), sorted.end(), less);
  for (size_t k = 0; k < sorted.size(); ++k)
    if (k == 0 || key(sorted[k]) != key(sorted[k - 1])) best.push_back(sorted[k]);
  std::sort(best.begin(), best.end(), order::by_ij);
  return best;
}

int64_t left_key(const Pair& p) {
  return p.i;
}
int64_t right_key(const Pair& p) {
  return p.j;
}

// A self-match's nearest other row of every row, as (row, other): every pair counts in both
// orientations.
std::vector<Pair> nearest_of_every_row(const std::vector<Pair>& pairs) {
  std::vector<Pair> both;
  both.reserve(2 * pairs.size());
  for (const Pair& p : pairs) {
    both.push_back(p);
    both.push_back(Pair{p.j, p.i, p.sep_arcsec});
  }
  return nearest_per(std::move(both), left_key, order::by_i_then_closer);
}

}  // namespace

Find parse_find(const std::string& s) {
  const std::string v = lower(s);
  if (v == "all") return Find::All;
  if (v == "best") return Find::Best;
  if (v == "greedy") return Find::Greedy;
  if (v == "best1") return Find::Best1;
  if (v == "best2") return Find::Best2;
  throw Error("unknown --find '" + s + "' (all|best|greedy|best1|best2)");
}

Join parse_join(const std::string& s) {
  const std::string v = lower(s);
  if (v == "1and2") return Join::And;
  if (v == "1or2") return Join::Or;
  if (v == "all1") return Join::All1;
  if (v == "all2") return Join::All2;
  if (v == "1not2") return Join::Not2;
  if (v == "2not1") return Join::Not1;
  throw Error("unknown --join '" + s + "' (1and2|1or2|all1|all2|1not2|2not1)");
}

Search parse_search(const std::string& s) {
  const std::string v = lower(s);
  if (v == "auto") return Search::Auto;
  if (v == "neighbours" || v == "neighbors") return Search::Neighbours;
  if (v == "disc" || v == "disk") return Search::Disc;
  throw Error("unknown --search '" + s + "' (auto|neighbours|disc)");
}

double parse_radius_arcsec(const std::string& s) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (const std::exception&) {
    throw Error("bad radius '" + s + "' (e.g. 2arcsec, 1.5arcmin, 0.1deg)");
  }
  std::string unit = lower(s.substr(pos));
  unit.erase(
      std::remove_if(unit.begin(), unit.end(), [](unsigned char c) { return std::isspace(c); }),
      unit.end());
  double scale = 0;
  if (unit.empty() || unit == "arcsec" || unit == "as" || unit == "\"")
    scale = 1;
  else if (unit == "arcmin" || unit == "am" || unit == "'")
    scale = 60;
  else if (unit == "deg" || unit == "d" || unit == "degree" || unit == "degrees")
    scale = 3600;
  else if (unit == "mas")
    scale = 1e-3;
  else
    throw Error("bad radius unit '" + unit + "' in '" + s + "' (arcsec, arcmin, deg, mas)");
  if (!std::isfinite(v) || v <= 0) throw Error("radius must be > 0 (got '" + s + "')");
  return v * scale;
}

std::vector<Pair> select_pairs(std::vector<Pair> pairs, Find find, bool self, size_t n_left,
                               size_t n_right) {
  switch (find) {
    case Find::All:
      return pairs;
    case Find::Best1:
    case Find::Best2:
      if (self) return nearest_of_every_row(pairs);
      if (find == Find::Best1)
        return nearest_per(std::move(pairs), left_key, order::by_i_then_closer);
      return nearest_per(std::move(pairs), right_key, order::by_j_then_closer);
    case Find::Best: {
      if (self) {
        // Mutually nearest: (r, o) and (o, r) both among the rows' nearest pairs.
        std::vector<Pair> nearest = nearest_of_every_row(pairs), kept;
        for (Pair& p : nearest)
          if (p.i > p.j) std::swap(p.i, p.j);
        std::sort(nearest.begin(), nearest.end(), order::by_ij);
        for (size_t k = 1; k < nearest.size(); ++k)
          if (nearest[k].i == nearest[k - 1].i && nearest[k].j == nearest[k - 1].j)
            kept.push_back(nearest[k]);
        return kept;
      }
      // STILTS (RowMatcher.eliminateMultipleRowEntries on the pairs of its scan of the larger
      // table, each row's nearest): nearest per row of the larger side, then per row of the other.
      if (n_left >= n_right)
        return nearest_per(nearest_per(std::move(pairs), left_key, order::by_i_then_closer),
                           right_key, order::by_j_then_closer);
      return nearest_per(nearest_per(std::move(pairs), right_key, order::by_j_then_closer),
                         left_key, order::by_i_then_closer);
    }
    case Find::Greedy: {
      std::sort(pairs.begin(), pairs.end(), order::closer);
      int64_t ni = 0, nj = 0;
      for (const Pair& p : pairs) {
        ni = std::max(ni, p.i + 1);
        nj = std::max(nj, p.j + 1);
      }
      order::GreedyBest greedy(size_t(ni), size_t(nj), self);
      std::vector<Pair> kept;
      for (const Pair& p : pairs)
        if (greedy.take(p)) kept.push_back(p);
      std::sort(kept.begin(), kept.end(), order::by_ij);
      return kept;
    }
  }
  return pairs;
}

std::vector<Pair> join_rows(const std::vector<Pair>& pairs, size_t n_left, size_t n_right,
                            Join join, bool self) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<char> m1(n_left, 0), m2(n_right, 0);
  for (const Pair& p : pairs) {
    m1[p.i] = 1;
    m2[p.j] = 1;
    if (self) m1[p.j] = m2[p.i] = 1;
  }
  if (self && join != Join::And && join != Join::All1 && join != Join::Not2)
    throw Error("a self-match supports --join 1and2, all1 or 1not2 only");
  std::vector<Pair> out;
  const bool with_pairs = join != Join::Not1 && join != Join::Not2;
  const bool blank1 = join == Join::Or || join == Join::All1 || join == Join::Not2;
  const bool blank2 = !self && (join == Join::Or || join == Join::All2 || join == Join::Not1);
  size_t k = 0;
  for (size_t i = 0; i < n_left; ++i) {
    if (blank1 && !m1[i]) out.push_back(Pair{int64_t(i), -1, nan});
    for (; k < pairs.size() && pairs[k].i == int64_t(i); ++k)
      if (with_pairs) out.push_back(pairs[k]);
  }
  if (blank2)
    for (size_t j = 0; j < n_right; ++j)
      if (!m2[j]) out.push_back(Pair{-1, int64_t(j), nan});
  return out;
}

std::vector<Pair> crossmatch(const SkyPoints& left, const SkyPoints& right, const Options& o) {
  std::vector<Pair> pairs =
      select_pairs(match_pairs(left, right, o), o.find, false, left.size(), right.size());
  return join_rows(pairs, left.size(), right.size(), o.join, false);
}

std::vector<Pair> self_crossmatch(const SkyPoints& points, const Options& o) {
  if (o.join != Join::And && o.join != Join::All1 && o.join != Join::Not2)
    throw Error("a self-match supports --join 1and2, all1 or 1not2 only");
  std::vector<Pair> pairs =
      select_pairs(self_pairs(points, o), o.find, true, points.size(), points.size());
  return join_rows(pairs, points.size(), points.size(), o.join, true);
}

}  // namespace celeris::xmatch
