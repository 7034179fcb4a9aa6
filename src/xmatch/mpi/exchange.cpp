// Moving results to rank 0: every rank's pairs, a chunk at a time (in messages of at most 2^25
// pairs, as one chunk may hold more pairs than an MPI count can say), or the integer counts of
// --count.
#include "exchange.hpp"

#include <mpi.h>

#include <algorithm>
#include <parallel/algorithm>

#include "pair_order.hpp"

namespace celeris::xmatch::mpi {

namespace {

// Pairs per message: 2^25 pairs are 768 MiB, below the 2^31 bytes an MPI count can hold.
constexpr uint64_t kBatchPairs = uint64_t(1) << 25;
static_assert(sizeof(Pair) == 24, "Pair is sent as 24 raw bytes");

}  // namespace

void gather_more_pairs(const Session& s, std::vector<Pair>& mine, std::vector<Pair>& all) {
  uint64_t n = mine.size();
  std::vector<uint64_t> counts(size_t(s.size()), 0);
  MPI_Gather(&n, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  // Rank 0 allocates before any pair moves, so that running out of memory fails the job as a
  // whole instead of leaving the senders blocked. Growth by half at least, as push_back would.
  collectively(s, "gathering the pairs on rank 0", [&] {
    if (s.rank() != 0) return;
    uint64_t total = all.size();
    for (uint64_t c : counts) total += c;
    if (total > all.capacity()) all.reserve(std::max<uint64_t>(total, all.capacity() * 3 / 2));
  });
  if (s.rank() == 0) {
    all.insert(all.end(), mine.begin(), mine.end());
    for (int r = 1; r < s.size(); ++r) {
      const size_t at = all.size();
      all.resize(at + counts[size_t(r)]);
      for (uint64_t done = 0; done < counts[size_t(r)]; done += kBatchPairs) {
        const uint64_t k = std::min(kBatchPairs, counts[size_t(r)] - done);
        MPI_Recv(all.data() + at + done, int(k * sizeof(Pair)), MPI_BYTE, r, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
    }
  } else {
    for (uint64_t done = 0; done < n; done += kBatchPairs) {
      const uint64_t k = std::min(kBatchPairs, n - done);
      MPI_Send(mine.data() + done, int(k * sizeof(Pair)), MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  mine = std::vector<Pair>();
}

void sort_gathered_pairs(std::vector<Pair>& all) {
  // Each chunk's pairs are sorted by (i, j), but the chunks' left rows interleave.
  __gnu_parallel::sort(all.begin(), all.end(), order::by_ij);
}

PairCount reduce_count(const Session& s, const PairCount& mine) {
  PairCount total = mine;
  std::vector<uint64_t> v(mine.histogram);
  v.push_back(mine.pairs);
  std::vector<uint64_t> sum(v.size(), 0);
  MPI_Reduce(v.data(), sum.data(), int(v.size()), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (s.rank() == 0) {
    total.pairs = sum.back();
    sum.pop_back();
    total.histogram = sum;
  }
  return total;
}

PhaseTimes slowest(const PhaseTimes& t) {
  double v[7] = {t.read, t.partition, t.gather, t.join, t.exchange, t.select, t.write};
  double m[7];
  MPI_Allreduce(v, m, 7, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return PhaseTimes{m[0], m[1], m[2], m[3], m[4], m[5], m[6]};
}

}  // namespace celeris::xmatch::mpi
