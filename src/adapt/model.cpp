// Owns the cost model: the paper's formulas and the per-node prediction of a workload's time
// (compute from the calibrated decode rates, memory from the bandwidth and latency matrices).
#include "smartarrays/adapt/model.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::adapt {

namespace formulas {

double improvement_exec(double exec_max, double exec_current) { return exec_max / exec_current; }
double improvement_bw(double bw_max_memory, double bw_max_interconnect, double bw_current_memory) {
  return (bw_max_memory - bw_max_interconnect) / bw_current_memory;
}
double speedup_remote(double bw_max_interconnect, double bw_current_memory) {
  return bw_max_interconnect / bw_current_memory;
}
double speedup_local(double improvement_exec, double improvement_bw) { return std::min(improvement_exec, improvement_bw); }
bool single_node_pays(double speedup_local, double speedup_remote) { return (speedup_local + speedup_remote) / 2 > 1; }
double exec_compressed(double exec_current, double accesses_per_s, double cost) { return exec_current + accesses_per_s * cost; }
double bw_compressed(double bw_current, double accesses_per_s, double r, double elem_size) {
  return bw_current - accesses_per_s * (1 - r) * elem_size;
}
double node_speedup(double exec_max, double exec, double bw_max, double bw) {
  const double compute = exec > 0 ? exec_max / exec : std::numeric_limits<double>::infinity();
  const double memory = bw > 0 ? bw_max / bw : std::numeric_limits<double>::infinity();
  return std::min(compute, memory);
}
double configuration_speedup(const std::vector<double>& node_speedups) {
  if (node_speedups.empty()) return 0;
  return std::accumulate(node_speedups.begin(), node_speedups.end(), 0.0) / static_cast<double>(node_speedups.size());
}

}  // namespace formulas

namespace {

// Fraction of an array's reads by node i that node j serves.
std::vector<double> sources(const MachineProfile& m, const ArrayConfig& c, std::size_t reader) {
  const std::size_t n = m.node_count();
  std::vector<double> f(n, 0.0);
  std::vector<std::size_t> memory;
  for (std::size_t j = 0; j < n; ++j) {
    if (m.nodes[j].memory_bytes > 0) memory.push_back(j);
  }
  if (memory.empty()) memory.push_back(0);
  switch (c.placement) {
    case Placement::single_node:
      f[static_cast<std::size_t>(std::clamp(c.node, 0, static_cast<int>(n) - 1))] = 1;
      break;
    case Placement::interleaved:
    case Placement::partitioned:
      for (std::size_t j : memory) f[j] = 1.0 / static_cast<double>(memory.size());
      break;
    case Placement::replicated:
      f[m.nodes[reader].memory_bytes > 0 ? reader : memory.front()] = 1;
      break;
    case Placement::os_default:
      // Pre-faulted by the thread that allocates it: the first node with memory.
      f[memory.front()] = 1;
      break;
  }
  return f;
}

double compute_cost_s(const MachineProfile& m, const ArrayUse& a, unsigned bits) {
  if (a.hints.pattern == AccessPattern::random) return m.decode.get_ns[bits - 1] * 1e-9;
  return 1.0 / m.decode.scan_values_per_s_per_cpu[bits - 1];
}

// Whether the workload's arrays at their configured widths fit in the last-level cache together,
// with room to spare: then only the first pass of a run (which starts cold) reads memory.
bool workload_resident(const MachineProfile& m, const WorkloadProfile& w, const std::vector<ArrayConfig>& configs) {
  double footprint = 0;
  for (std::size_t k = 0; k < w.arrays.size(); ++k) footprint += array_bytes(w.arrays[k].length, configs[k].bits);
  return footprint * 2 <= static_cast<double>(m.llc_bytes);
}

// The range a measured profile may scale memory time over: a run that the model cannot explain
// within it is mostly compute or mostly waiting, and the model keeps its own figures at the bound.
constexpr double min_memory_scale = 1.0 / 16, max_memory_scale = 16;
// The overlaps 0, 1/overlap_steps, ..., 1 a two-run profile is fitted over.
constexpr int overlap_steps = 20;

// The extra seconds of initialising replicas of size bytes: the slowest node's copy against the
// copy spread over every memory node.
double replication_seconds(const MachineProfile& m, double size) {
  double min_copy = std::numeric_limits<double>::infinity(), sum_copy = 0;
  for (std::size_t j = 0; j < m.node_count(); ++j) {
    if (m.nodes[j].memory_bytes == 0) continue;
    min_copy = std::min(min_copy, m.copy_gbs[j]);
    sum_copy += m.copy_gbs[j];
  }
  return size / (min_copy * 1e9) - size / (sum_copy * 1e9);
}

// The loop time the memory controllers allow: a memory node serves at most its own all-worker
// local bandwidth, whoever reads it (each array's traffic at the nodes' shares of the loop).
double controller_bound_s(const MachineProfile& m, const std::vector<ArrayConfig>& configs,
                          const std::vector<double>& array_traffic, const Prediction& p, double memory_scale) {
  const std::size_t n = m.node_count();
  std::vector<double> controller_bytes(n, 0.0);
  for (std::size_t k = 0; k < configs.size() && k < array_traffic.size(); ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<double> f = sources(m, configs[k], i);
      for (std::size_t j = 0; j < n; ++j) controller_bytes[j] += array_traffic[k] * p.nodes[i].share * f[j];
    }
  }
  double bound = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (controller_bytes[j] == 0) continue;
    bound = std::max(bound, controller_bytes[j] * memory_scale / (m.read_gbs[j][j] * 1e9));
  }
  return bound;
}

