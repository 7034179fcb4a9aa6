// The median the benchmarks report: of repeated timings, the middle one (the upper middle for an
// even count), 0 for none.
#pragma once

#include <algorithm>
#include <vector>

namespace celeris::bench {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace celeris::bench
