// Owns the translation of an array's placement options into memory regions (docs/topology-and-placement.md): one
// region per replica, each with its policy, nodes and huge pages, validated before any memory is
// touched. Shared by SmartArray's allocation and the placed buffers.
#pragma once

#include <vector>

#include "smartarrays/array/options.hpp"
#include "smartarrays/os/memory_region.hpp"

namespace smartarrays::detail {

/// The regions a placement makes, one per replica.
struct RegionPlan {
  ArrayOptions options;                    ///< the options with the node set resolved
  std::vector<os::RegionOptions> regions;  ///< one per replica
  std::vector<int> replica_nodes;          ///< logical node of each replica, -1 if not one node
};

/// The regions of options' placement on the current topology; throws Error(invalid_argument) for
/// auto options (the adaptive layer's), a node set given to os_default / single_node, or a node that
/// has no memory or is listed twice.
RegionPlan plan_regions(const ArrayOptions& options);

}  // namespace smartarrays::detail
