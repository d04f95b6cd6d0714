// Owns the machine facts that NUMA results depend on but the topology does not carry: transparent
// huge page and automatic NUMA balancing settings, CPU model, online CPUs and load average. Tools
// print them next to every measurement so results from different machines can be compared.
#pragma once

#include <array>
#include <string>

#include "smartarrays/export.hpp"

namespace smartarrays::os {

/// The kernel settings and machine facts read once per call (files that are missing read as "unknown").
struct SystemInfo {
  std::string cpu_model;            ///< "model name" of /proc/cpuinfo
  int online_cpus = 0;              ///< CPUs online in the machine (not only usable by this process)
  std::string thp_enabled;          ///< the selected mode of /sys/kernel/mm/transparent_hugepage/enabled: always, madvise, never
  std::string thp_defrag;           ///< the selected mode of /sys/kernel/mm/transparent_hugepage/defrag
  std::string numa_balancing;       ///< /proc/sys/kernel/numa_balancing: "0" off, "1" on (other values as the kernel gives them)
  std::array<double, 3> load_average{};  ///< 1, 5 and 15 minute load averages
  std::string kernel;               ///< kernel release (uname -r)
};

/// Reads the current facts; never throws for a missing or unreadable file.
SMARTARRAYS_API SystemInfo read_system_info();

/// The bracketed choice of a sysfs selection line: "always [madvise] never" -> "madvise"; the line itself when none is bracketed.
SMARTARRAYS_API std::string selected_mode(const std::string& line);

}  // namespace smartarrays::os
