// Owns the PageRank workload of the smart-arrays paper (§5.2, Figure 12): pull-style Jacobi
// iterations over the reverse CSR arrays (rbegin, redge) and out-degrees derived from the forward
// offsets (begin[v+1] - begin[v], as GAP derives them), with
// ranks and per-vertex contributions (rank / out-degree) as vertex arrays of IEEE scores whose
// precision is a per-run choice: 64-bit doubles (default) or 32-bit floats (GAP's reference).
#pragma once

#include <bit>
#include <cstdint>
#include <span>
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

/// The precision of PageRank's rank and contribution arrays.
enum class ScorePrecision : int {
  f64 = 0,  ///< IEEE doubles in 64-bit values (exact against the references)
  f32 = 1,  ///< IEEE floats in 32-bit values: half the bytes in the random gather, as GAP's reference
};

/// "f64" or "f32".
SMARTARRAYS_API const char* to_string(ScorePrecision precision) noexcept;
/// The precision spelled "f64" or "f32" (also "float64", "float32"); throws Error(invalid_argument).
SMARTARRAYS_API ScorePrecision parse_score_precision(std::string_view name);
/// Bits per score of precision: 64 or 32.
inline unsigned score_bits(ScorePrecision precision) noexcept { return precision == ScorePrecision::f32 ? 32 : 64; }

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
  /// Precision of the ranks and contributions (their bits are score_bits() of it).
  ScorePrecision scores = ScorePrecision::f64;
  /// Placement of the contributions array the edge loop reads at random (bits from scores):
  /// the paper's placement variations apply to it; replicated gives every node a local copy.
  ArrayOptions contributions{};
  /// Placement of the rank (output) array, written every iteration (bits from scores); the paper
  /// always interleaves it. Must not be replicated.
  ArrayOptions ranks = interleaved_options();
};

/// Throws Error(invalid_argument) naming the first bad option: damping outside (0, 1], tolerance
/// not a finite number >= 0, max_iterations 0, an unknown dangling rule or score precision, or replicated ranks. The
/// command, the C ABI and the bindings all check options through this, so they reject the same values
/// with the same words.
SMARTARRAYS_API void validate(const PageRankOptions& options);

/// What pagerank returns.
struct PageRankResult {
  /// n ranks as IEEE doubles in 64-bit values, or floats in 32-bit values for ScorePrecision::f32
  /// (rank_at() reads either). Ranks are >= 0, so their bit patterns order like the values: top_k()
  /// on this array gives the top-ranked vertices.
  SmartArray ranks;
  unsigned iterations = 0;        ///< iterations run
  double difference = 0;          ///< sum of |rank - previous rank| of the last iteration
  bool converged = false;         ///< difference < tolerance
  std::vector<double> iteration_seconds;  ///< wall time of each iteration (edge loop + contributions)
  /// The last contributions (rank / out-degree, 0 for dangling vertices) in the ranks' precision;
  /// kept for their memory report and placement.
  SmartArray contributions;
};

/// The rank of vertex v stored in a ranks array (a 32-bit array holds floats, else doubles).
inline double rank_at(const SmartArray& ranks, std::uint64_t v) {
  const std::uint64_t value = ranks.get(v);
  return ranks.bits() == 32 ? std::bit_cast<float>(static_cast<std::uint32_t>(value)) : std::bit_cast<double>(value);
}

/// PageRank on pool over a graph given by its reverse CSR (rbegin: n+1 offsets, redge: in-neighbour
/// ids) and its forward offsets (begin: n+1 offsets, whose differences are the out-degrees; an
/// undirected graph passes its one CSR's offsets as both). Every batch reads rbegin, redge, begin
/// and the contributions from the worker's own node's replicas, with one bit-width dispatch per
/// batch. Initial ranks are 1/n. Throws Error(invalid_argument) for mismatched lengths or bad options.
SMARTARRAYS_API PageRankResult pagerank(const SmartArray& rbegin, const SmartArray& redge, const SmartArray& begin,
                                        const PageRankOptions& options = {},
                                        runtime::ThreadPool& pool = runtime::default_pool());

/// The teleport term of an iteration over n vertices: (1 - d) / n, plus d * dangling / n under the
/// uniform rule, where dangling is the rank the dangling vertices held after the previous iteration.
SMARTARRAYS_API double pagerank_teleport(const PageRankOptions& options, std::uint64_t n, double dangling);

/// What one worker's part of a distributed PageRank yields per iteration besides its new ranks and
/// contributions.
struct PageRankPartTotals {
  double difference = 0;  ///< sum over the part of |new rank - previous rank|
  double dangling = 0;    ///< the new ranks of the part's dangling vertices, summed (uniform rule; else 0)
  std::uint64_t dangling_vertices = 0;  ///< the part's vertices without out-edges (pagerank_part_start only)
};

/// The start of a distributed PageRank (f64 scores) over a part of count vertices of a graph of
/// `vertices` vertices, given the part's count + 1 out-offsets in begin (any base: out-degree k is
/// begin[k+1] - begin[k]; graph::PullPart::begin): ranks 1/vertices and contributions = rank /
/// out-degree (0 for dangling vertices) into ranks and contributions (count each). The run's first
/// dangling rank is the dangling vertices of every part times 1/vertices. Throws
/// Error(invalid_argument) for mismatched lengths, ranks and contributions that overlap, or an empty begin.
SMARTARRAYS_API PageRankPartTotals pagerank_part_start(const SmartArray& begin, std::uint64_t vertices,
                                                       std::span<double> ranks, std::span<double> contributions,
                                                       runtime::ThreadPool& pool = runtime::default_pool());

/// One pull iteration of a distributed PageRank (f64 scores) over a part [first, first + count) of a
/// graph's reverse CSR (graph::PullPart: rbegin from 0, redge of whole-graph ids, begin: the part's
/// count + 1 out-offsets), given
/// every vertex's contributions from the previous iteration, the part's previous ranks, and the
/// dangling rank every part reported: writes the part's new ranks and contributions exactly as
/// pagerank() computes them. new_ranks may be ranks itself (updated in place); on the whole graph
/// (count = vertices) new_contributions may be contributions itself (rewritten after the pull, as
/// pagerank() does); every other pair of buffers must not overlap. Throws Error(invalid_argument)
/// for mismatched lengths, overlapping buffers, bad options or a dangling rank not finite and >= 0.
SMARTARRAYS_API PageRankPartTotals pagerank_part_step(const SmartArray& rbegin, const SmartArray& redge,
                                                      const SmartArray& begin, std::span<const double> contributions,
                                                      std::span<const double> ranks, double dangling,
                                                      const PageRankOptions& options, std::span<double> new_ranks,
                                                      std::span<double> new_contributions,
                                                      runtime::ThreadPool& pool = runtime::default_pool());

}  // namespace smartarrays::algo
