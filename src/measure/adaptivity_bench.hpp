// Owns the evaluation of the adaptive choice (the paper's §6.3 on this machine): for aggregation at
// several widths, degree centrality and PageRank, at each thread count and memory scenario, every
// static configuration that fits and the adaptive choice are timed side by side; the result says
// where the choice was the measured best, its loss against the optimum and its gain over the best
// static configuration. `smartarrays bench adaptivity` parses, calls this and prints.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "measure/timing.hpp"
#include "smartarrays/adapt/decision.hpp"
#include "smartarrays/adapt/machine_profile.hpp"
#include "smartarrays/adapt/workload.hpp"

namespace smartarrays::measure {

/// What the evaluation covers.
struct AdaptivityConfig {
  adapt::MachineProfile machine;                          ///< the profile decisions are made with
  std::uint64_t aggregate_length = std::uint64_t{8} << 20;  ///< values per aggregation array
  std::vector<unsigned> widths{10, 31, 32, 33, 50, 63, 64};  ///< aggregation data widths
  std::uint64_t vertices = std::uint64_t{1} << 20;          ///< graph vertices (degree, pagerank)
  double average_degree = 8;                                ///< graph edges per vertex
  unsigned iterations = 5;                                  ///< PageRank iterations per run
  std::vector<std::size_t> threads;                         ///< thread counts; empty = 1 and every CPU
  std::vector<std::string> workloads{"aggregate", "degree", "pagerank"};  ///< families to run
  Trials trials{1, 3};                                      ///< per configuration
  /// Each configuration is timed until its runs add up to this many seconds (at least
  /// trials.repetitions runs, at most max_repetitions): a run of a few milliseconds needs hundreds
  /// of runs before its median stops moving with the machine's noise.
  double min_seconds = 0.25;
  int max_repetitions = 1000;  ///< the cap on timed runs per configuration that min_seconds may reach
  /// Compare runs by their fastest time instead of the median: on a loaded shared machine the
  /// fastest run is the least disturbed one.
  bool compare_min = false;
  /// Decide with profiles measured here (each workload run once per thread count in the profiling
  /// configuration, as `advise --measure` does) rather than derived from the definitions alone.
  bool measure_profiles = true;
};

/// One timed configuration of a case.
struct ConfigTiming {
  std::string label;                        ///< "interleaved/U", or "adaptive"
  std::vector<adapt::ArrayConfig> configs;  ///< one per array of the workload
  Timing timing;                            ///< measured
  double predicted_s = 0;                   ///< the model's prediction for it
  std::vector<std::string> static_keys;     ///< the static choices it stands for across a family ("interleaved/compressed")
};

/// One case: a workload at a thread count in a memory scenario.
struct AdaptivityCase {
  std::string family;     ///< "aggregate", "degree" or "pagerank"
  std::string workload;   ///< "aggregate/33", "degree", "pagerank"
  std::size_t threads = 0;
  std::string scenario;   ///< "enough", "no-uncompressed-replication", "no-compressed-replication"
  std::uint64_t free_bytes_per_node = 0;  ///< the scenario's free memory
  adapt::WorkloadProfile profile;         ///< the profile the choice was made with (measured or derived)
  bool feasible = true;   ///< some configuration fits (else the case is skipped)
  std::vector<ConfigTiming> statics;      ///< every static configuration that fits
  ConfigTiming adaptive;                  ///< the adaptive choice, timed
  std::string choice;                     ///< the choice in words
  std::string best_label;                 ///< the fastest static configuration
  double best_s = 0;                      ///< its time (median, or minimum with compare_min)
  double adaptive_s = 0;                  ///< the adaptive choice's time, the same statistic
  double loss = 0;                        ///< adaptive_s / best_s - 1
  bool best_within_spread = false;        ///< adaptive median <= best median * (1 + best spread), or adaptive is best
  double best_static_s = 0;               ///< the time of the family's best static configuration here (0 if it does not fit)
  /// With one memory node, configurations that differ only in placement put their pages in the
  /// same memory: pooled, their runs are one configuration measured several times.
  std::string pooled_best;                ///< the fastest width/huge-page class ("33" or "64+hp" per array)
  double pooled_loss = 0;                 ///< the adaptive class's pooled median / the best class's - 1
};

/// The summary over feasible cases.
struct AdaptivitySummary {
  std::size_t cases = 0;                 ///< feasible cases
  std::size_t skipped = 0;               ///< cases where nothing fits
  std::size_t best_within_spread = 0;    ///< cases where the choice is the measured best within the spread
  std::size_t within_5_percent = 0;      ///< cases with loss <= 5%
  double mean_loss = 0;                  ///< mean of max(loss, 0)
  double worst_loss = 0;                 ///< largest loss
  std::vector<std::pair<std::string, std::string>> best_static;  ///< per family, the best static label
  double gain_over_static = 0;           ///< mean of static median / adaptive median - 1
  /// The same mean for the best static configuration of each case in place of the adaptive choice:
  /// the gain a perfect choice among the static configurations would have, the ceiling of
  /// gain_over_static for a selector that picks only among them.
  double static_oracle_gain = 0;
  std::size_t static_cases = 0;          ///< cases the gain is averaged over (where the best static one fits)
  bool pooled = false;                   ///< one memory node: the pooled figures below apply
  std::size_t pooled_within_5_percent = 0;  ///< cases whose pooled loss is <= 5%
  double pooled_mean_loss = 0;           ///< mean of max(pooled loss, 0)
  double pooled_worst_loss = 0;          ///< largest pooled loss
  std::vector<std::pair<std::string, std::string>> pooled_best_static;  ///< per family, the best static width class
  double pooled_gain_over_static = 0;    ///< mean of the best static class's pooled median / the adaptive class's - 1
  double pooled_static_oracle_gain = 0;  ///< the same for each case's fastest static class: a perfect choice's gain
};

/// Progress of the evaluation.
struct AdaptivityProgress {
  std::size_t done = 0;   ///< configurations timed
  std::string what;       ///< what is being timed
  bool milestone = false; ///< a step a log should show (a graph, a profile, a family's first round)
};

/// The evaluation's result.
struct AdaptivityResult {
  std::vector<AdaptivityCase> cases;  ///< every case
  AdaptivitySummary summary;          ///< over the feasible cases
};

/// Runs the evaluation. Throws Error for bad configuration or a failed run.
AdaptivityResult run_adaptivity_bench(const AdaptivityConfig& config,
                                      const std::function<void(const AdaptivityProgress&)>& progress = {});

}  // namespace smartarrays::measure
