// Owns turning edges into a CsrGraph: the edge list type every reader and generator produces, the
// construction options (duplicates, self-loops, symmetrising, per-array layout) and the parallel
// CSR builder that sorts every neighbour list so the result never depends on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph {

/// One directed edge src -> dst.
struct Edge {
  std::uint64_t src = 0;  ///< source vertex id
  std::uint64_t dst = 0;  ///< destination vertex id
  /// Same endpoints.
  friend bool operator==(const Edge&, const Edge&) = default;
};

/// Edges over vertices 0..vertices-1, as read or generated (any order, duplicates allowed).
struct EdgeList {
  std::uint64_t vertices = 0;  ///< vertex count n; every id is below it
  std::vector<Edge> edges;     ///< the edges
  bool directed = true;        ///< false: each edge stands for both directions (symmetric input)
};

/// How build_csr treats the edges and lays out the arrays.
struct BuildOptions {
  bool dedup = false;            ///< keep one copy of repeated edges (per direction)
  bool drop_self_loops = false;  ///< drop edges v -> v
  GraphLayout layout{};          ///< placement and bits of each array (default: os_default, minimum bits)
};

/// Builds the CSR arrays of edges in parallel on pool: counts, a parallel prefix sum, a scatter and
/// a per-vertex sort, forward and reverse. An undirected list (directed = false) stores both
/// directions of each edge (a self-loop once). Throws Error(invalid_argument) naming the first
/// edge with an id >= vertices, or an array whose width cannot hold its values.
SMARTARRAYS_API CsrGraph build_csr(const EdgeList& edges, const BuildOptions& options = {},
                                   runtime::ThreadPool& pool = runtime::default_pool());
/// The same from a list the caller gives up: its edges are freed once placed into the forward CSR
/// (before sorting, transposing and encoding), so the build holds less at its peak; the list's
/// edges are empty afterwards (also when it throws after the placement).
SMARTARRAYS_API CsrGraph build_csr(EdgeList&& edges, const BuildOptions& options = {},
                                   runtime::ThreadPool& pool = runtime::default_pool());

/// A forward CSR held in plain vectors, as a binary file stores one.
struct CsrParts {
  std::vector<std::uint64_t> offsets;  ///< n+1 offsets
  std::vector<std::uint64_t> targets;  ///< offsets[n] neighbour ids
};

/// Builds a CsrGraph from a forward CSR (neighbour lists in any order) over offsets.size() - 1
/// vertices: sorted, deduplicated and self-loop-filtered as options say; the reverse arrays are its
/// transpose. An undirected CSR (directed = false) must hold both directions of every edge. Throws
/// Error(invalid_argument) for offsets that are not a valid CSR, ids >= the vertex count, or an
/// undirected CSR that is not symmetric (naming the first edge whose reverse count differs).
SMARTARRAYS_API CsrGraph build_csr(CsrParts forward, bool directed, const BuildOptions& options = {},
                                   runtime::ThreadPool& pool = runtime::default_pool());

/// The forward edges of graph as an edge list (source-major, ascending), directed as the graph says;
/// an undirected graph's list names each edge once (u <= v), as build_csr expects it.
SMARTARRAYS_API EdgeList to_edge_list(const CsrGraph& graph, runtime::ThreadPool& pool = runtime::default_pool());

}  // namespace smartarrays::graph
