// Owns the topology and thread-pinning entry points of the C ABI: argument checks and translation to os::.
#include <cstddef>

#include "capi/guard.hpp"
#include "smartarrays.h"
#include "smartarrays/os/topology.hpp"

namespace {

using smartarrays::capi::guarded;
using smartarrays::capi::guarded_value;
using smartarrays::capi::require;

// The node, checked to exist (Topology::node() alone would throw std::out_of_range, an internal error).
const smartarrays::os::Node& node_of(int32_t node) {
  const smartarrays::os::Topology& topology = smartarrays::os::topology();
  topology.check_node(node);
  return topology.node(static_cast<std::size_t>(node));
}

}  // namespace

extern "C" {

uint32_t sa_topology_nodes(void) {
  return guarded_value<uint32_t>(__func__, 0,
                                 [] { return static_cast<uint32_t>(smartarrays::os::topology().node_count()); });
}

sa_status sa_topology_node_cpus(int32_t node, int32_t* cpus, uint32_t max, uint32_t* count) {
  return guarded(__func__, [&] {
    const smartarrays::os::Node& n = node_of(node);
    if (max > 0) require(cpus, "cpus (with max > 0)");
    require(count, "count");
    for (std::size_t i = 0; i < n.cpus.size() && i < max; ++i) cpus[i] = n.cpus[i];
    *count = static_cast<uint32_t>(n.cpus.size());
  });
}

sa_status sa_topology_node_memory(int32_t node, uint64_t* total_bytes, uint64_t* free_bytes) {
  return guarded(__func__, [&] {
    const smartarrays::os::Node& n = node_of(node);
    require(total_bytes, "total_bytes");
    require(free_bytes, "free_bytes");
    *total_bytes = n.memory_total;
    *free_bytes = n.memory_free;
  });
}

uint32_t sa_topology_distance(int32_t a, int32_t b) {
  return guarded_value<uint32_t>(__func__, 0, [&] {
    node_of(a);
    node_of(b);
    return smartarrays::os::topology().distance(static_cast<std::size_t>(a), static_cast<std::size_t>(b));
  });
}

int32_t sa_topology_is_fake(void) {
  return guarded_value<int32_t>(__func__, 0, [] { return smartarrays::os::topology().is_fake() ? 1 : 0; });
}

sa_status sa_topology_set_fake(const char* spec) {
  return guarded(__func__, [&] {
    require(spec, "spec");
    smartarrays::os::set_fake_topology(spec);
  });
}

int32_t sa_current_node(void) {
  return guarded_value<int32_t>(__func__, -1, [] { return smartarrays::os::current_node(); });
}

sa_status sa_pin_thread_to_node(int32_t node) {
  return guarded(__func__, [&] {
    node_of(node);
    smartarrays::os::pin_current_thread_to_node(node);
  });
}

}  // extern "C"
