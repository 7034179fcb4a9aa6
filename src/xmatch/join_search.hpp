// Internal: how the join searches (shared by the CPU join, the CUDA join and the GPU count).
#pragma once

#include "celeris/xmatch.hpp"

namespace celeris::xmatch::detail {

// True when phase 2 searches the row's pixel and its 8 neighbours at index_order(o), false for
// the inclusive disc query (Search::Auto: neighbours whenever some order has pixels at least one
// radius wide). Throws when Search::Neighbours is asked for a radius too large for it.
bool neighbour_search(const Options& o);

}  // namespace celeris::xmatch::detail
