// Owns the analytics workloads W1-W4 of the NUMA analytics study as a measurement: the dataset
// generated once (smart columns, and plain 64-bit copies for the classic side), each chosen
// implementation (classic: ordinary containers; smart: the collections) timed by the harness with
// its peak extra memory sampled, every run's result checked, and the implementations checked
// against each other. `smartarrays bench workload` parses, calls this and prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "measure/timing.hpp"
#include "smartarrays/array/options.hpp"
#include "smartarrays/collections/datasets.hpp"

namespace smartarrays::measure {

/// The study's workloads (its Table 1).
enum class Workload : int {
  w1 = 1,  ///< holistic aggregation: MEDIAN(val) GROUP BY key
  w2 = 2,  ///< distributive aggregation: COUNT(*) GROUP BY key
  w3 = 3,  ///< hash join of 1:16 tables, counted
  w4 = 4,  ///< index nested loop join over a pre-built index, counted
  map = 5,  ///< key -> value lookups: a hash map of R's keys -> rows built once, S's keys looked up
};

/// "w1" .. "w4", "map".
const char* to_string(Workload workload) noexcept;
/// The workload spelled name; throws Error(invalid_argument) listing the valid names.
Workload parse_workload(std::string_view name);

/// How a workload is implemented.
enum class Implementation : int {
  classic = 0,  ///< ordinary containers, as the study's code (collections::classic)
  smart = 1,    ///< smart collections (collections::GroupBy, hash_join_count, SortedIndex, HashMap)
};

/// "classic" or "smart".
const char* to_string(Implementation implementation) noexcept;
/// The implementation spelled name; throws Error(invalid_argument) listing the valid names.
Implementation parse_implementation(std::string_view name);

/// What to run.
struct WorkloadBenchConfig {
  Workload workload = Workload::w1;                                             ///< the query
  std::vector<Implementation> implementations{Implementation::classic, Implementation::smart};  ///< in run order
  collections::Distribution dataset = collections::Distribution::heavy_hitter;  ///< keys of W1/W2
  std::uint64_t records = std::uint64_t{1} << 24;  ///< W1/W2 records; W3/W4 probe rows |S|
  std::uint64_t groups = std::uint64_t{1} << 16;   ///< W1/W2 group-by cardinality
  std::uint64_t join_ratio = 16;                   ///< W3/W4 |S| / |R|
  std::size_t threads = 0;                         ///< workers; 0 = default_thread_count()
  Trials trials{1, 3};                             ///< warm-up and timed runs per implementation
  ArrayOptions options;                            ///< placement of the smart columns and structures (bits 0)
  std::uint64_t seed = 1;                          ///< data seed
};

/// One implementation's measurement.
struct WorkloadBenchResult {
  Implementation implementation = Implementation::smart;  ///< which
  Timing timing;                                          ///< timed runs (W4, map: lookups only; the structure is pre-built)
  double prepare_seconds = 0;                             ///< W4, map: building the index or map once; else 0
  std::uint64_t data_bytes = 0;                           ///< the input columns as this side holds them
  std::uint64_t peak_extra_bytes = 0;                     ///< peak resident growth during a run (structures, scratch, result)
  std::uint64_t structure_bytes = 0;                      ///< W4, map: the index's or map's bytes; else 0
  std::uint64_t groups = 0;                               ///< W1/W2: groups in the result; W3/W4: 0
  std::uint64_t checksum = 0;  ///< W1/W2: a hash of (key, aggregate) pairs; W3/W4: match count; map: sum of values found
};

/// Where the run is, for a progress display.
struct WorkloadBenchProgress {
  std::string phase;  ///< "generating", "preparing", "running", "checking" or "done"
  Implementation implementation = Implementation::smart;  ///< the one being worked on
  int run = 0;        ///< runs of it done (warm-up included)
  int runs = 0;       ///< runs of it in all
};

/// Checks a configuration; throws Error(invalid_argument) naming the first bad field.
void validate(const WorkloadBenchConfig& config);

/// The rows of the dataset config describes: W1/W2 records (keys, values); W3/W4/map |R| and |S|.
collections::JoinSpec join_spec(const WorkloadBenchConfig& config);

/// Runs every implementation of config in order; throws Error(internal) when a run's result is
/// wrong (W3/W4: a count other than |S|; map: a probe not found; W1: a sampled group's median other than its sorted
/// values' middle) or when two implementations disagree. progress (if set) runs on the calling thread.
std::vector<WorkloadBenchResult> run_workload_bench(const WorkloadBenchConfig& config,
                                                    const std::function<void(const WorkloadBenchProgress&)>& progress = {});

/// Writes the dataset of config as .npy files into dir (keys.npy and values.npy for W1/W2,
/// build.npy and probe.npy for W3/W4/map) and returns their paths; throws Error(os_error) when it cannot.
std::vector<std::string> write_workload_dataset(const WorkloadBenchConfig& config, const std::string& dir);

}  // namespace smartarrays::measure
