// `--count`: the number of pairs and a histogram of their separations, accumulated chunk by chunk
// or rank by rank (integer counts, so partial counts add up to exactly the whole).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/xmatch.hpp"
#include "count_bins.hpp"

namespace celeris::xmatch {

PairCount::PairCount(double radius, int bins) : radius_arcsec(radius) {
  if (!(radius > 0)) throw Error("count: radius must be > 0");
  if (bins < 1 || bins > 1000000) throw Error("--bins must be in 1..1000000");
  histogram.assign(size_t(bins), 0);
}

void PairCount::add(const Pair& p) {
  ++pairs;
  // Separations lie in [0, radius]; the one at the radius itself (and any rounding above it)
  // belongs to the last bin. The GPU's counting kernel bins by the same rule (count_bins.hpp).
  ++histogram[detail::histogram_bin(p.sep_arcsec, radius_arcsec, histogram.size())];
}

void PairCount::add(const std::vector<Pair>& ps) {
  for (const Pair& p : ps) add(p);
}

void PairCount::merge(const PairCount& o) {
  if (o.histogram.size() != histogram.size() || o.radius_arcsec != radius_arcsec)
    throw Error("count: merging histograms of different bins");
  pairs += o.pairs;
  for (size_t k = 0; k < histogram.size(); ++k) histogram[k] += o.histogram[k];
}

std::string format_count(const PairCount& c) {
  std::string s = "pairs " + std::to_string(c.pairs) + "\n";
  s += "# sep_min_arcsec sep_max_arcsec pairs\n";
  const double nb = double(c.histogram.size());
  char line[128];
  for (size_t k = 0; k < c.histogram.size(); ++k) {
    std::snprintf(line, sizeof line, "%.9g %.9g %llu\n", c.radius_arcsec * double(k) / nb,
                  c.radius_arcsec * double(k + 1) / nb, (unsigned long long)c.histogram[k]);
    s += line;
  }
  return s;
}

}  // namespace celeris::xmatch
