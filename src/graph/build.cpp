// Owns the CSR builder: edge list -> forward CSR (parallel count, prefix sum, scatter), then the one
// pipeline every source shares — check, normalise, transpose (directed graphs; an undirected graph
// keeps one symmetric CSR) — and the encoding of the plain vectors into the graph's smart arrays
// with each array's own layout.
#include "smartarrays/graph/build.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "graph/csr_parts.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/util/checked.hpp"

namespace smartarrays::graph {

namespace {

constexpr std::uint64_t no_index = ~std::uint64_t{0};

}  // namespace

// Encodes values as graph array `which`, naming the array in any error (e.g. a U layout's 32-bit
// ids on a graph with more than 2^32 vertices).
SmartArray detail::encode_graph_array(GraphArray which, std::span<const std::uint64_t> values, const ArrayOptions& options,
                  runtime::ThreadPool& pool) {
  try {
    return build::build_array_from_values(values, options, pool);
  } catch (const Error& e) {
    throw Error(e.code(), std::string("graph array ") + to_string(which) + ": " + e.what());
  }
}

SmartArray detail::encode_out_degrees(const std::vector<std::uint64_t>& offsets, const ArrayOptions& options,
                                      runtime::ThreadPool& pool) {
  const std::uint64_t n = offsets.size() - 1;
  ArrayOptions resolved = options;
  if (resolved.bits == 0) {
    const std::uint64_t max = pool.parallel_reduce(
        0, n, std::uint64_t{0},
        [&](std::uint64_t lo, std::uint64_t hi) {
          std::uint64_t m = 0;
          for (std::uint64_t v = lo; v < hi; ++v) m = std::max(m, offsets[v + 1] - offsets[v]);
          return m;
        },
        [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); });
    resolved.bits = codec::min_bits(max);
  }
  try {
    return build::build_array(
        n, resolved,
        [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
          for (std::uint64_t v = lo; v < hi; ++v) out[v - lo] = offsets[v + 1] - offsets[v];
        },
        pool);
  } catch (const Error& e) {
    throw Error(e.code(), std::string("graph array out_degree: ") + e.what());
  }
}

// The graph of forward (and reverse, when directed): an undirected graph is one symmetric CSR
// whose arrays serve as the reverse ones too, encoded with begin's and edge's layout.
namespace {

using detail::encode_graph_array;

// Consumes forward and reverse: each vector is freed once its arrays are encoded, so the build
// never holds both CSRs' vectors and all the encoded arrays at once.
CsrGraph assemble(CsrParts& forward, CsrParts* reverse, const GraphLayout& layout, runtime::ThreadPool& pool) {
  SmartArray edge = encode_graph_array(GraphArray::edge, forward.targets, layout[GraphArray::edge], pool);
  detail::release(forward.targets);
  SmartArray begin = encode_graph_array(GraphArray::begin, forward.offsets, layout[GraphArray::begin], pool);
  SmartArray degrees = detail::encode_out_degrees(forward.offsets, layout[GraphArray::out_degree], pool);
  detail::release(forward.offsets);
  if (reverse == nullptr) return CsrGraph(std::move(begin), std::move(edge), std::move(degrees));
  SmartArray redge = encode_graph_array(GraphArray::redge, reverse->targets, layout[GraphArray::redge], pool);
  detail::release(reverse->targets);
  std::array<SmartArray, graph_array_count> arrays{
      std::move(begin), std::move(edge), encode_graph_array(GraphArray::rbegin, reverse->offsets, layout[GraphArray::rbegin], pool),
      std::move(redge), std::move(degrees)};
  return CsrGraph(std::move(arrays), true);
}

// Runs a build step, turning the plain vectors' std::bad_alloc into the library's Error.
template <typename F>
CsrGraph out_of_memory_as_error(std::uint64_t vertices, std::uint64_t edges, F&& build) {
  try {
    return build();
  } catch (const std::bad_alloc&) {
    throw_error(ErrorCode::out_of_memory, "building the CSR of " + std::to_string(vertices) + " vertices and " +
                                              std::to_string(edges) + " edges ran out of memory");
  } catch (const std::length_error&) {
    throw_error(ErrorCode::out_of_memory, "a CSR of " + std::to_string(vertices) + " vertices is too large");
  }
}

// owned, when given, is list itself, which the caller gives up: its edges are freed once placed
// into the forward CSR, before the sort, the transpose and the encoding.
CsrGraph build_edges(const EdgeList& list, const BuildOptions& options, runtime::ThreadPool& pool, EdgeList* owned) {
  const std::uint64_t n = list.vertices;
  const bool directed = list.directed;
  const std::vector<Edge>& edges = list.edges;
  const std::uint64_t bad = pool.parallel_reduce(
      0, edges.size(), no_index,
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t e = lo; e < hi; ++e) {
          if (edges[e].src >= n || edges[e].dst >= n) return e;
        }
        return no_index;
      },
      [](std::uint64_t a, std::uint64_t b) { return std::min(a, b); });
  if (bad != no_index) {
    const Edge& e = edges[bad];
    throw_error(ErrorCode::invalid_argument, "edge " + std::to_string(bad) + " (" + std::to_string(e.src) + " -> " +
                                                 std::to_string(e.dst) + ") has a vertex id not below the vertex count " +
                                                 std::to_string(n));
  }
  const bool both_ways = !list.directed;
  // Refused before the offsets are sized: n + 1 must not wrap, and the CSR must fit the machine.
  const std::uint64_t self_loops =
      both_ways ? pool.parallel_reduce(
                      0, edges.size(), std::uint64_t{0},
                      [&](std::uint64_t lo, std::uint64_t hi) {
                        return static_cast<std::uint64_t>(std::count_if(edges.begin() + static_cast<std::ptrdiff_t>(lo),
                                                                        edges.begin() + static_cast<std::ptrdiff_t>(hi),
                                                                        [](const Edge& e) { return e.src == e.dst; }));
                      },
                      std::plus<>())
                : 0;
  check_build_memory(n, stored_edge_count(edges.size(), self_loops, list.directed));
  auto kept = [&](const Edge& e) { return !(options.drop_self_loops && e.src == e.dst); };
  // An undirected edge u-v is stored as u->v and v->u; a self-loop only once.
  auto mirrored = [&](const Edge& e) { return both_ways && e.src != e.dst; };

  CsrParts forward;
  forward.offsets.assign(util::checked_add(n, 1, "the offsets of a graph"), 0);
  std::uint64_t* counts = forward.offsets.data();
  pool.parallel_for(0, edges.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      const Edge& e = edges[i];
      if (!kept(e)) continue;
      std::atomic_ref<std::uint64_t>(counts[e.src]).fetch_add(1, std::memory_order_relaxed);
      if (mirrored(e)) std::atomic_ref<std::uint64_t>(counts[e.dst]).fetch_add(1, std::memory_order_relaxed);
    }
  });
  detail::exclusive_scan(forward.offsets, pool);
  std::vector<std::uint64_t> cursor(forward.offsets.begin(), forward.offsets.end() - 1);
  forward.targets.resize(forward.offsets[n]);
  std::uint64_t* out = forward.targets.data();
  pool.parallel_for(0, edges.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      const Edge& e = edges[i];
      if (!kept(e)) continue;
      out[std::atomic_ref<std::uint64_t>(cursor[e.src]).fetch_add(1, std::memory_order_relaxed)] = e.dst;
      if (mirrored(e)) out[std::atomic_ref<std::uint64_t>(cursor[e.dst]).fetch_add(1, std::memory_order_relaxed)] = e.src;
    }
  });
  detail::release(cursor);
  if (owned != nullptr) detail::release(owned->edges);
  detail::normalize(forward, false, options.dedup, pool);
  // Both directions of every undirected edge were placed, so the CSR is symmetric as it stands.
  if (!directed) return assemble(forward, nullptr, options.layout, pool);
  CsrParts reverse = detail::transpose(forward, n, pool);
  return assemble(forward, &reverse, options.layout, pool);
}

}  // namespace

