// Owns the choice of the replica that serves each node: its own replica, else the nearest one.
// Internal (not installed); tests reach it through the static library.
#pragma once

#include <cstddef>
#include <vector>

#include "smartarrays/os/topology.hpp"

namespace smartarrays::detail {

/// For each logical node of topology, the index into replica_nodes of the replica at the smallest
/// SLIT distance (its own node's at 10 when there is one; the first such replica on ties).
std::vector<std::size_t> nearest_replica_table(const std::vector<int>& replica_nodes, const os::Topology& topology);

}  // namespace smartarrays::detail
