// Owns `smartarrays topology`: the library's view of the machine (nodes, usable CPUs, memory,
// distances) and the machine facts that change NUMA results, as a table or as JSON.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "measure/report.hpp"
#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/util/byte_size.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

const char* const topology_header =
    "usage: smartarrays topology [--json]\n"
    "\n"
    "Shows the machine as smartarrays sees it: NUMA nodes with their usable CPUs (the node's CPUs\n"
    "that the process affinity mask allows) and memory, the node distance table, and the kernel\n"
    "settings that change NUMA results: transparent huge pages and automatic NUMA balancing.\n"
    "SMARTARRAYS_TOPOLOGY (e.g. nodes=2) replaces the machine's topology with a fake one.\n";

struct TopologyFlags {
  bool json = false;
};

struct TopologyResult {
  const os::Topology& topology;
  measure::Json facts;  // schema smartarrays.machine/1
  std::string profile_path;  // this machine's cache entry for its calibrated profile
  bool profile_cached = false;
  std::string profile_damage;  // why the cached profile cannot be read ("" when it can, or none is cached)
};

// Whether `smartarrays calibrate` has cached a profile of this machine (what auto options use).
TopologyResult with_profile(TopologyResult r) {
  try {
    r.profile_path = adapt::cached_profile_path();
    r.profile_cached = std::filesystem::exists(r.profile_path);
  } catch (const Error&) {
    r.profile_path = "";
  }
  if (r.profile_cached) {
    try {
      adapt::load_cached_profile();
    } catch (const Error& e) {
      r.profile_damage = e.what();
    }
  }
  return r;
}

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

void print_nodes(const os::Topology& topo) {
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
}

void print_table(const TopologyResult& r) {
  const os::Topology& topo = r.topology;
  const measure::Json& facts = r.facts;
  std::cout << "topology: " << (topo.is_fake() ? "fake (" + topo.spec() + ")" : std::string("real (sysfs, affinity mask)"))
            << "\n";
  std::cout << "nodes: " << topo.node_count() << "   usable CPUs: " << topo.all_cpus().size()
            << "   online CPUs: " << facts["online_cpus"].get<int>() << "\n";
  std::cout << "CPU: " << facts["cpu_model"].get<std::string>() << "   codec ISA: " << facts["codec_isa"].get<std::string>()
            << "\n\n";
  print_nodes(topo);
  std::cout << "\ntransparent huge pages: " << facts["thp_enabled"].get<std::string>()
            << " (defrag: " << facts["thp_defrag"].get<std::string>() << ")\n";
  std::string pools;
  for (const measure::Json& pool : facts["hugetlb_pools"]) {
    pools += (pools.empty() ? " " : ", ") + util::format_bytes(pool["page_bytes"].get<std::uint64_t>()) + " pages " +
             std::to_string(pool["free_pages"].get<std::uint64_t>()) + " free of " +
             std::to_string(pool["total_pages"].get<std::uint64_t>());
  }
  std::cout << "hugetlb pools:" << (pools.empty() ? " none" : pools) << "\n";
  std::cout << "NUMA balancing: " << balancing_text(facts["numa_balancing"].get<std::string>()) << "\n";
  std::cout << std::fixed << std::setprecision(2) << "load average:";
  for (const measure::Json& load : facts["load_average"]) std::cout << " " << load.get<double>();
  std::cout << "\n";
  if (!r.profile_damage.empty()) {
    std::cout << "machine profile: " << util::printable(r.profile_damage) << "\n";
  } else if (r.profile_cached) {
    std::cout << "machine profile: " << r.profile_path << "\n";
  } else {
    std::cout << "machine profile: none cached (run 'smartarrays calibrate'; auto options use an estimate)\n";
  }
}

measure::Report report(const TopologyResult& r) {
  const os::Topology& topo = r.topology;
  measure::Report report("smartarrays.topology/1");
  report.machine_key = "system";
  report.machine = r.facts;
  measure::Json& json = report.fields;
  json["fake"] = topo.is_fake();
  json["spec"] = topo.spec();
  json["usable_cpus"] = topo.all_cpus().size();
  json["nodes"] = measure::Json::array();
  for (const os::Node& node : topo.nodes()) {
    json["nodes"].push_back({{"id", node.id},
                             {"os_node", node.os_node},
                             {"cpus", node.cpus},
                             {"memory_total_bytes", node.memory_total},
                             {"memory_free_bytes", node.memory_free}});
  }
  json["distances"] = measure::Json::array();
  for (std::size_t from = 0; from < topo.node_count(); ++from) {
    measure::Json row = measure::Json::array();
    for (std::size_t to = 0; to < topo.node_count(); ++to) row.push_back(topo.distance(from, to));
    json["distances"].push_back(row);
  }
  json["machine_profile"] = {{"cached", r.profile_cached}, {"path", r.profile_path}};
  if (!r.profile_damage.empty()) json["machine_profile"]["damaged"] = r.profile_damage;
  return report;
}

int topology(const TopologyFlags& flags) {
  const TopologyResult result = with_profile({os::topology(), measure::machine_facts(), "", false, ""});
  if (flags.json) {
    measure::write_report(report(result), "-");
  } else {
    print_table(result);
  }
  return 0;
}

}  // namespace

void add_topology_command(CommandTree& tree) {
  auto flags = std::make_shared<TopologyFlags>();
  CLI::App& app = tree.add(tree.root(), "topology", topology_header, [flags] { return topology(*flags); });
  tree.define(app, [flags](CLI::App& defined) {
    add_flag(defined, "--json", flags->json, "print JSON instead of a table (format: docs/cli.md)");
  });
}

}  // namespace smartarrays::cli
