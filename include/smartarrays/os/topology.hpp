// Owns the machine's NUMA topology as the library sees it: nodes, their usable CPUs and memory,
// distances, the calling thread's node, and the injectable fake topology (SMARTARRAYS_TOPOLOGY).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/export.hpp"

namespace smartarrays::os {

/// One NUMA node as the library uses it (logical ids are dense: 0..node_count()-1).
struct Node {
  int id = 0;                    ///< logical node id
  int os_node = 0;               ///< kernel node that backs this node's memory (differs only when fake)
  std::vector<int> cpus;         ///< usable CPUs: the node's cpulist intersected with the affinity mask
  std::uint64_t memory_total = 0;  ///< bytes of memory on the node (0 for a memoryless node)
  std::uint64_t memory_free = 0;   ///< bytes free when the topology was read
};

/// A range of positions [begin, end) whose data lies on one logical node (node -1: on no single
/// node). The array layer reports its partitions in this form and the runtime's loops take it as
/// their layout and their per-node parts, so a loop is cut along an array's stripes with no
/// translation between the layers.
struct NodeRange {
  int node = -1;            ///< logical node holding the range's data, -1 when not one node
  std::uint64_t begin = 0;  ///< first position
  std::uint64_t end = 0;    ///< one past the last position
};

/// An immutable snapshot of the topology: real (sysfs ∩ affinity) or fake (from a spec).
class SMARTARRAYS_API Topology {
 public:
  /// Reads /sys/devices/system/node and intersects CPUs with the process affinity mask.
  static Topology from_system();
  /// Builds a fake topology from a spec ("nodes=N" or "cpus=0-1;2-3;;4") over a real one.
  static Topology from_spec(std::string_view spec, const Topology& real);
  /// Builds a real (non-fake) topology from parts: ids must be 0..n-1; distances n*n row-major,
  /// or empty for 10 local / 20 remote. CPU lists are sorted and deduplicated. For tests and tools.
  static Topology from_nodes(std::vector<Node> nodes, std::vector<std::uint32_t> distances = {});

  /// Number of logical nodes.
  std::size_t node_count() const noexcept { return nodes_.size(); }
  /// Node i (0 <= i < node_count()).
  const Node& node(std::size_t i) const { return nodes_.at(i); }
  /// All nodes in id order.
  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  /// SLIT distance between two logical nodes (10 = local).
  std::uint32_t distance(std::size_t from, std::size_t to) const;
  /// True when injected by spec rather than read from the machine.
  bool is_fake() const noexcept { return fake_; }
  /// The spec a fake topology was built from ("" when real).
  const std::string& spec() const noexcept { return spec_; }
  /// First logical node whose CPU list holds cpu, or -1.
  int node_of_cpu(int cpu) const noexcept;
  /// Every usable CPU, ascending, without duplicates.
  std::vector<int> all_cpus() const;
  /// Logical ids of nodes that have memory.
  std::vector<int> memory_nodes() const;
  /// Logical ids of nodes that have usable CPUs.
  std::vector<int> cpu_nodes() const;
  /// Throws Error(invalid_argument) unless node is a logical node ("node 5 does not exist ...").
  void check_node(long long node) const;
  /// Throws Error(invalid_argument) unless node is a logical node with memory.
  void check_memory_node(int node) const;

 private:
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> distances_;  // node_count() x node_count(), row-major
  std::vector<int> cpu_to_node_;          // first node of each CPU (-1 = none): current_node() is O(1)
  bool fake_ = false;
  std::string spec_;
};

/// The process-wide topology: SMARTARRAYS_TOPOLOGY if set, else the system's; read once, thread-safe.
/// The reference stays valid for the life of the process, even after set_fake_topology().
SMARTARRAYS_API const Topology& topology();

/// Replaces the process-wide topology with a fake one built from spec; "" restores the real one.
/// Meant for tests and tools; call it while no other thread uses the library.
SMARTARRAYS_API void set_fake_topology(std::string_view spec);

/// The calling thread's logical node: the node it was pinned to through this library (remembered
/// per thread, forgotten when set_fake_topology() replaces the topology), else the node of the CPU it
/// runs on now (sched_getcpu and a table read; a CPU outside the topology counts as node 0).
SMARTARRAYS_API int current_node();

/// Pins the calling thread to the usable CPUs of a logical node; current_node() then returns node.
SMARTARRAYS_API void pin_current_thread_to_node(int node);

/// Pins the calling thread to one CPU; current_node() becomes that CPU's (first) node.
SMARTARRAYS_API void pin_current_thread_to_cpu(int cpu);

/// Restores the calling thread's affinity to every usable CPU and forgets its pinned node.
SMARTARRAYS_API void unpin_current_thread();

/// The CPU the calling thread runs on now (sched_getcpu).
SMARTARRAYS_API int current_cpu();

}  // namespace smartarrays::os
