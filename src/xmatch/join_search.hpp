// Internal: how the join searches (shared by the CPU join, the CUDA join and the GPU count).
#pragma once

#include "celeris/xmatch.hpp"

namespace celeris::xmatch::detail {

// True when phase 2 searches the row's pixel and its 8 neighbours at index_order(o), false for
// the inclusive disc query (Search::Auto: neighbours whenever some order has pixels at least one
// radius wide). Throws when Search::Neighbours is asked for a radius too large for it.
bool neighbour_search(const Options& o);

// The checks match_pairs (left != nullptr) and self_pairs make before matching, with their
// messages: the radius, every position (sides named "left catalog" / "right catalog", or
// "catalog"), then, when both sides have rows, check_options. Throws Error.
void check_inputs(const SkyPoints* left, const SkyPoints& right, const Options& o);
// The radius and the index order (Options::order and the search method) as the join checks them.
void check_options(const Options& o, bool self);

}  // namespace celeris::xmatch::detail
