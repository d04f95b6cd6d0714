// Owns the tests' reference PageRank of a graph: algo::pagerank with its default options, its
// scores read out as one double per vertex.
#pragma once

#include <cstdint>
#include <vector>

#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/graph/csr_graph.hpp"

namespace smartarrays::test {

/// The PageRank score of every vertex of g.
inline std::vector<double> ranks_of(const graph::CsrGraph& g) {
  const algo::PageRankResult result = algo::pagerank(g.rbegin(), g.redge(), g.begin());
  std::vector<double> ranks(g.vertices());
  for (std::uint64_t v = 0; v < g.vertices(); ++v) ranks[v] = algo::rank_at(result.ranks, v);
  return ranks;
}

}  // namespace smartarrays::test
