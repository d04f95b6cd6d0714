// Owns the aggregation experiment of the paper's Figure 10 as a library routine: a grid over bit
// widths x placements x thread counts, arrays built once per (bits, placement), every run checked
// against the expected sum, medians and spread per cell. The `smartarrays bench aggregate`
// command and the benchmarks only parse, call this and print.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "smartarrays/array/options.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::algo {

/// What the grid covers and how often each cell runs.
struct AggregateBenchConfig {
  std::uint64_t length = std::uint64_t{1} << 24;                  ///< values per array (two arrays)
  std::vector<unsigned> bits{10, 31, 32, 33, 50, 63, 64};          ///< bit widths, 1..64
  std::vector<Placement> placements{Placement::os_default, Placement::single_node, Placement::interleaved,
                                    Placement::replicated};        ///< placements
  std::vector<std::size_t> threads;                                ///< worker counts; empty = {default_thread_count()}
  int repetitions = 5;                                             ///< timed runs per cell (median reported)
  int warmup = 1;                                                  ///< untimed runs per cell first
  runtime::PinPolicy pinning = runtime::PinPolicy::sparse;         ///< placement of the workers
  int node = 0;                                                    ///< the node of Placement::single_node
  bool huge_pages = false;                                         ///< ask for transparent huge pages for the arrays
  std::uint64_t seed = 1;                                          ///< data seed (array 2 uses seed + 1)
};

/// One cell of the grid.
struct AggregateBenchCell {
  unsigned bits = 0;                   ///< bit width of both arrays
  Placement placement = Placement::os_default;  ///< placement of both arrays
  std::size_t threads = 0;             ///< workers
  std::vector<double> seconds;         ///< every timed run, in run order
  double median_s = 0;                 ///< median of seconds
  double min_s = 0;                    ///< fastest run
  double max_s = 0;                    ///< slowest run
  double spread = 0;                   ///< (max - min) / median
  std::uint64_t bytes = 0;             ///< packed bytes of both arrays (what one run streams)
  double gb_per_s = 0;                 ///< bytes / median, in 10^9 bytes per second
  double values_per_s = 0;             ///< 2 * length / median
  double speedup_vs_64 = 0;            ///< median of the 64-bit cell (same placement, threads) / this median; 0 without one
  std::uint64_t sum = 0;               ///< the aggregation result (checked against the expected sum)
};

/// Where the grid is, for a progress display.
struct AggregateBenchProgress {
  std::size_t cells_done = 0;   ///< cells finished
  std::size_t cells_total = 0;  ///< cells in the grid
  unsigned bits = 0;            ///< cell being worked on
  Placement placement = Placement::os_default;  ///< cell being worked on
  std::size_t threads = 0;      ///< cell being worked on (0 while building arrays)
  std::string phase;            ///< "building", "running" or "done"
};

/// Checks a configuration; throws Error(invalid_argument) naming the first bad field.
SMARTARRAYS_API void validate(const AggregateBenchConfig& config);

/// Runs the grid (bits outermost, then placement, then threads) and returns one cell per
/// combination, in that order. progress (if set) is called from the calling thread before and
/// after each cell. Throws Error(internal) if a run's sum differs from the expected one.
SMARTARRAYS_API std::vector<AggregateBenchCell> run_aggregate_bench(
    const AggregateBenchConfig& config, const std::function<void(const AggregateBenchProgress&)>& progress = {});

}  // namespace smartarrays::algo
