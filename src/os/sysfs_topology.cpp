// Owns parsing /sys/devices/system/node/node<N>/{cpulist,meminfo,distance} and /proc/meminfo.
#include "os/sysfs_topology.hpp"

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "os/cpu_list.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::os {
namespace {

// A missing file reads as "": the kernel omits files it has nothing to say in.
std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<int> kernel_node_ids(const std::string& node_dir) {
  std::vector<int> ids;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(node_dir.c_str()), ::closedir);
  if (!dir) return ids;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string name = entry->d_name;
    if (name.size() <= 4 || name.compare(0, 4, "node") != 0) continue;
    if (!std::all_of(name.begin() + 4, name.end(), [](unsigned char c) { return std::isdigit(c); })) continue;
    ids.push_back(std::stoi(name.substr(4)));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Value of "key" in a meminfo file, in bytes; the per-node file prefixes lines with "Node N".
std::uint64_t meminfo_bytes(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto at = line.find(key + ":");
    if (at == std::string::npos) continue;
    std::istringstream value(line.substr(at + key.size() + 1));
    std::uint64_t kib = 0;
    value >> kib;
    return kib * 1024;
  }
  return 0;
}

std::vector<int> intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::vector<int> sorted(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace

Topology read_sysfs_topology(const SysfsPaths& paths, const std::vector<int>& allowed_cpus) {
  const std::vector<int> allowed = sorted(allowed_cpus);
  const std::vector<int> ids = kernel_node_ids(paths.node_dir);
  if (ids.empty()) {
    const std::string meminfo = read_file(paths.meminfo);
    Node node;
    node.cpus = allowed;
    node.memory_total = meminfo_bytes(meminfo, "MemTotal");
    node.memory_free = meminfo_bytes(meminfo, "MemFree");
    return Topology::from_nodes({node});
  }

  const std::size_t n = ids.size();
  std::vector<Node> nodes(n);
  std::vector<std::uint32_t> distances(n * n, 20);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string dir = paths.node_dir + "/node" + std::to_string(ids[i]);
    Node& node = nodes[i];
    node.id = static_cast<int>(i);
    node.os_node = ids[i];
    try {
      node.cpus = intersect(parse_cpu_list(read_file(dir + "/cpulist")), allowed);
    } catch (const Error& e) {
      throw_error(ErrorCode::os_error, dir + "/cpulist: " + e.what());
    }
    const std::string meminfo = read_file(dir + "/meminfo");
    node.memory_total = meminfo_bytes(meminfo, "MemTotal");
    node.memory_free = meminfo_bytes(meminfo, "MemFree");

    // The row lists online nodes in id order, which are exactly the node directories.
    std::istringstream row(read_file(dir + "/distance"));
    std::vector<std::uint32_t> values{std::istream_iterator<std::uint32_t>(row), std::istream_iterator<std::uint32_t>()};
    if (values.size() == n) {
      std::copy(values.begin(), values.end(), distances.begin() + static_cast<std::ptrdiff_t>(i * n));
    } else {
      distances[i * n + i] = 10;
    }
  }
  return Topology::from_nodes(std::move(nodes), std::move(distances));
}

}  // namespace smartarrays::os
