// `--count` in one process (count_pairs): on the CPU the pairs are counted and binned without
// being written (count_cpu, all cores over the whole catalogs); on the GPU
// they are counted and binned on the device without being written (count_cuda), the catalogs
// uploaded whole when they fit the device memory, else sorted by coarse pixel and counted in runs
// of HEALPix chunks (count_sorted).
#include <cstdint>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"
#include "count_bins.hpp"
#include "count_cpu.hpp"
#include "join_search.hpp"
#include "sorted_count.hpp"

#ifdef CELERIS_HAVE_CUDA
#include "join_cuda.hpp"
#endif

namespace celeris::xmatch {

namespace {
// The right side of a match: the catalog itself in a self-match (whose `right` is not read).
const SkyPoints& right_of(const SkyPoints& left, const SkyPoints& right, bool self) {
  return self ? left : right;
}
}  // namespace

void count_pairs(const SkyPoints& left, const SkyPoints& right, bool self, const Options& o,
                 PairCount& c) {
  if (o.find != Find::All) throw Error("count_pairs counts --find all only");
  if (c.radius_arcsec != o.radius_arcsec)
    throw Error("count_pairs: the count's radius is not the match's");
  if (resolve_backend(o.backend) != Backend::Cuda) {
    // The join's checks and messages, then its pairs counted (count_cpu.hpp).
    detail::check_inputs(self ? nullptr : &left, right_of(left, right, self), o);
    const SkyPoints& r = right_of(left, right, self);
    if (left.size() == 0 || r.size() == 0) return;
    const std::vector<double> starts =
        detail::chord2_bin_starts(c.radius_arcsec, c.histogram.size());
    std::vector<uint64_t> hist(c.histogram.size(), 0);
    const detail::RowSpan rs{r.ra.data(), r.dec.data(), r.size()};
    const detail::RowSpan ls{left.ra.data(), left.dec.data(), left.size()};
    detail::count_cpu(self ? nullptr : &ls, rs, nullptr, o, starts, hist, o.threads);
    for (size_t b = 0; b < hist.size(); ++b) {
      c.histogram[b] += hist[b];
      c.pairs += hist[b];
    }
    return;
  }
#ifndef CELERIS_HAVE_CUDA
  throw Error("celeris was built without the CUDA backend");
#else
  const SkyPoints& r = self ? left : right;
  // Every position validated (as match_pairs does) before anything goes to the device.
  const int corder = chunk_order(o);
  pixel_counts(*memory_positions(left), corder, self ? "catalog" : "left catalog");
  if (!self) pixel_counts(*memory_positions(r), corder, "right catalog");
  if (left.size() == 0 || r.size() == 0) return;
  const size_t budget = detail::cuda_budget(o.device_memory);
  if (detail::cuda_count_bytes(left.size(), r.size(), self) <= budget) {
    const std::vector<double> starts =
        detail::chord2_bin_starts(c.radius_arcsec, c.histogram.size());
    std::vector<uint64_t> hist(c.histogram.size(), 0);
    detail::count_cuda(self ? nullptr : &left, nullptr, r, nullptr, self, index_order(o),
                       detail::neighbour_search(o),
                       o.radius_arcsec * healpix::pi / (180.0 * 3600.0), starts, hist);
    for (size_t b = 0; b < hist.size(); ++b) {
      c.histogram[b] += hist[b];
      c.pairs += hist[b];
    }
    return;
  }
  // Larger than the device: both catalogs sorted by coarse pixel (16 B + 4 B a row on the host),
  // counted in runs of chunks uploaded straight from the sorted arrays (sorted_count.hpp).
  const PixelSorted ls = pixel_sorted(left, corder, self ? "catalog" : "left catalog");
  if (self) {
    count_sorted(ls, nullptr, o, c);
  } else {
    const PixelSorted rs = pixel_sorted(r, corder, "right catalog");
    count_sorted(ls, &rs, o, c);
  }
#endif
}

}  // namespace celeris::xmatch
