// Internal to src/xmatch/mpi: results to rank 0.
#pragma once

#include <vector>

#include "celeris/xmatch.hpp"
#include "celeris/xmatch_mpi.hpp"
#include "collective.hpp"

namespace celeris::xmatch::mpi {

// Every rank's pairs (each sorted by (i, j)) on rank 0, sorted by (i, j); empty on other ranks.
std::vector<Pair> gather_pairs(const Session& session, std::vector<Pair> mine);
// The sum of every rank's counts, on rank 0 (other ranks get their own back).
PairCount reduce_count(const Session& session, const PairCount& mine);
// The largest time of each phase over the ranks (on every rank).
PhaseTimes slowest(const PhaseTimes& times);

}  // namespace celeris::xmatch::mpi
