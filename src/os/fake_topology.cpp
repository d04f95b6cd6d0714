// Owns the fake topology spec (SMARTARRAYS_TOPOLOGY): "nodes=N" or "cpus=LIST;LIST;...", laid over
// the real machine so multi-node logic runs on a one-node box. Fake distances are 10 local, 20 remote.
#include <algorithm>
#include <charconv>
#include <string>

#include "os/cpu_list.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::os {
namespace {

// Far above any real machine, low enough that the n*n distance table stays small.
constexpr int kMaxFakeNodes = 256;

[[noreturn]] void bad_spec(std::string_view spec, const std::string& why) {
  throw_error(ErrorCode::invalid_argument, "topology spec " + util::quoted(spec) + ": " + why);
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n") - first + 1);
}

// "nodes=N": usable CPUs in N contiguous groups, or CPU k % ncpus for node k when N > ncpus.
std::vector<std::vector<int>> cpus_of_node_count(std::string_view spec, std::string_view count_text,
                                                 const std::vector<int>& usable) {
  int count = 0;
  const auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
  if (count_text.empty() || ec != std::errc() || end != count_text.data() + count_text.size() || count < 1 ||
      count > kMaxFakeNodes) {
    bad_spec(spec, "node count " + util::quoted(count_text) + " must be a number in 1.." +
                       std::to_string(kMaxFakeNodes));
  }
  const std::size_t nodes = static_cast<std::size_t>(count);
  const std::size_t ncpus = usable.size();
  std::vector<std::vector<int>> groups(nodes);
  for (std::size_t k = 0; k < nodes; ++k) {
    if (nodes > ncpus) {
      groups[k].push_back(usable[k % ncpus]);
    } else {
      groups[k].assign(usable.begin() + static_cast<std::ptrdiff_t>(k * ncpus / nodes),
                       usable.begin() + static_cast<std::ptrdiff_t>((k + 1) * ncpus / nodes));
    }
  }
  return groups;
}

// "cpus=0-1;2-3;;4": one CPU list per node; an empty entry is a CPU-less node.
std::vector<std::vector<int>> cpus_of_lists(std::string_view spec, std::string_view lists,
                                            const std::vector<int>& usable) {
  std::vector<std::vector<int>> groups;
  std::size_t pos = 0;
  while (pos <= lists.size()) {
    const std::size_t semicolon = std::min(lists.find(';', pos), lists.size());
    const std::string_view entry = lists.substr(pos, semicolon - pos);
    const std::string node = "node " + std::to_string(groups.size());
    if (groups.size() == static_cast<std::size_t>(kMaxFakeNodes)) {
      bad_spec(spec, "more than " + std::to_string(kMaxFakeNodes) + " nodes");
    }
    try {
      groups.push_back(parse_cpu_list(entry));
    } catch (const Error& e) {
      bad_spec(spec, node + ": " + e.what());
    }
    for (int cpu : groups.back()) {
      if (!std::binary_search(usable.begin(), usable.end(), cpu)) {
        bad_spec(spec, node + ": cpu " + std::to_string(cpu) + " is not usable (usable cpus: " +
                           format_cpu_list(usable) + ")");
      }
    }
    pos = semicolon + 1;
  }
  if (std::all_of(groups.begin(), groups.end(), [](const std::vector<int>& g) { return g.empty(); })) {
    bad_spec(spec, "no node has a CPU");
  }
  return groups;
}

}  // namespace

Topology Topology::from_spec(std::string_view spec, const Topology& real) {
  const std::string_view text = trim(spec);
  const std::vector<int> usable = real.all_cpus();
  const std::vector<int> real_memory = real.memory_nodes();
  if (usable.empty()) bad_spec(text, "the real topology has no usable CPU");
  if (real_memory.empty()) bad_spec(text, "the real topology has no node with memory");

  std::vector<std::vector<int>> groups;
  if (text.substr(0, 6) == "nodes=") {
    groups = cpus_of_node_count(text, text.substr(6), usable);
  } else if (text.substr(0, 5) == "cpus=") {
    groups = cpus_of_lists(text, text.substr(5), usable);
  } else {
    bad_spec(text, "expected 'nodes=N' or 'cpus=LIST;LIST;...'");
  }

  // Fake node k is backed by real memory node k % M, whose memory its fake nodes share evenly.
  const std::size_t count = groups.size();
  std::vector<std::uint64_t> sharers(real_memory.size(), 0);
  for (std::size_t k = 0; k < count; ++k) ++sharers[k % real_memory.size()];
  std::vector<Node> nodes(count);
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t backing = k % real_memory.size();
    const Node& real_node = real.node(static_cast<std::size_t>(real_memory[backing]));
    nodes[k].id = static_cast<int>(k);
    nodes[k].os_node = real_node.os_node;
    nodes[k].cpus = std::move(groups[k]);
    nodes[k].memory_total = real_node.memory_total / sharers[backing];
    nodes[k].memory_free = real_node.memory_free / sharers[backing];
  }
  Topology topology = from_nodes(std::move(nodes));
  topology.fake_ = true;
  topology.spec_ = std::string(text);
  return topology;
}

}  // namespace smartarrays::os