Prediction predict_scaled(const MachineProfile& m, const WorkloadProfile& w, const std::vector<ArrayConfig>& configs,
                          const ModelFit& scale) {
  const std::size_t n = m.node_count();
  const unsigned total_threads = w.threads == 0 ? m.total_cpus() : w.threads;
  const std::vector<unsigned> tpn = threads_per_node(m, total_threads, w.pinning);
  Prediction p;
  std::vector<double> rate(n, 0.0);
  std::vector<double> array_traffic(w.arrays.size(), 0.0);  // bytes each array moves from memory
  const bool resident = workload_resident(m, w, configs);
  // Per reading node: compute seconds and memory seconds for all of the work.
  for (std::size_t i = 0; i < n; ++i) {
    NodeLoad load;
    load.node = static_cast<int>(i);
    load.threads = std::min(tpn[i], std::max(m.nodes[i].cpus, 1u));
    p.nodes.push_back(load);
  }
  for (std::size_t k = 0; k < w.arrays.size(); ++k) {
    const ArrayUse& a = w.arrays[k];
    const ArrayConfig& c = configs[k];
    const double accesses = a.accesses();
    p.accesses += accesses;
    const bool random = a.hints.pattern == AccessPattern::random;
    const double size = array_bytes(a.length, c.bits);
    // Random accesses that miss the cache: each line once when everything is resident, else the
    // share of the array the cache cannot hold. Sequential reads: every pass, or only the first.
    double misses = 0, bytes = 0;
    if (random) {
      misses = resident ? std::min(accesses, size / 64.0)
                        : accesses * std::max(0.0, 1.0 - static_cast<double>(m.random_cache()) / size);
      bytes = misses * 64.0;
    } else {
      bytes = (resident ? std::min(accesses, static_cast<double>(a.length)) : accesses) * c.bits / 8.0;
    }
    // Written arrays cost a read for ownership and a write back.
    const double traffic = a.hints.read_only || random ? bytes : 2 * bytes;
    p.bytes += traffic;
    array_traffic[k] = traffic;
    for (std::size_t i = 0; i < n; ++i) {
      NodeLoad& load = p.nodes[i];
      if (load.threads == 0) continue;
      const double t = load.threads;
      const double correction = c.bits < a.natural_bits ? scale.compressed : scale.compute;
      load.compute_s += accesses * compute_cost_s(m, a, c.bits) * correction / t;
      const std::vector<double> f = sources(m, c, i);
      for (std::size_t j = 0; j < n; ++j) {
        if (f[j] == 0) continue;
        const double bw = std::min(m.read_gbs[i][j], t * m.read_gbs_1t[i][j]) * 1e9 / scale.memory;
        load.memory_s += traffic * f[j] / bw;
        if (random) {
          const double latency = m.latency_ns[i][j] * 1e-9 * (c.huge_pages ? m.huge_page_latency_ratio : 1.0);
          load.memory_s += misses * f[j] * latency * scale.memory / (t * m.memory_parallelism);
        }
      }
    }
    // Costs beyond a double's range would give a rate of 0, a loop of 0 s and the fastest candidate
    // of all: such a workload is refused, naming the array.
    if (!std::all_of(p.nodes.begin(), p.nodes.end(),
                     [](const NodeLoad& l) { return std::isfinite(l.compute_s) && std::isfinite(l.memory_s); })) {
      std::ostringstream why;
      why << std::setprecision(3) << "workload array " << util::quoted(a.name) << ": " << a.hints.passes << " passes over "
          << a.length << " values are more accesses than the model can time";
      throw_error(ErrorCode::invalid_argument, why.str());
    }
    if (c.placement == Placement::replicated && m.memory_node_count() > 1) p.init_seconds += replication_seconds(m, size);
  }
  double total_rate = 0;
  for (std::size_t i = 0; i < n; ++i) {
    NodeLoad& load = p.nodes[i];
    if (load.threads == 0) continue;
    const double serial = scale.serial_fraction >= 0 ? scale.serial_fraction : m.serial_fraction;
    const double tau = std::max(load.compute_s, load.memory_s) + serial * std::min(load.compute_s, load.memory_s);
    rate[i] = tau > 0 ? 1.0 / tau : 0;
    total_rate += rate[i];
  }
  p.loop_seconds = total_rate > 0 ? 1.0 / total_rate : 0;
  double compute_rate = 0, memory_rate = 0;
  for (std::size_t i = 0; i < n; ++i) {
    NodeLoad& load = p.nodes[i];
    if (load.threads == 0) continue;
    load.share = total_rate > 0 ? rate[i] / total_rate : 0;
    compute_rate += load.compute_s > 0 ? 1.0 / load.compute_s : 0;
    memory_rate += load.memory_s > 0 ? 1.0 / load.memory_s : 0;
  }
  p.compute_seconds = compute_rate > 0 ? 1.0 / compute_rate : 0;
  p.memory_seconds = memory_rate > 0 ? 1.0 / memory_rate : 0;
  p.loop_seconds = std::max(p.loop_seconds, controller_bound_s(m, configs, array_traffic, p, scale.memory));
  for (NodeLoad& load : p.nodes) {
    load.bytes_per_s = p.loop_seconds > 0 ? p.bytes * load.share / p.loop_seconds : 0;
  }
  p.seconds = p.loop_seconds + p.init_seconds;
  // A time that is not a finite number is no answer to rank (a NaN compares as neither faster nor
  // slower): rates within validate()'s bounds never give one, so the profile was built in code.
  if (!std::isfinite(p.seconds)) {
    std::ostringstream why;
    why << std::setprecision(3) << "the machine profile predicts a time that is not a finite number (loop "
        << p.loop_seconds << " s, replica initialisation " << p.init_seconds
        << " s): a rate in it is out of range; validate() names the field";
    throw_error(ErrorCode::invalid_argument, why.str());
  }
  return p;
}

}  // namespace

