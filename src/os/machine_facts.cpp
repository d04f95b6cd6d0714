// Owns reading the machine facts of machine_facts.hpp from /proc, /sys and the process topology.
#include "smartarrays/os/machine_facts.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "smartarrays/os/topology.hpp"

namespace smartarrays::os {

namespace {

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "unknown";
  return line;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

std::string selected_mode(const std::string& line) {
  const std::size_t open = line.find('[');
  const std::size_t close = line.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return line;
  return line.substr(open + 1, close - open - 1);
}

MachineFacts read_machine_facts() {
  MachineFacts info;
  info.cpu_model = cpu_model();
  info.online_cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  const Topology& topology = os::topology();
  info.usable_cpus = topology.all_cpus().size();
  info.nodes = topology.node_count();
  info.fake_topology = topology.is_fake();
  info.topology_spec = topology.spec();
  for (const Node& node : topology.nodes()) {
    info.memory_total_bytes += node.memory_total;
    info.memory_free_bytes += node.memory_free;
  }
  info.thp_enabled = selected_mode(first_line("/sys/kernel/mm/transparent_hugepage/enabled"));
  info.thp_defrag = selected_mode(first_line("/sys/kernel/mm/transparent_hugepage/defrag"));
  info.hugetlb_pools = read_hugetlb_pools();
  info.numa_balancing = first_line("/proc/sys/kernel/numa_balancing");
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) == 3) info.load_average = {load[0], load[1], load[2]};
  utsname name{};
  info.kernel = ::uname(&name) == 0 ? name.release : "unknown";
  return info;
}

}  // namespace smartarrays::os
