// PositionSource's default row-slice and region scans (the interface is in
// include/celeris/xmatch.hpp): kept apart from the chunk plan so that the catalog readers link
// without it (tests/fuzz).
#include <algorithm>

#include "celeris/xmatch.hpp"

namespace celeris::xmatch {

void PositionSource::scan_rows(size_t first, size_t count, const Visit& visit) const {
  const size_t end = first + count;
  scan([&](size_t b, const double* ra, const double* dec, size_t n) {
    const size_t lo = std::max(b, first), hi = std::min(b + n, end);
    if (lo < hi) visit(lo, ra + (lo - b), dec + (lo - b), hi - lo);
  });
}

void PositionSource::scan_pixels(int, const std::vector<uint8_t>&, const Visit& visit) const {
  scan(visit);
}

}  // namespace celeris::xmatch
