// Owns the PageRank workload of the smart-arrays paper (§5.2, Figure 12): pull-style Jacobi
// iterations over the reverse CSR arrays (rbegin, redge) and the out-degree vertex property, with
// ranks and per-vertex contributions (rank / out-degree) as 64-bit vertex arrays of doubles.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::algo {

/// What happens to the rank of vertices without out-edges.
enum class DanglingRule : int {
  /// Nothing: their rank leaves the system, so ranks sum to less than 1 (the paper, GAP's pr_spmv).
  none = 0,
  /// Spread uniformly over all vertices every iteration, so ranks sum to 1 (networkx's pagerank).
  uniform = 1,
};

/// "none" or "uniform".
SMARTARRAYS_API const char* to_string(DanglingRule rule) noexcept;
/// The rule spelled "none" or "uniform"; throws Error(invalid_argument).
SMARTARRAYS_API DanglingRule parse_dangling_rule(std::string_view name);

/// Options of an array interleaved over every node (the paper's placement for output arrays).
inline ArrayOptions interleaved_options() {
  ArrayOptions options;
  options.placement = Placement::interleaved;
  return options;
}

/// PageRank parameters and the placement of its vertex arrays.
struct PageRankOptions {
  double damping = 0.85;          ///< d: rank = (1 - d) / n + d * (sum of in-neighbours' contributions [+ dangling share])
  double tolerance = 1e-3;        ///< stop once the sum over vertices of |rank - previous rank| is below this
  unsigned max_iterations = 100;  ///< stop after this many iterations even if not converged
  DanglingRule dangling = DanglingRule::none;  ///< see DanglingRule
  /// Placement of the contributions array the edge loop reads at random (bits are always 64):
  /// the paper's placement variations apply to it; replicated gives every node a local copy.
  ArrayOptions contributions{};
  /// Placement of the rank (output) array, written every iteration (bits always 64); the paper
  /// always interleaves it. Must not be replicated.
  ArrayOptions ranks = interleaved_options();
};

/// Throws Error(invalid_argument) naming the first bad option: damping outside (0, 1], tolerance
/// not a finite number >= 0, max_iterations 0, an unknown dangling rule, or replicated ranks. The
/// command, the C ABI and the bindings all check options through this, so they reject the same values
/// with the same words.
SMARTARRAYS_API void validate(const PageRankOptions& options);

/// What pagerank returns.
struct PageRankResult {
  /// n ranks as IEEE doubles in 64-bit values (rank_at() reads one). Ranks are >= 0, so their bit
  /// patterns order like the values: top_k() on this array gives the top-ranked vertices.
  SmartArray ranks;
  unsigned iterations = 0;        ///< iterations run
  double difference = 0;          ///< sum of |rank - previous rank| of the last iteration
  bool converged = false;         ///< difference < tolerance
  std::vector<double> iteration_seconds;  ///< wall time of each iteration (edge loop + contributions)
  /// The last contributions (rank / out-degree, 0 for dangling vertices) as doubles; kept for
  /// their memory report and placement.
  SmartArray contributions;
};

/// The rank of vertex v stored in a ranks array.
inline double rank_at(const SmartArray& ranks, std::uint64_t v) { return std::bit_cast<double>(ranks.get(v)); }

/// PageRank on pool over a graph given by its reverse CSR (rbegin: n+1 offsets, redge: in-neighbour
/// ids) and out-degrees. Every batch reads rbegin, redge, the out-degrees and the contributions
/// from the worker's own node's replicas, with one bit-width dispatch per batch. Initial ranks are
/// 1/n. Throws Error(invalid_argument) for mismatched lengths or bad options.
SMARTARRAYS_API PageRankResult pagerank(const SmartArray& rbegin, const SmartArray& redge, const SmartArray& out_degree,
                                        const PageRankOptions& options = {},
                                        runtime::ThreadPool& pool = runtime::default_pool());

}  // namespace smartarrays::algo
