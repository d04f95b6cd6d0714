// Owns the synthetic graph generators: uniform random (Erdős–Rényi style G(n, m)) and R-MAT /
// Kronecker with the Graph500 parameters. Every edge is a pure function of (seed, edge index), so
// the list is identical for a seed whatever the thread count.
#pragma once

#include <cstdint>

#include "smartarrays/export.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph {

/// Uniform random graph: vertices * average_degree directed edges, each endpoint drawn uniformly
/// (duplicates and self-loops possible, as in G(n, m) with replacement; see BuildOptions).
struct UniformOptions {
  std::uint64_t vertices = 1024;  ///< n (>= 1)
  double average_degree = 16;     ///< edges per vertex (>= 0); m = round(n * average_degree)
  std::uint64_t seed = 1;         ///< the same seed gives the same edges
};

/// R-MAT / Kronecker graph: 2^scale vertices, edge_factor * 2^scale edges, each placed by scale
/// recursive quadrant choices with probabilities a, b, c and d = 1 - a - b - c (Graph500 defaults),
/// then vertex ids scrambled by a seeded bijection so hubs are not all at small ids.
struct RmatOptions {
  unsigned scale = 16;             ///< log2 of the vertex count (1..40)
  std::uint64_t edge_factor = 16;  ///< edges per vertex, >= 1
  double a = 0.57;                 ///< top-left quadrant
  double b = 0.19;                 ///< top-right quadrant
  double c = 0.19;                 ///< bottom-left quadrant
  bool scramble = true;            ///< permute vertex ids (Graph500 does)
  std::uint64_t seed = 1;          ///< the same seed gives the same edges
};

/// The uniform random edge list, generated in parallel on pool. Throws Error(invalid_argument) for bad options,
/// Error(out_of_memory) before any edge is made when its graph fails check_build_memory (limits.hpp).
SMARTARRAYS_API EdgeList generate_uniform(const UniformOptions& options,
                                          runtime::ThreadPool& pool = runtime::default_pool());

/// The R-MAT edge list, generated in parallel on pool. Throws Error(invalid_argument) for bad options,
/// Error(out_of_memory) before any edge is made when its graph fails check_build_memory (limits.hpp).
SMARTARRAYS_API EdgeList generate_rmat(const RmatOptions& options, runtime::ThreadPool& pool = runtime::default_pool());

}  // namespace smartarrays::graph