CsrGraph build_csr(const EdgeList& list, const BuildOptions& options, runtime::ThreadPool& pool) {
  return out_of_memory_as_error(list.vertices, list.edges.size(),
                                [&] { return build_edges(list, options, pool, nullptr); });
}

CsrGraph build_csr(EdgeList&& list, const BuildOptions& options, runtime::ThreadPool& pool) {
  return out_of_memory_as_error(list.vertices, list.edges.size(),
                                [&] { return build_edges(list, options, pool, &list); });
}

CsrGraph build_csr(CsrParts forward, bool directed, const BuildOptions& options, runtime::ThreadPool& pool) {
  if (forward.offsets.empty()) throw_error(ErrorCode::invalid_argument, "a CSR needs at least one offset (n + 1 of them)");
  const std::uint64_t n = forward.offsets.size() - 1;
  check_build_memory(n, forward.targets.size());
  return out_of_memory_as_error(n, forward.targets.size(), [&] {
    detail::check_parts(forward, n, "CSR", pool);
    detail::normalize(forward, options.drop_self_loops, options.dedup, pool);
    CsrParts reverse = detail::transpose(forward, n, pool);
    // An undirected graph stores both directions: a forward CSR that is not its own transpose would
    // make edge and redge disagree, and a writer would drop or invent edges.
    if (const auto d = directed ? std::nullopt : detail::first_difference(forward, reverse, n, pool)) {
      throw_error(ErrorCode::invalid_argument,
                  "an undirected CSR must be symmetric (first difference at vertex " + std::to_string(d->vertex) + ": " +
                      std::to_string(d->vertex) + " -> " + std::to_string(d->id) + " is stored " +
                      detail::times(d->count_a) + ", " + std::to_string(d->id) + " -> " + std::to_string(d->vertex) +
                      " " + detail::times(d->count_b) + ")");
    }
    if (!directed) {
      reverse = {};
      return assemble(forward, nullptr, options.layout, pool);
    }
    return assemble(forward, &reverse, options.layout, pool);
  });
}

EdgeList to_edge_list(const CsrGraph& graph, runtime::ThreadPool& pool) {
  EdgeList list;
  list.vertices = graph.vertices();
  list.directed = graph.directed();
  const std::vector<std::uint64_t> offsets = detail::decode_all(graph.begin(), pool);
  const std::vector<std::uint64_t> targets = detail::decode_all(graph.edge(), pool);
  list.edges.reserve(list.directed ? targets.size() : targets.size() / 2 + 1);
  for (std::uint64_t v = 0; v < list.vertices; ++v) {
    for (std::uint64_t e = offsets[v]; e < offsets[v + 1]; ++e) {
      if (list.directed || v <= targets[e]) list.edges.push_back({v, targets[e]});
    }
  }
  return list;
}

}  // namespace smartarrays::graph
