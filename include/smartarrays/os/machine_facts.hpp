// Owns the machine facts that NUMA results depend on, read once per call from /proc, /sys and the
// process topology: CPU model and counts, nodes and memory, transparent huge page and automatic
// NUMA balancing settings, load average and kernel. Every tool reports them through the C ABI's
// sa_machine_facts_json (schema smartarrays.machine/1, docs/cli.md), so results from different
// machines and languages can be compared.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/os/huge_pages.hpp"

namespace smartarrays::os {

/// The facts of this machine and process now (files that are missing read as "unknown").
struct MachineFacts {
  std::string cpu_model;                 ///< "model name" of /proc/cpuinfo
  int online_cpus = 0;                   ///< CPUs online in the machine (not only usable by this process)
  std::size_t usable_cpus = 0;           ///< CPUs of the topology: the affinity mask's, over all nodes
  std::size_t nodes = 0;                 ///< logical NUMA nodes (fake ones under a fake topology)
  bool fake_topology = false;            ///< whether SMARTARRAYS_TOPOLOGY (or the API) replaced the real topology
  std::string topology_spec;             ///< the fake topology's spec, "" for the real one
  std::uint64_t memory_total_bytes = 0;  ///< memory of all nodes
  std::uint64_t memory_free_bytes = 0;   ///< free memory of all nodes, as read with the topology
  std::string thp_enabled;               ///< selected mode of /sys/kernel/mm/transparent_hugepage/enabled: always, madvise, never
  std::string thp_defrag;                ///< selected mode of /sys/kernel/mm/transparent_hugepage/defrag
  std::vector<HugetlbPool> hugetlb_pools;  ///< the kernel's hugetlb pools (/sys/kernel/mm/hugepages)
  std::string numa_balancing;            ///< /proc/sys/kernel/numa_balancing: "0" off, "1" on (other values as the kernel gives them)
  std::array<double, 3> load_average{};  ///< 1, 5 and 15 minute load averages
  std::string kernel;                    ///< kernel release (uname -r)
};

/// Reads the current facts; never throws for a missing or unreadable file.
SMARTARRAYS_API MachineFacts read_machine_facts();

/// The bracketed choice of a sysfs selection line: "always [madvise] never" -> "madvise"; the line itself when none is bracketed.
SMARTARRAYS_API std::string selected_mode(const std::string& line);

}  // namespace smartarrays::os
