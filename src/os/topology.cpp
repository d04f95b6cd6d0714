// Owns the Topology snapshot itself: assembling it from parts, reading the real one, and the
// queries every layer asks of it.
#include "smartarrays/os/topology.hpp"

#include <algorithm>
#include <string>

#include "os/affinity.hpp"
#include "os/sysfs_topology.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::os {
namespace {

constexpr std::uint32_t kLocalDistance = 10;
constexpr std::uint32_t kRemoteDistance = 20;

}  // namespace

Topology Topology::from_nodes(std::vector<Node> nodes, std::vector<std::uint32_t> distances) {
  const std::size_t n = nodes.size();
  if (n == 0) throw_error(ErrorCode::invalid_argument, "a topology needs at least one node");
  for (std::size_t i = 0; i < n; ++i) {
    Node& node = nodes[i];
    if (node.id != static_cast<int>(i)) {
      throw_error(ErrorCode::invalid_argument, "node at position " + std::to_string(i) + " has id " +
                                                   std::to_string(node.id) + "; ids must be 0.." +
                                                   std::to_string(n - 1) + " in order");
    }
    if (node.os_node < 0) {
      throw_error(ErrorCode::invalid_argument,
                  "node " + std::to_string(i) + " has kernel node " + std::to_string(node.os_node));
    }
    std::sort(node.cpus.begin(), node.cpus.end());
    node.cpus.erase(std::unique(node.cpus.begin(), node.cpus.end()), node.cpus.end());
    if (!node.cpus.empty() && node.cpus.front() < 0) {
      throw_error(ErrorCode::invalid_argument,
                  "node " + std::to_string(i) + " lists cpu " + std::to_string(node.cpus.front()));
    }
  }
  if (distances.empty()) {
    distances.assign(n * n, kRemoteDistance);
    for (std::size_t i = 0; i < n; ++i) distances[i * n + i] = kLocalDistance;
  } else if (distances.size() != n * n) {
    throw_error(ErrorCode::invalid_argument, "distance table has " + std::to_string(distances.size()) +
                                                 " entries, " + std::to_string(n) + " nodes need " +
                                                 std::to_string(n * n));
  }

  Topology topology;
  topology.nodes_ = std::move(nodes);
  topology.distances_ = std::move(distances);
  for (const Node& node : topology.nodes_) {
    for (int cpu : node.cpus) {
      if (topology.cpu_to_node_.size() <= static_cast<std::size_t>(cpu)) {
        topology.cpu_to_node_.resize(static_cast<std::size_t>(cpu) + 1, -1);
      }
      int& owner = topology.cpu_to_node_[static_cast<std::size_t>(cpu)];
      if (owner < 0) owner = node.id;
    }
  }
  return topology;
}

Topology Topology::from_system() { return read_sysfs_topology(SysfsPaths{}, process_affinity()); }

std::uint32_t Topology::distance(std::size_t from, std::size_t to) const {
  check_node(static_cast<long long>(from));
  check_node(static_cast<long long>(to));
  return distances_[from * nodes_.size() + to];
}

int Topology::node_of_cpu(int cpu) const noexcept {
  if (cpu < 0 || static_cast<std::size_t>(cpu) >= cpu_to_node_.size()) return -1;
  return cpu_to_node_[static_cast<std::size_t>(cpu)];
}

std::vector<int> Topology::all_cpus() const {
  std::vector<int> cpus;
  for (std::size_t cpu = 0; cpu < cpu_to_node_.size(); ++cpu) {
    if (cpu_to_node_[cpu] >= 0) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

std::vector<int> Topology::memory_nodes() const {
  std::vector<int> ids;
  for (const Node& node : nodes_) {
    if (node.memory_total > 0) ids.push_back(node.id);
  }
  return ids;
}

std::vector<int> Topology::cpu_nodes() const {
  std::vector<int> ids;
  for (const Node& node : nodes_) {
    if (!node.cpus.empty()) ids.push_back(node.id);
  }
  return ids;
}

void Topology::check_node(long long node) const {
  const std::size_t n = nodes_.size();
  if (node < 0 || static_cast<unsigned long long>(node) >= n) {
    throw_error(ErrorCode::invalid_argument, "node " + std::to_string(node) + " does not exist (topology has " +
                                                 std::to_string(n) + (n == 1 ? " node)" : " nodes)"));
  }
}

void Topology::check_memory_node(int node) const {
  check_node(node);
  if (nodes_[static_cast<std::size_t>(node)].memory_total == 0) {
    throw_error(ErrorCode::invalid_argument, "node " + std::to_string(node) + " has no memory");
  }
}

}  // namespace smartarrays::os
