// Internal to src/xmatch/mpi: results to rank 0.
#pragma once

#include <vector>

#include "celeris/xmatch.hpp"
#include "celeris/xmatch_mpi.hpp"
#include "collective.hpp"

namespace celeris::xmatch::mpi {

// Every rank's `mine` appended to rank 0's `all` (one round: each rank's next chunk; called by
// every rank); `mine` is emptied. Rank 0 running out of memory fails the job as a whole.
void gather_more_pairs(const Session& session, std::vector<Pair>& mine, std::vector<Pair>& all);
// The gathered pairs sorted by (i, j).
void sort_gathered_pairs(std::vector<Pair>& all);
// The sum of every rank's counts, on rank 0 (other ranks get their own back).
PairCount reduce_count(const Session& session, const PairCount& mine);
// The largest time of each phase over the ranks (on every rank).
PhaseTimes slowest(const PhaseTimes& times);

}  // namespace celeris::xmatch::mpi
