// `--count` in one process (count_pairs): on the CPU the pairs are matched and binned; on the GPU
// they are counted and binned on the device without being written (count_cuda), the catalogs
// uploaded whole when they fit the device memory, else in runs of HEALPix chunks
// (PartitionChunks::count over one partition holding every row).
#include <cstdint>
#include <numeric>
#include <vector>

#include "celeris/error.hpp"
#include "celeris/healpix.hpp"
#include "celeris/xmatch.hpp"
#include "count_bins.hpp"
#include "join_search.hpp"

#ifdef CELERIS_HAVE_CUDA
#include "join_cuda.hpp"
#endif

namespace celeris::xmatch {

void count_pairs(const SkyPoints& left, const SkyPoints& right, bool self, const Options& o,
                 PairCount& c) {
  if (o.find != Find::All) throw Error("count_pairs counts --find all only");
  if (c.radius_arcsec != o.radius_arcsec)
    throw Error("count_pairs: the count's radius is not the match's");
  if (resolve_backend(o.backend) != Backend::Cuda) {
    c.add(self ? self_pairs(left, o) : match_pairs(left, right, o));
    return;
  }
#ifndef CELERIS_HAVE_CUDA
  throw Error("celeris was built without the CUDA backend");
#else
  const SkyPoints& r = self ? left : right;
  // Every position validated (as match_pairs does), and counted per coarse pixel for the plan.
  const int corder = chunk_order(o);
  const auto lsrc = memory_positions(left);
  std::vector<uint64_t> lc = pixel_counts(*lsrc, corder, self ? "catalog" : "left catalog");
  std::vector<uint64_t> rc =
      self ? lc : pixel_counts(*memory_positions(r), corder, "right catalog");
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
  // Larger than the device: one partition holding every row, counted in runs of chunks. The plan's
  // chunks are cut at a quarter of the device budget (in chunk_bytes_per_*_row) so that runs of
  // them fill the device.
  PartitionRows rows;
  rows.right = r;
  rows.right_rows.resize(r.size());
  std::iota(rows.right_rows.begin(), rows.right_rows.end(), int64_t(0));
  if (self) {
    if (r.size() > size_t(UINT32_MAX)) throw Error("a catalog of more than 2^32 rows");
    rows.left_in_right.resize(r.size());
    std::iota(rows.left_in_right.begin(), rows.left_in_right.end(), uint32_t(0));
  } else {
    rows.left = left;
    rows.left_rows.resize(left.size());
    std::iota(rows.left_rows.begin(), rows.left_rows.end(), int64_t(0));
  }
  const size_t least = min_chunk_bytes(corder, lc, rc);
  const ChunkPlan plan =
      plan_chunks(corder, std::move(lc), std::move(rc), self, std::max(least, budget / 4));
  PartitionChunks chunks(rows, plan, 0, plan.chunks.size(), o);
  chunks.count(c);
#endif
}

}  // namespace celeris::xmatch
