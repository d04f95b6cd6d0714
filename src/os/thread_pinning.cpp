// Owns pinning threads to logical nodes or CPUs, and the calling thread's node (current_node).
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "os/affinity.hpp"
#include "os/cpu_list.hpp"
#include "os/process_topology.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::os {
namespace {

// The node a thread was pinned to through this library. Fake nodes may share CPUs, so the CPU a
// pinned thread runs on cannot tell which of them it was pinned to: the pin itself must be kept.
// A pin made under an older topology is forgotten (its node id may mean nothing now).
struct PinnedNode {
  std::uint64_t generation = 0;
  int node = -1;
};
thread_local PinnedNode pinned;

void remember_pin(int node) {
  pinned.generation = topology_generation();
  pinned.node = node;
}

}  // namespace

int current_cpu() {
  const int cpu = ::sched_getcpu();
  if (cpu < 0) throw_error(ErrorCode::os_error, std::string("sched_getcpu failed: ") + std::strerror(errno));
  return cpu;
}

int current_node() {
  const Topology& topo = topology();
  if (pinned.node >= 0 && pinned.generation == topology_generation()) return pinned.node;
  // Not cached when unpinned: the thread may migrate, and sched_getcpu is a read of rseq data.
  // A CPU outside the topology (affinity changed behind the library's back) counts as node 0.
  const int node = topo.node_of_cpu(::sched_getcpu());
  return node < 0 ? 0 : node;
}

void pin_current_thread_to_node(int node) {
  const Topology& topo = topology();
  topo.check_node(node);
  const std::vector<int>& cpus = topo.node(static_cast<std::size_t>(node)).cpus;
  if (cpus.empty()) throw_error(ErrorCode::invalid_argument, "node " + std::to_string(node) + " has no usable CPUs");
  set_thread_affinity(cpus);
  remember_pin(node);
}

void pin_current_thread_to_cpu(int cpu) {
  const Topology& topo = topology();
  const int node = topo.node_of_cpu(cpu);
  if (node < 0) {
    throw_error(ErrorCode::invalid_argument, "cpu " + std::to_string(cpu) + " is not usable (usable cpus: " +
                                                 format_cpu_list(topo.all_cpus()) + ")");
  }
  set_thread_affinity({cpu});
  remember_pin(node);
}

void unpin_current_thread() {
  set_thread_affinity(topology().all_cpus());
  pinned.node = -1;
}

}  // namespace smartarrays::os
