// Internal to src/xmatch/mpi: reading row slices, the shared chunk plan from summed pixel counts,
// and sending every row to the partitions that need it (its own, and those whose margin holds it).
#pragma once

#include <cstdint>
#include <vector>

#include "celeris/xmatch.hpp"
#include "celeris/xmatch_mpi.hpp"

namespace celeris::xmatch::mpi {

// Rows [first, first + points.size()) of a catalog, with their coarse pixels.
struct Slice {
  size_t first = 0;
  SkyPoints points;
  std::vector<int64_t> pix;
};

// This rank's share of the rows (rank r of n: rows [r*N/n, (r+1)*N/n)), read with scan_rows.
Slice read_slice(const PositionSource& src, int rank, int size);
// The slice's pixels at `order` and its rows per pixel.
std::vector<uint64_t> slice_counts(Slice& slice, int order);

// Rows per pixel over all ranks (on every rank), and over the ranks before this one.
struct PixelCounts {
  std::vector<uint64_t> total, before;
};
PixelCounts sum_counts(const std::vector<uint64_t>& mine);

// One partition's rows (PartitionRows, celeris/xmatch.hpp): sends every left row of the slices
// to the partition holding its (pixel, rank) cut, and every right row to each partition whose
// pixels or their neighbours contain its pixel (the margin).
// `right` is null in a self-match (the left slice is also the right one): the left rows are then
// named among the right rows received (PartitionRows::left_in_right) instead of being sent and
// held twice. bounds: split_chunks.
PartitionRows exchange_rows(const Session& session, const ChunkPlan& plan,
                            const std::vector<size_t>& bounds, const Slice& left,
                            const std::vector<uint64_t>& left_before, const Slice* right);

}  // namespace celeris::xmatch::mpi