std::vector<unsigned> threads_per_node(const MachineProfile& m, unsigned threads, runtime::PinPolicy pinning) {
  std::vector<unsigned> tpn(m.node_count(), 0);
  const unsigned cpus = m.total_cpus();
  unsigned left = std::min(threads, cpus);
  if (pinning == runtime::PinPolicy::dense) {
    for (std::size_t i = 0; i < m.node_count() && left > 0; ++i) {
      tpn[i] = std::min(left, m.nodes[i].cpus);
      left -= tpn[i];
    }
    return tpn;
  }
  while (left > 0) {
    for (std::size_t i = 0; i < m.node_count() && left > 0; ++i) {
      if (tpn[i] < m.nodes[i].cpus) {
        ++tpn[i];
        --left;
      }
    }
  }
  return tpn;
}

double array_bytes(std::uint64_t length, unsigned bits) {
  const double chunks = static_cast<double>((length + 63) / 64);
  return chunks * bits * 8.0;
}

namespace {

// Every array where the measured run placed it, at its natural width, or (fewest) every array the
// model chooses at its fewest bits.
std::vector<ArrayConfig> profiled_configs(const WorkloadProfile& w, bool fewest) {
  std::vector<ArrayConfig> configs(w.arrays.size());
  const Placement placement = parse_placement(w.measured->placement);
  for (std::size_t k = 0; k < configs.size(); ++k) {
    configs[k].placement = placement;
    configs[k].bits = fewest && !w.arrays[k].fixed ? w.arrays[k].value_bits : w.arrays[k].natural_bits;
  }
  return configs;
}

// The memory scale (within its bounds) at which configs predicts seconds: the loop time grows with
// it, so bisect its logarithm.
double solve_memory(const MachineProfile& m, const WorkloadProfile& w, const std::vector<ArrayConfig>& configs,
                    ModelFit fit, double seconds) {
  double low = std::log(min_memory_scale), high = std::log(max_memory_scale);
  for (int step = 0; step < 40; ++step) {
    const double mid = (low + high) / 2;
    fit.memory = std::exp(mid);
    (predict_scaled(m, w, configs, fit).loop_seconds < seconds ? low : high) = mid;
  }
  return std::exp((low + high) / 2);
}

}  // namespace

