// Owns the hand-written machine profiles the adaptive layer's tests decide with: machines we do not
// have, described by numbers chosen so each branch of the diagrams is taken for a known reason.
#pragma once

#include "smartarrays/adapt/machine_profile.hpp"

namespace smartarrays::test {

/// A machine of nodes nodes, cpus CPUs and memory GiB each, with local and remote read bandwidth
/// (GB/s, all workers; one thread reads half as fast), 80/130 ns latency, 5 GB/s copies, and
/// decode costing scan_rate values/s per CPU for compressed widths (4x that for 8/16/32/64).
inline adapt::MachineProfile machine(unsigned nodes, unsigned cpus, double local_gbs, double remote_gbs,
                                     double scan_rate = 1e9, std::uint64_t memory_gib = 64) {
  adapt::MachineProfile p;
  p.cpu_model = "test machine";
  p.thp_enabled = "madvise";
  for (unsigned i = 0; i < nodes; ++i) {
    p.nodes.push_back({static_cast<int>(i), cpus, memory_gib << 30, memory_gib << 30});
  }
  p.read_gbs.assign(nodes, std::vector<double>(nodes, remote_gbs));
  p.read_gbs_1t.assign(nodes, std::vector<double>(nodes, remote_gbs / 2));
  p.latency_ns.assign(nodes, std::vector<double>(nodes, 130));
  for (unsigned i = 0; i < nodes; ++i) {
    p.read_gbs[i][i] = local_gbs;
    p.read_gbs_1t[i][i] = local_gbs / 2;
    p.latency_ns[i][i] = 80;
  }
  p.copy_gbs.assign(nodes, 5);
  for (unsigned b = 1; b <= 64; ++b) {
    const bool aligned = b == 8 || b == 16 || b == 32 || b == 64;
    p.decode.scan_values_per_s_per_cpu[b - 1] = aligned ? 4 * scan_rate : scan_rate;
    p.decode.get_ns[b - 1] = aligned ? 1 : 4;
  }
  p.decode.plain_scan_values_per_s_per_cpu = 4 * scan_rate;
  p.memory_parallelism = 8;
  p.llc_bytes = 32ull << 20;
  p.huge_page_latency_ratio = 1;
  return p;
}

}  // namespace smartarrays::test
