// Owns the aggregation experiment of the paper's Figure 10: a grid over bit widths x placements x
// thread counts, arrays built once per (bits, placement), each cell timed by the harness with every
// run's sum checked against the expected one. `smartarrays bench aggregate` only parses, calls
// this and prints; the library's algo::aggregate is what it measures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "measure/timing.hpp"
#include "smartarrays/adapt/decision.hpp"
#include "smartarrays/array/options.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::measure {

/// What the grid covers and how often each cell runs.
struct AggregateBenchConfig {
  std::uint64_t length = std::uint64_t{1} << 24;                  ///< values per array (two arrays)
  std::vector<unsigned> bits{10, 31, 32, 33, 50, 63, 64};          ///< bit widths, 1..64
  std::vector<Placement> placements{Placement::os_default, Placement::single_node, Placement::interleaved,
                                    Placement::replicated};        ///< placements
  std::vector<std::size_t> threads;                                ///< worker counts; empty = {default_thread_count()}
  Trials trials;                                                   ///< warm-up and timed runs per cell (median reported)
  runtime::PinPolicy pinning = runtime::PinPolicy::sparse;         ///< placement of the workers
  int node = 0;                                                    ///< the node of Placement::single_node
  HugePages huge_pages = HugePages::automatic;                     ///< the arrays' huge pages (off, on, auto, 2M, 1G)
  std::uint64_t seed = 1;                                          ///< data seed (array 2 uses seed + 1)
};

/// One cell of the grid.
struct AggregateBenchCell {
  unsigned bits = 0;                            ///< bit width of both arrays
  Placement placement = Placement::os_default;  ///< placement of both arrays
  std::size_t threads = 0;                      ///< workers
  Timing timing;                                ///< the timed runs
  std::uint64_t bytes = 0;                      ///< packed bytes of both arrays (what one run streams)
  double gb_per_s = 0;                          ///< bytes / median, in 10^9 bytes per second
  double values_per_s = 0;                      ///< 2 * length / median
  double speedup_vs_64 = 0;                     ///< median of the 64-bit cell (same placement, threads) / this median; 0 without one
  std::uint64_t sum = 0;                        ///< the aggregation result (checked against the expected sum)
};

/// Where the grid is, for a progress display.
struct AggregateBenchProgress {
  std::size_t cells_done = 0;                   ///< cells finished
  std::size_t cells_total = 0;                  ///< cells in the grid
  unsigned bits = 0;                            ///< cell being worked on
  Placement placement = Placement::os_default;  ///< cell being worked on
  std::size_t threads = 0;                      ///< cell being worked on (0 while building arrays)
  std::string phase;                            ///< "building", "running" or "done"
};

/// Checks a configuration; throws Error(invalid_argument) naming the first bad field.
void validate(const AggregateBenchConfig& config);

/// The worker counts the grid runs: config.threads, or the default pool's size when it is empty.
std::vector<std::size_t> thread_counts(const AggregateBenchConfig& config);

/// Runs the grid (bits outermost, then placement, then threads) and returns one cell per
/// combination, in that order. progress (if set) is called from the calling thread before and
/// after each cell. Throws Error(internal) if a run's sum differs from the expected one.
std::vector<AggregateBenchCell> run_aggregate_bench(
    const AggregateBenchConfig& config, const std::function<void(const AggregateBenchProgress&)>& progress = {});

/// One cell of the adaptive run: data of a width, the options the adaptive layer chose, the timing.
struct AdaptiveAggregateCell {
  unsigned data_bits = 0;               ///< width of the values
  std::size_t threads = 0;              ///< workers
  ArrayOptions a1;                      ///< chosen for array 1
  ArrayOptions a2;                      ///< chosen for array 2
  Timing timing;                        ///< the timed runs
  double gb_per_s = 0;                  ///< packed bytes of both arrays / median
  std::uint64_t sum = 0;                ///< the aggregation result (checked)
  adapt::Decision decision;             ///< why
};

/// The aggregation with placement and/or bits chosen by the adaptive layer on machine: for every
/// width of config.bits (the data's width) and thread count, the decision for the aggregate
/// workload, arrays built as it says (placement auto: placement and huge pages; bits auto: the
/// width; otherwise config.placements[0] / the data's width), timed with every sum checked. With
/// placement auto and no config.threads, the decision's thread count and pinning run it.
std::vector<AdaptiveAggregateCell> run_adaptive_aggregate(
    const AggregateBenchConfig& config, const adapt::MachineProfile& machine, bool auto_placement, bool auto_bits,
    const std::function<void(const AggregateBenchProgress&)>& progress = {});

}  // namespace smartarrays::measure
