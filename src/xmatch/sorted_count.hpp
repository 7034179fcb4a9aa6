// `--count` of catalogs held in host memory, sorted once by coarse HEALPix pixel (issue 20: the
// 1.23 B-row self-match). PartitionChunks buckets row numbers and gathers each run's rows (and
// their global row numbers) into copies before uploading them; here the positions themselves are
// put in pixel order by one parallel counting sort, so that
//   * a run of chunks' left rows is one contiguous range of the sorted left catalog (chunks are
//     intervals of (pixel, rank)), and its right rows are the few contiguous ranges of the sorted
//     right catalog that its margin pixels (the chunks' pixels and their neighbours) make up;
//   * the GPU uploads those ranges straight from the sorted arrays (no host copy), and in a
//     self-match the left rows are a range of the uploaded right rows, uploaded once;
//   * no row numbers travel: a self-match counts the pair (a, b) of sorted rows once, when b's
//     place in the sorted catalog is after a's. The ranges are taken in ascending order, so a
//     row's place in the run is in the same order as its place in the catalog; any order of the
//     rows counts each unordered pair once, so the counts equal those of self_pairs (i < j).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "celeris/xmatch.hpp"

namespace celeris::xmatch {

// Host memory for a column, released with std::free (sorted_count.cpp allocates it on 2 MB pages
// where the kernel allows and never zeroes it: the sort's threads fault its pages in as they
// write, where std::vector would first zero gigabytes on one thread).
struct FreeDeleter {
  void operator()(void* p) const;
};
template <class T>
using HostColumn = std::unique_ptr<T[], FreeDeleter>;

// A catalog's positions in (coarse NESTED pixel, row) order: the rows of pixel p are
// [start[p], start[p + 1]), in catalog row order within a pixel.
struct PixelSorted {
  int order = 0;
  std::vector<uint64_t> start;  // npix(order) + 1
  size_t n = 0;
  HostColumn<double> ra, dec;  // n each
  size_t size() const { return n; }
};

// The positions of `s` sorted by their pixel at `order` (0..7): pixels computed once, in
// parallel, then a parallel stable counting sort (counting_sort.hpp) scatters RA and Dec into
// place. Peak memory beside `s`: 16 B (the sorted copy) + 4 B (pixels) a row, plus one pixel
// histogram (8 B a pixel) per thread. Throws on a NaN or out-of-range position, naming `side`
// and the (1-based) row, as pixel_counts does.
// Seconds of pixel_sorted's two steps.
struct PixelSortTimes {
  double pixels = 0;   // validation and the pixel of every row
  double scatter = 0;  // the counting sort: histograms, prefix sums, RA/Dec scattered
};
PixelSorted pixel_sorted(const SkyPoints& s, int order, const char* side = "catalog",
                         PixelSortTimes* times = nullptr);

// Seconds per phase of count_sorted (summed over runs) and the shape of the runs.
struct SortedCountStats {
  size_t runs = 0;
  size_t peak_rows = 0;        // largest run: left rows (0 in a self-match) + right rows
  double stage_seconds = 0;    // unused (0): the CPU copies a run's rows inside its thread's
                               // count (join_seconds); the GPU uploads from the sorted arrays
  double join_seconds = 0;     // upload, index and count (GPU), or copy, index and count (CPU)
  double upload_index_ms = 0;  // GPU: of join_seconds, the upload + index (device events)
  double count_ms = 0;         // GPU: of join_seconds, the counting kernel
};

// Adds to `count` the pairs of match_pairs(left, right) (right == nullptr: the self-match of
// `left`, each pair of distinct rows once), options.find == All, both sides sorted at
// chunk_order(options). The same counts as count.add(match_pairs(...)) / count.add(self_pairs())
// on the unsorted catalogs, bin for bin. The rows are matched in runs of HEALPix chunks
// (plan_chunks): on the GPU (options.backend) runs that fit the device budget
// (Options::device_memory), uploaded range by range and counted there (count_cuda_ranges); on the
// CPU runs of about `run_bytes` (chunk_bytes_per_*_row; 0: 32 MiB), a run a thread, each counted
// by count_cpu (count_cpu.hpp: no pair written). `run_bytes` on the GPU, when set, caps the device
// budget (tests: many runs).
void count_sorted(const PixelSorted& left, const PixelSorted* right, const Options& options,
                  PairCount& count, SortedCountStats* stats = nullptr, size_t run_bytes = 0);

// A part of a self-match (an MPI rank's share, each rank holding only its pixels and their
// margins): the pairs whose lower row (in (pixel, row) order) lies in pixels [first_pix,
// end_pix) at the chunk order, counted as count_sorted(rows, nullptr) would count them. `rows`
// must hold every row of those pixels and of their neighbours (and may hold others: only pairs
// with a row of the part count); rows the whole catalog, sorted the same way, would hold. The
// parts of a cut of [0, npix) into ranges, summed, give count_sorted's count of the whole.
void count_sorted_part(const PixelSorted& rows, int64_t first_pix, int64_t end_pix,
                       const Options& options, PairCount& count, SortedCountStats* stats = nullptr,
                       size_t run_bytes = 0);

}  // namespace celeris::xmatch
