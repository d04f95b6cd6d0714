// Owns the node -> replica table of replicated arrays, computed once at allocation so that a read
// costs one table lookup, not a search over the topology.
#include "array/replica_table.hpp"

#include <cstdint>

namespace smartarrays::detail {

std::vector<std::size_t> nearest_replica_table(const std::vector<int>& replica_nodes, const os::Topology& topology) {
  std::vector<std::size_t> table(topology.node_count(), 0);
  for (std::size_t node = 0; node < table.size(); ++node) {
    std::uint32_t best = ~std::uint32_t{0};
    for (std::size_t r = 0; r < replica_nodes.size(); ++r) {
      const std::uint32_t d = topology.distance(node, static_cast<std::size_t>(replica_nodes[r]));
      if (d < best) {
        best = d;
        table[node] = r;
      }
    }
  }
  return table;
}

}  // namespace smartarrays::detail
