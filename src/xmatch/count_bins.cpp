// Histogram bins of `--count` (count_bins.hpp): the host's binning, and its edges as squared
// chords for the GPU's counting kernel.
#include "count_bins.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "celeris/healpix.hpp"

namespace celeris::xmatch::detail {

namespace hp = celeris::healpix;

namespace {

constexpr double kArcsec = hp::pi / (180.0 * 3600.0);

double from_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

uint64_t to_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

}  // namespace

size_t histogram_bin(double sep_arcsec, double radius_arcsec, size_t bins) {
  const double nb = double(bins);
  const double b = std::floor(sep_arcsec / radius_arcsec * nb);
  return b < 0 ? 0 : b >= nb ? bins - 1 : size_t(b);
}

size_t chord2_bin(double c2, double radius_arcsec, size_t bins) {
  // The separation exactly as the CPU join writes it (join.cpp).
  return histogram_bin(hp::angle_of_chord2(c2) / kArcsec, radius_arcsec, bins);
}

std::vector<double> chord2_bin_starts(double radius_arcsec, size_t bins) {
  std::vector<double> starts;
  if (bins < 2) return starts;
  starts.reserve(bins - 1);
  // Chords beyond 4 (antipodes) do not occur; every bin is reached at or below it.
  const uint64_t top = to_bits(4.0) + 1;
  uint64_t lo = 0;  // the previous start: starts ascend
  for (size_t k = 1; k < bins; ++k) {
    uint64_t a = lo, b = top;  // smallest bit pattern in [a, b) with bin >= k; b: none
    while (a < b) {
      const uint64_t mid = a + (b - a) / 2;
      if (chord2_bin(from_bits(mid), radius_arcsec, bins) >= k)
        b = mid;
      else
        a = mid + 1;
    }
    starts.push_back(a >= top ? std::numeric_limits<double>::infinity() : from_bits(a));
    lo = a >= top ? top : a;
  }
  return starts;
}

}  // namespace celeris::xmatch::detail
