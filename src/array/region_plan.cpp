// Owns the translation of a placement into memory regions (region_plan.hpp).
#include "array/region_plan.hpp"

#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::detail {

namespace {

// The node set of interleaved / replicated / partitioned: the given one, checked, or every memory node.
std::vector<int> resolve_node_set(const std::vector<int>& nodes, const os::Topology& topology) {
  if (nodes.empty()) {
    std::vector<int> all = topology.memory_nodes();
    if (all.empty()) throw_error(ErrorCode::os_error, "the topology has no node with memory");
    return all;
  }
  std::vector<bool> seen(topology.node_count(), false);
  for (int node : nodes) {
    topology.check_memory_node(node);
    if (seen[static_cast<std::size_t>(node)]) {
      throw_error(ErrorCode::invalid_argument, "node " + std::to_string(node) + " listed twice in options.nodes");
    }
    seen[static_cast<std::size_t>(node)] = true;
  }
  return nodes;
}

// Auto options are the adaptive layer's to resolve; the array never guesses them.
void check_not_auto(const ArrayOptions& options) {
  if (options.auto_placement || options.auto_bits) {
    throw_error(ErrorCode::invalid_argument, std::string("placement or bits 'auto' is chosen by the adaptive layer: ") +
                                                 "make the array with adapt::make_array (or resolve the options with adapt::resolve)");
  }
}

}  // namespace

RegionPlan plan_regions(const ArrayOptions& options) {
  check_not_auto(options);
  RegionPlan plan;
  plan.options = options;
  const os::Topology& topology = os::topology();
  const Placement placement = options.placement;
  if ((placement == Placement::os_default || placement == Placement::single_node) && !options.nodes.empty()) {
    throw_error(ErrorCode::invalid_argument, std::string("options.nodes applies only to interleaved, replicated and "
                                                         "partitioned placements, not ") +
                                                 to_string(placement));
  }
  const os::HugePages huge = options.huge_pages;
  switch (placement) {
    case Placement::os_default:
      plan.regions.push_back({os::MemoryPolicy::os_default, {}, huge});
      plan.replica_nodes.push_back(-1);
      return plan;
    case Placement::single_node:
      topology.check_memory_node(options.node);
      plan.regions.push_back({os::MemoryPolicy::bind, {options.node}, huge});
      plan.replica_nodes.push_back(options.node);
      return plan;
    case Placement::interleaved:
    case Placement::partitioned: {
      plan.options.nodes = resolve_node_set(options.nodes, topology);
      const auto policy = placement == Placement::interleaved ? os::MemoryPolicy::interleave : os::MemoryPolicy::partition;
      plan.regions.push_back({policy, plan.options.nodes, huge});
      plan.replica_nodes.push_back(plan.options.nodes.size() == 1 ? plan.options.nodes[0] : -1);
      return plan;
    }
    case Placement::replicated:
      plan.options.nodes = resolve_node_set(options.nodes, topology);
      for (int node : plan.options.nodes) {
        plan.regions.push_back({os::MemoryPolicy::bind, {node}, huge});
        plan.replica_nodes.push_back(node);
      }
      return plan;
  }
  throw_error(ErrorCode::invalid_argument,
              "placement " + std::to_string(static_cast<int>(placement)) + " is not a placement (expected 0..4)");
}

}  // namespace smartarrays::detail