ModelFit fit_model(const MachineProfile& machine, const WorkloadProfile& workload) {
  ModelFit fit;
  if (!workload.measured) return fit;
  const WorkloadMeasurement& measured = *workload.measured;
  const std::vector<ArrayConfig> natural = profiled_configs(workload, false);
  const std::vector<ArrayConfig> fewest = profiled_configs(workload, true);
  const Prediction base = predict_scaled(machine, workload, natural, fit);
  if (measured.compute_seconds > 0 && base.compute_seconds > 0) fit.compute = measured.compute_seconds / base.compute_seconds;
  fit.compressed = fit.compute;
  if (measured.compressed_compute_seconds > 0) {
    // The measured compressed compute, less its natural-width part, over what the calibrated decode
    // rates predict for the compressed arrays (compute time is linear in each part's scale).
    const double natural_part = predict_scaled(machine, workload, fewest, {fit.compute, 0, 1, -1}).compute_seconds;
    const double compressed_part = predict_scaled(machine, workload, fewest, {0, 1, 1, -1}).compute_seconds;
    if (compressed_part > 0) fit.compressed = std::max(0.0, measured.compressed_compute_seconds - natural_part) / compressed_part;
  }
  if (!std::isfinite(fit.compute) || !std::isfinite(fit.compressed)) {
    // Seconds no run can take (up to 1.8e308 pass the profile's check) would scale compute to
    // infinity, and every prediction would come out 0 s.
    std::ostringstream why;
    why << std::setprecision(3) << "workload profile: measured.compute_seconds " << measured.compute_seconds
        << " / compressed_compute_seconds " << measured.compressed_compute_seconds
        << ": beyond what the model can scale its compute costs to";
    throw_error(ErrorCode::invalid_argument, why.str());
  }
  if (measured.seconds <= 0 || predict_scaled(machine, workload, natural, fit).memory_seconds <= 0) return fit;
  if (measured.compressed_seconds <= 0) {
    // One run: memory scaled so that the profiling configuration predicts it (the paper's
    // utilisation scaling, up or down), at the machine's overlap.
    fit.memory = solve_memory(machine, workload, natural, fit, measured.seconds);
    return fit;
  }
  // Two runs (natural widths and fewest bits): the workload's own overlap of compute and memory too,
  // the one whose memory scale for the first run best predicts the second.
  double best_error = std::numeric_limits<double>::infinity();
  ModelFit trial = fit;
  for (int step = 0; step <= overlap_steps; ++step) {
    trial.serial_fraction = static_cast<double>(step) / overlap_steps;
    trial.memory = solve_memory(machine, workload, natural, trial, measured.seconds);
    const double error = std::abs(predict_scaled(machine, workload, fewest, trial).loop_seconds - measured.compressed_seconds);
    if (error < best_error) {
      best_error = error;
      fit.serial_fraction = trial.serial_fraction;
      fit.memory = trial.memory;
    }
  }
  return fit;
}

Prediction predict(const MachineProfile& machine, const WorkloadProfile& workload, const std::vector<ArrayConfig>& configs,
                   const ModelFit& fit) {
  if (configs.size() != workload.arrays.size()) {
    throw_error(ErrorCode::invalid_argument, "predict: " + std::to_string(configs.size()) + " configurations for " +
                                                 std::to_string(workload.arrays.size()) + " arrays");
  }
  return predict_scaled(machine, workload, configs, fit);
}

Prediction predict(const MachineProfile& machine, const WorkloadProfile& workload, const std::vector<ArrayConfig>& configs) {
  return predict(machine, workload, configs, fit_model(machine, workload));
}

}  // namespace smartarrays::adapt
