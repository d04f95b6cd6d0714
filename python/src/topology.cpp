// Owns the topology part of smartarrays._core: a snapshot of the process topology as plain values
// (the package turns it into frozen dataclasses), the calling thread's node, the fake-topology
// switch, the codec's instruction set, and the machine facts as the C ABI reports them.
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "binding.hpp"
#include "smartarrays.h"
#include "smartarrays/error.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::python {
namespace {

using NodeTuple = std::tuple<int, int, std::vector<int>, std::uint64_t, std::uint64_t>;
using TopologyTuple = std::tuple<std::vector<NodeTuple>, std::vector<std::vector<std::uint32_t>>, bool, std::string>;

TopologyTuple topology_snapshot() {
  const os::Topology& topology = os::topology();
  std::vector<NodeTuple> nodes;
  std::vector<std::vector<std::uint32_t>> distances;
  for (const os::Node& node : topology.nodes()) {
    nodes.emplace_back(node.id, node.os_node, node.cpus, node.memory_total, node.memory_free);
    std::vector<std::uint32_t>& row = distances.emplace_back();
    for (std::size_t to = 0; to < topology.node_count(); ++to) {
      row.push_back(topology.distance(static_cast<std::size_t>(node.id), to));
    }
  }
  return {std::move(nodes), std::move(distances), topology.is_fake(), topology.spec()};
}

}  // namespace

std::string machine_facts_json() {
  const char* text = nullptr;
  const sa_status status = sa_machine_facts_json(&text);
  if (status != SA_OK) throw Error(static_cast<ErrorCode>(status), sa_last_error());
  return text;
}

void bind_topology(nb::module_& m) {
  m.def("_topology", &topology_snapshot,
        "The process topology: ([(id, os_node, cpus, memory_total, memory_free)], distances, is_fake, spec).");
  m.def("current_node", &os::current_node, "The calling thread's logical NUMA node.");
  m.def(
      "set_fake_topology",
      [](nb::handle spec) {
        // A str, or a TypeError naming spec (smartarrays._args.word), never the binding's signature dump.
        os::set_fake_topology(nb::cast<std::string>(nb::module_::import_("smartarrays._args").attr("word")(spec, "spec")));
      },
      nb::arg("spec").none(), nb::sig("def set_fake_topology(spec: str) -> None"),
      "Replaces the topology with a fake one ('nodes=N' or 'cpus=0-1;2-3'); '' restores the real one.");
  m.def("_machine_facts_json", &machine_facts_json,
        "The machine facts as one JSON object of schema smartarrays.machine/1 (docs/cli.md).");
  m.def(
      "codec_isa", [] { return std::string(codec::isa_name(codec::active_isa())); },
      "The instruction set of the bit-packing kernels: 'scalar' or 'avx2'.");
}

}  // namespace smartarrays::python
