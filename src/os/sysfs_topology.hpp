// Owns reading the real topology from sysfs and procfs, with the paths injectable so tests can
// feed it machines this one is not (memoryless, CPU-less, no NUMA at all).
#pragma once

#include <string>
#include <vector>

#include "smartarrays/os/topology.hpp"

namespace smartarrays::os {

/// Where the kernel describes the machine.
struct SysfsPaths {
  std::string node_dir = "/sys/devices/system/node";  ///< holds node<N>/{cpulist,meminfo,distance}
  std::string meminfo = "/proc/meminfo";              ///< used only when node_dir has no node<N>
};

/// Reads every node<N> under paths.node_dir (kept even when memoryless or CPU-less), with CPUs
/// intersected with allowed_cpus; without node directories, one node with allowed_cpus and the
/// memory of paths.meminfo. Distances whose row does not match the node count become 10/20.
Topology read_sysfs_topology(const SysfsPaths& paths, const std::vector<int>& allowed_cpus);

}  // namespace smartarrays::os
