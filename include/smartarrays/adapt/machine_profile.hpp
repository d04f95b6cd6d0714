// Owns the machine profile of the adaptive choice: what calibration measured (or a person wrote)
// about a machine, in the units the model uses, and its JSON form — the smartarrays.machine/1
// facts extended by a "model" member (docs/adaptivity.md). Reading checks every field and names
// the first bad or missing one.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/export.hpp"

namespace smartarrays::adapt {

/// One NUMA node as the model sees it.
struct NodeProfile {
  int id = 0;                          ///< logical node id (0..nodes-1, in order)
  unsigned cpus = 0;                   ///< worker threads the pool runs there
  std::uint64_t memory_bytes = 0;      ///< memory of the node
  std::uint64_t memory_free_bytes = 0; ///< memory free for arrays (a scenario may set it lower)
};

/// The cost of reading bit-compressed values, per width (index b - 1 for b = 1..64).
struct DecodeProfile {
  std::array<double, 64> scan_values_per_s_per_cpu{};  ///< fused decode+sum on cache-resident data, one CPU
  std::array<double, 64> get_ns{};                     ///< one random get on cache-resident data
  double plain_scan_values_per_s_per_cpu = 0;          ///< sum of plain 64-bit values (std::vector), one CPU
};

/// A square matrix of doubles: value[i][j] for node i reading node j.
using NodeMatrix = std::vector<std::vector<double>>;

/// What the model knows about a machine.
struct MachineProfile {
  std::string cpu_model = "unknown";  ///< from the facts (optional in a hand-written profile)
  std::string codec_isa = "unknown";  ///< kernel set the decode rates were measured with
  std::string thp_enabled = "unknown";  ///< transparent huge page mode ("never" disables huge pages)
  std::vector<NodeProfile> nodes;     ///< the nodes
  NodeMatrix read_gbs;                ///< GB/s when all workers of node i stream memory of node j
  NodeMatrix read_gbs_1t;             ///< the same for one thread of node i
  NodeMatrix latency_ns;              ///< dependent random loads beyond the last-level cache
  std::vector<double> copy_gbs;       ///< replica initialisation rate into node i
  DecodeProfile decode;               ///< per-width decode costs
  double memory_parallelism = 8;      ///< independent misses one CPU keeps in flight (latency / independent-load time)
  std::uint64_t llc_bytes = 32ull << 20;  ///< last-level cache: arrays at most half this size stay cache-resident
  /// The cache random loads see, calibrated (0: llc_bytes): an array of s bytes read at random misses
  /// a share max(0, 1 - random_cache_bytes / s) of its loads. Below llc_bytes when the last-level
  /// cache is shared with other tenants, sliced per core complex, or when TLB misses cost like cache misses.
  std::uint64_t random_cache_bytes = 0;
  /// random_cache_bytes, or llc_bytes where it was not calibrated.
  std::uint64_t random_cache() const noexcept { return random_cache_bytes != 0 ? random_cache_bytes : llc_bytes; }
  double huge_page_latency_ratio = 1;     ///< random-load latency with huge pages / without (< 1: they help)
  /// The share of the shorter of a loop's compute and memory times that does not overlap the
  /// longer: a node's time is max(c, m) + serial_fraction * min(c, m). 0 is the paper's model
  /// (perfect overlap); calibration measures it by decoding an array that streams from memory.
  double serial_fraction = 0;
  std::string calibration = "hand-written";  ///< "quick", "full" or "hand-written"
  double calibration_seconds = 0;            ///< how long calibration took
  std::string machine_key;                   ///< the cache key of the machine it was measured on ("" if none)

  /// Number of nodes.
  std::size_t node_count() const noexcept { return nodes.size(); }
  /// Nodes with memory.
  std::size_t memory_node_count() const noexcept;
  /// Worker threads over all nodes.
  unsigned total_cpus() const noexcept;
};

/// The profile as smartarrays.machine/1 JSON text (facts of this machine when it is the one
/// measured, then "model"); indented by indent spaces, one line when indent < 0.
SMARTARRAYS_API std::string to_json(const MachineProfile& profile, int indent = 2);

/// Reads a profile from JSON text; source names it in errors ("machine.json"). Throws
/// Error(invalid_argument) "<source>: <field>: <why>" for the first bad or missing field
/// (e.g. "model.read_gbs[1][0]: expected a number > 0, got -3").
SMARTARRAYS_API MachineProfile parse_machine_profile(std::string_view text, std::string_view source);

/// Checks a profile built in code as parse_machine_profile checks a file; throws the same errors.
SMARTARRAYS_API void validate(const MachineProfile& profile);

/// Reads and parses the file at path; Error(os_error) naming path when it cannot be read.
SMARTARRAYS_API MachineProfile read_machine_profile(const std::string& path);

/// Writes to_json(profile) to path (creating its directory); Error(os_error) naming path on failure.
SMARTARRAYS_API void write_machine_profile(const MachineProfile& profile, const std::string& path);

/// The same profile with every node's free memory set to bytes (the evaluation's memory scenarios).
SMARTARRAYS_API MachineProfile with_free_memory(MachineProfile profile, std::uint64_t bytes_per_node);

}  // namespace smartarrays::adapt
