// Owns `smartarrays topology`: the library's view of the machine (nodes, usable CPUs, memory,
// distances) and the kernel settings that change NUMA results, as a table or as JSON.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/json_writer.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/os/system_info.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::cli {

const char* const topology_help =
    "usage: smartarrays topology [--json]\n"
    "\n"
    "Shows the machine as smartarrays sees it: NUMA nodes with their usable CPUs (the node's CPUs\n"
    "that the process affinity mask allows) and memory, the node distance table, and the kernel\n"
    "settings that change NUMA results: transparent huge pages and automatic NUMA balancing.\n"
    "SMARTARRAYS_TOPOLOGY (e.g. nodes=2) replaces the machine's topology with a fake one.\n"
    "\n"
    "options:\n"
    "  --json     print JSON instead of a table (format: docs/cli.md)\n"
    "  -h, --help show this help\n";

namespace {

std::string cpu_ranges(const std::vector<int>& cpus) {
  std::ostringstream out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (i != 0) out << ',';
    out << cpus[i];
    if (j > i) out << '-' << cpus[j];
    i = j + 1;
  }
  return cpus.empty() ? "-" : out.str();
}

std::string gib(std::uint64_t bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1ull << 30) << " GiB";
  return out.str();
}

std::string balancing_text(const std::string& value) {
  if (value == "0") return "off (0)";
  if (value == "unknown") return "unknown (no /proc/sys/kernel/numa_balancing)";
  return "on (" + value + ")";
}

void print_table(const os::Topology& topo, const os::SystemInfo& info) {
  std::cout << "topology: " << (topo.is_fake() ? "fake (" + topo.spec() + ")" : std::string("real (sysfs, affinity mask)"))
            << "\n";
  std::cout << "nodes: " << topo.node_count() << "   usable CPUs: " << topo.all_cpus().size()
            << "   online CPUs: " << info.online_cpus << "\n";
  std::cout << "CPU: " << info.cpu_model << "   codec ISA: " << codec::isa_name(codec::active_isa()) << "\n\n";
  std::cout << "node  os node  cpus          memory total  memory free\n";
  for (const os::Node& node : topo.nodes()) {
    std::cout << std::setw(4) << node.id << "  " << std::setw(7) << node.os_node << "  " << std::left << std::setw(12)
              << cpu_ranges(node.cpus) << std::right << "  " << std::setw(12) << gib(node.memory_total) << "  "
              << std::setw(11) << gib(node.memory_free) << "\n";
  }
  std::cout << "\ndistances (SLIT, 10 = local):\n      ";
  for (std::size_t to = 0; to < topo.node_count(); ++to) std::cout << std::setw(5) << to;
  std::cout << "\n";
  for (std::size_t from = 0; from < topo.node_count(); ++from) {
    std::cout << std::setw(6) << from;
    for (std::size_t to = 0; to < topo.node_count(); ++to) std::cout << std::setw(5) << topo.distance(from, to);
    std::cout << "\n";
  }
  std::cout << "\ntransparent huge pages: " << info.thp_enabled << " (defrag: " << info.thp_defrag << ")\n";
  std::cout << "NUMA balancing: " << balancing_text(info.numa_balancing) << "\n";
  std::cout << std::fixed << std::setprecision(2) << "load average: " << info.load_average[0] << " "
            << info.load_average[1] << " " << info.load_average[2] << "\n";
}

void print_json(const os::Topology& topo, const os::SystemInfo& info) {
  JsonWriter json(std::cout);
  json.begin_object();
  json.member("format", "smartarrays.topology/1");
  json.member("fake", topo.is_fake());
  json.member("spec", topo.spec());
  json.member("usable_cpus", static_cast<std::uint64_t>(topo.all_cpus().size()));
  json.key("nodes");
  json.begin_array();
  for (const os::Node& node : topo.nodes()) {
    json.begin_object();
    json.member("id", node.id);
    json.member("os_node", node.os_node);
    json.key("cpus");
    json.begin_array();
    for (int cpu : node.cpus) json.value(cpu);
    json.end_array();
    json.member("memory_total_bytes", node.memory_total);
    json.member("memory_free_bytes", node.memory_free);
    json.end_object();
  }
  json.end_array();
  json.key("distances");
  json.begin_array();
  for (std::size_t from = 0; from < topo.node_count(); ++from) {
    json.begin_array();
    for (std::size_t to = 0; to < topo.node_count(); ++to) json.value(static_cast<std::uint64_t>(topo.distance(from, to)));
    json.end_array();
  }
  json.end_array();
  json.key("system");
  json.begin_object();
  json.member("cpu_model", info.cpu_model);
  json.member("online_cpus", info.online_cpus);
  json.member("codec_isa", codec::isa_name(codec::active_isa()));
  json.member("thp_enabled", info.thp_enabled);
  json.member("thp_defrag", info.thp_defrag);
  json.member("numa_balancing", info.numa_balancing);
  json.key("load_average");
  json.begin_array();
  for (double load : info.load_average) json.value(load);
  json.end_array();
  json.member("kernel", info.kernel);
  json.end_object();
  json.end_object();
  json.finish();
}

}  // namespace

int topology_command(const std::vector<std::string>& args) {
  ArgCursor cursor(args, "topology");
  bool as_json = false;
  while (!cursor.done()) {
    const std::string arg = cursor.next();
    if (arg == "--json") {
      as_json = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << topology_help;
      return 0;
    } else {
      cursor.unknown();
    }
  }
  const os::Topology& topo = os::topology();
  const os::SystemInfo info = os::read_system_info();
  if (as_json) {
    print_json(topo, info);
  } else {
    print_table(topo, info);
  }
  return 0;
}

}  // namespace smartarrays::cli
