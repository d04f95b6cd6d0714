// Owns the cost model of the adaptive choice: the paper's §6 formulas (improvement_exec,
// improvement_bw, speedup_remote; exec and bandwidth of a compressed candidate; per-node speedup as
// the minimum of the compute and bandwidth ratios, averaged) and the prediction of a workload's time
// for one configuration of its arrays on a machine profile.
#pragma once

#include <cstdint>
#include <vector>

#include "smartarrays/adapt/machine_profile.hpp"
#include "smartarrays/adapt/workload.hpp"
#include "smartarrays/array/options.hpp"
#include "smartarrays/export.hpp"

namespace smartarrays::adapt {

/// The paper's formulas (§6.1, §6.2), as plain functions so they can be checked by hand.
namespace formulas {
/// improvement_exec = exec_max / exec_current.
SMARTARRAYS_API double improvement_exec(double exec_max, double exec_current);
/// improvement_bw = (bw_max_memory - bw_max_interconnect) / bw_current_memory.
SMARTARRAYS_API double improvement_bw(double bw_max_memory, double bw_max_interconnect, double bw_current_memory);
/// speedup_remote = bw_max_interconnect / bw_current_memory.
SMARTARRAYS_API double speedup_remote(double bw_max_interconnect, double bw_current_memory);
/// speedup_local = min(improvement_exec, improvement_bw).
SMARTARRAYS_API double speedup_local(double improvement_exec, double improvement_bw);
/// Single-node placement pays when (speedup_local + speedup_remote) / 2 > 1.
SMARTARRAYS_API bool single_node_pays(double speedup_local, double speedup_remote);
/// exec_compressed = exec_current + accesses_per_s * cost.
SMARTARRAYS_API double exec_compressed(double exec_current, double accesses_per_s, double cost);
/// bw_compressed = bw_current - accesses_per_s * (1 - r) * elem_size.
SMARTARRAYS_API double bw_compressed(double bw_current, double accesses_per_s, double r, double elem_size);
/// A node's speedup: min(exec_max / exec, bw_max / bw).
SMARTARRAYS_API double node_speedup(double exec_max, double exec, double bw_max, double bw);
/// A configuration's speedup: the mean of its nodes' speedups.
SMARTARRAYS_API double configuration_speedup(const std::vector<double>& node_speedups);
}  // namespace formulas

/// How one array is configured.
struct ArrayConfig {
  Placement placement = Placement::interleaved;  ///< where its pages go
  int node = 0;                                  ///< the node of single_node
  unsigned bits = 64;                            ///< stored width
  bool huge_pages = false;                       ///< transparent huge pages
  /// The array option that carries huge_pages out: on (MADV_HUGEPAGE) or off (MADV_NOHUGEPAGE).
  HugePages huge_page_mode() const noexcept { return huge_pages ? HugePages::on : HugePages::off; }
};

/// What one node does in a predicted run.
struct NodeLoad {
  int node = 0;              ///< logical node
  unsigned threads = 0;      ///< workers there
  double compute_s = 0;      ///< time its workers would need for all work, compute alone
  double memory_s = 0;       ///< time its workers would need for all work, memory alone (bandwidth and latency)
  double share = 0;          ///< fraction of the work it does (work stealing balances by rate)
  double bytes_per_s = 0;    ///< memory bandwidth it uses
};

/// A predicted run.
struct Prediction {
  double seconds = 0;        ///< loop_seconds + init_seconds
  double loop_seconds = 0;   ///< the workload's loops
  double init_seconds = 0;   ///< extra time to initialise replicas
  double compute_seconds = 0;   ///< the loop's time were it compute-bound
  double memory_seconds = 0;    ///< the loop's time were it memory-bound
  double bytes = 0;             ///< bytes read from memory
  double accesses = 0;          ///< array accesses
  std::vector<NodeLoad> nodes;  ///< per node
};

/// Worker threads per node for threads workers (at most the profile's CPUs) on the nodes with CPUs:
/// round-robin for sparse pinning, one node's CPUs after another for dense.
SMARTARRAYS_API std::vector<unsigned> threads_per_node(const MachineProfile& machine, unsigned threads,
                                                       runtime::PinPolicy pinning = runtime::PinPolicy::sparse);

/// Bytes an array of length values at bits occupies (one copy).
SMARTARRAYS_API double array_bytes(std::uint64_t length, unsigned bits);

/// How a measured workload profile corrects the model (all 1 and the machine's overlap for a derived
/// one): fitted so that the profiling configurations predict what the runs measured.
struct ModelFit {
  double compute = 1;            ///< scale of the compute cost of arrays at their natural width
  double compressed = 1;         ///< scale of the compute cost of arrays stored in fewer bits
  double memory = 1;             ///< scale of memory time (bandwidth and latency)
  double serial_fraction = -1;   ///< the workload's own overlap of compute and memory (-1: the machine's)
};

/// The fit of workload's measurement on machine (docs/adaptivity.md, "The workload profile").
SMARTARRAYS_API ModelFit fit_model(const MachineProfile& machine, const WorkloadProfile& workload);

/// The predicted time of workload with configs[k] for its array k (fixed arrays keep theirs: pass
/// them too), corrected by fit. Throws Error(invalid_argument) if configs and arrays differ in count.
SMARTARRAYS_API Prediction predict(const MachineProfile& machine, const WorkloadProfile& workload,
                                   const std::vector<ArrayConfig>& configs, const ModelFit& fit);

/// predict() with fit_model(machine, workload).
SMARTARRAYS_API Prediction predict(const MachineProfile& machine, const WorkloadProfile& workload,
                                   const std::vector<ArrayConfig>& configs);

}  // namespace smartarrays::adapt
