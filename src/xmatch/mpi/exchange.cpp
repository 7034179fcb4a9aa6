// Moving results to rank 0: every rank's pairs (in batches, as one rank may hold more pairs than
// an MPI count can say), or the integer counts of --count.
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

std::vector<Pair> gather_pairs(const Session& s, std::vector<Pair> mine) {
  uint64_t n = mine.size();
  std::vector<uint64_t> counts(size_t(s.size()), 0);
  MPI_Gather(&n, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::vector<Pair> all;
  // Rank 0 allocates before any pair moves, so that running out of memory fails the job as a
  // whole instead of leaving the senders blocked.
  collectively(s, "gathering the pairs on rank 0", [&] {
    if (s.rank() != 0) return;
    uint64_t total = 0;
    for (uint64_t c : counts) total += c;
    mine.reserve(total);
  });
  if (s.rank() == 0) {
    all = std::move(mine);
    for (int r = 1; r < s.size(); ++r) {
      const size_t at = all.size();
      all.resize(at + counts[size_t(r)]);
      for (uint64_t done = 0; done < counts[size_t(r)]; done += kBatchPairs) {
        const uint64_t k = std::min(kBatchPairs, counts[size_t(r)] - done);
        MPI_Recv(all.data() + at + done, int(k * sizeof(Pair)), MPI_BYTE, r, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
    }
    // Each rank's pairs are sorted by (i, j), but the ranks' left rows interleave.
    __gnu_parallel::sort(all.begin(), all.end(), order::by_ij);
  } else {
    for (uint64_t done = 0; done < n; done += kBatchPairs) {
      const uint64_t k = std::min(kBatchPairs, n - done);
      MPI_Send(mine.data() + done, int(k * sizeof(Pair)), MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return all;
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
