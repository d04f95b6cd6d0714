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
#include <type_traits>
#include <string>
#include <utility>

#include "graph/csr_parts.hpp"
#include "graph/edge_blocks.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/util/checked.hpp"

namespace smartarrays::graph {

namespace {

// Encodes values as graph array `which`, naming the array in any error (e.g. a U layout's 32-bit
// ids on a graph with more than 2^32 vertices, or its memory not mapped).
template <typename T>
SmartArray encode_named(GraphArray which, std::span<const T> values, const ArrayOptions& options, runtime::ThreadPool& pool) {
  return with_context(detail::array_context(which, values.size()),
                      [&] { return build::build_array_from_values(values, options, pool); });
}

}  // namespace

std::string detail::array_context(GraphArray which, std::uint64_t length) {
  return std::string("graph array ") + to_string(which) + " of " + std::to_string(length) + " values";
}

SmartArray detail::encode_graph_array(GraphArray which, std::span<const std::uint64_t> values, const ArrayOptions& options,
                                      runtime::ThreadPool& pool) {
  return encode_named(which, values, options, pool);
}

SmartArray detail::encode_graph_array(GraphArray which, std::span<const std::uint32_t> values,
                                      const ArrayOptions& options, runtime::ThreadPool& pool) {
  return encode_named(which, values, options, pool);
}

// The graph of forward (and reverse, when directed): an undirected graph is one symmetric CSR
// whose arrays serve as the reverse ones too, encoded with begin's and edge's layout.
namespace {

using detail::encode_graph_array;

// Consumes forward and reverse: each vector is freed once its arrays are encoded, so the build
// never holds both CSRs' vectors and all the encoded arrays at once. Parts is CsrParts or
// NarrowCsrParts.
template <typename Parts>
CsrGraph assemble(Parts& forward, std::type_identity_t<Parts>* reverse, const GraphLayout& layout, runtime::ThreadPool& pool) {
  SmartArray edge = encode_graph_array(GraphArray::edge, forward.targets, layout[GraphArray::edge], pool);
  detail::release(forward.targets);
  SmartArray begin = encode_graph_array(GraphArray::begin, forward.offsets, layout[GraphArray::begin], pool);
  detail::release(forward.offsets);
  if (reverse == nullptr) return CsrGraph(std::move(begin), std::move(edge));
  SmartArray redge = encode_graph_array(GraphArray::redge, reverse->targets, layout[GraphArray::redge], pool);
  detail::release(reverse->targets);
  std::array<SmartArray, graph_array_count> arrays{
      std::move(begin), std::move(edge), encode_graph_array(GraphArray::rbegin, reverse->offsets, layout[GraphArray::rbegin], pool),
      std::move(redge)};
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

// Loops over parts of edges, one part per batch.
runtime::LoopOptions part_per_batch() {
  runtime::LoopOptions options;
  options.alignment = 1;
  options.batch = 1;
  return options;
}

// The edges of an EdgeList as the build reads them: spans of list_part_edges edges, so each span is
// a worker's batch; the list itself is freed after the placement when the build owns it.
class ListParts {
 public:
  ListParts(const EdgeList& list, EdgeList* owned) : list_(list), owned_(owned) {}
  std::uint64_t vertices() const noexcept { return list_.vertices; }
  bool directed() const noexcept { return list_.directed; }
  std::uint64_t size() const noexcept { return list_.edges.size(); }
  std::uint64_t parts() const noexcept { return (size() + list_part_edges - 1) / list_part_edges; }
  std::uint64_t first(std::uint64_t k) const noexcept { return k * list_part_edges; }
  template <typename F>
  auto visit(std::uint64_t k, F&& f) const {
    return f(std::span<const Edge>(list_.edges).subspan(first(k), std::min(list_part_edges, size() - first(k))));
  }
  Edge edge(std::uint64_t index) const { return list_.edges[index]; }
  void placed(std::uint64_t) noexcept {}
  void all_placed() noexcept {
    if (owned_ != nullptr) detail::release(owned_->edges);
  }

 private:
  static constexpr std::uint64_t list_part_edges = std::uint64_t{1} << 16;
  const EdgeList& list_;
  EdgeList* owned_;
};

// The edges of parsed text blocks as the build reads them: a part per block, each freed once placed
// when the build consumes them.
class BlockParts {
 public:
  BlockParts(detail::EdgeBlocks& blocks, bool consume) : blocks_(blocks), consume_(consume), first_(blocks.blocks.size() + 1, 0) {
    for (std::size_t k = 0; k < blocks.blocks.size(); ++k) first_[k + 1] = first_[k] + blocks.blocks[k].size();
  }
  std::uint64_t vertices() const noexcept { return blocks_.vertices; }
  bool directed() const noexcept { return blocks_.directed; }
  std::uint64_t size() const noexcept { return first_.back(); }
  std::uint64_t parts() const noexcept { return blocks_.blocks.size(); }
  std::uint64_t first(std::uint64_t k) const noexcept { return first_[k]; }
  template <typename F>
  auto visit(std::uint64_t k, F&& f) const {
    return blocks_.blocks[k].visit(f);
  }
  Edge edge(std::uint64_t index) const {
    const auto k = static_cast<std::uint64_t>(std::upper_bound(first_.begin(), first_.end(), index) - first_.begin()) - 1;
    return visit(k, [&](auto edges) {
      const auto& e = edges[index - first_[k]];
      return Edge{e.src, e.dst};
    });
  }
  void placed(std::uint64_t k) noexcept {
    if (consume_) blocks_.blocks[k].release();
  }
  void all_placed() noexcept {}

 private:
  detail::EdgeBlocks& blocks_;
  bool consume_;
  std::vector<std::uint64_t> first_;  // the index of each block's first edge, and the total
};

// Calls store(from, to) for each direction the CSR stores of every edge of edges' parts, in parallel
// over the parts, and edges.placed(k) once part k is through when hand_back.
template <typename Edges, typename Store>
void for_each_stored(Edges& edges, const BuildOptions& options, bool hand_back, runtime::ThreadPool& pool, Store&& store) {
  const bool both_ways = !edges.directed();
  pool.parallel_for(
      0, edges.parts(),
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t k = lo; k < hi; ++k) {
          edges.visit(k, [&](auto part) {
            for (const auto& e : part) {
              if (options.drop_self_loops && e.src == e.dst) continue;
              store(e.src, e.dst);
              // An undirected edge u-v is stored as u->v and v->u; a self-loop only once.
              if (both_ways && e.src != e.dst) store(e.dst, e.src);
            }
          });
          if (hand_back) edges.placed(k);
        }
      },
      part_per_batch());
}

// The forward CSR of edges' parts, staged in Parts (CsrParts, or NarrowCsrParts when every id fits
// 32 bits): a counting pass, a prefix sum and a placement pass, each part handed back (placed())
// once its edges are in the CSR; then the shared sort, transpose and encoding.
template <typename Parts, typename Edges>
CsrGraph build_staged(Edges& edges, const BuildOptions& options, runtime::ThreadPool& pool) {
  using Id = typename decltype(Parts::targets)::value_type;
  const std::uint64_t n = edges.vertices();
  Parts forward;
  forward.offsets.assign(util::checked_add(n, 1, "the offsets of a graph"), 0);
  std::uint64_t* counts = forward.offsets.data();
  for_each_stored(edges, options, false, pool, [&](std::uint64_t from, std::uint64_t) {
    std::atomic_ref<std::uint64_t>(counts[from]).fetch_add(1, std::memory_order_relaxed);
  });
  detail::exclusive_scan(forward.offsets, pool);
  std::vector<std::uint64_t> cursor(forward.offsets.begin(), forward.offsets.end() - 1);
  forward.targets.resize(forward.offsets[n]);
  Id* out = forward.targets.data();
  for_each_stored(edges, options, true, pool, [&](std::uint64_t from, std::uint64_t to) {
    out[std::atomic_ref<std::uint64_t>(cursor[from]).fetch_add(1, std::memory_order_relaxed)] = static_cast<Id>(to);
  });
  detail::release(cursor);
  edges.all_placed();
  detail::normalize(forward, false, options.dedup, pool);
  // Both directions of every undirected edge were placed, so the CSR is symmetric as it stands.
  if (!edges.directed()) return assemble(forward, nullptr, options.layout, pool);
  Parts reverse = detail::transpose(forward, n, pool);
  return assemble(forward, &reverse, options.layout, pool);
}

// Checks edges' ids and the build's memory, then builds them with ids staged in 32 bits when the
// vertex count allows it.
template <typename Edges>
CsrGraph build_edges(Edges& edges, const BuildOptions& options, runtime::ThreadPool& pool) {
  const std::uint64_t n = edges.vertices();
  auto parts_reduce = [&](auto part_result, auto combine) {
    using T = decltype(part_result(std::uint64_t{0}));
    return pool.parallel_reduce(
        0, edges.parts(), T{},
        [&](std::uint64_t lo, std::uint64_t hi) {
          T result{};
          for (std::uint64_t k = lo; k < hi; ++k) result = combine(result, part_result(k));
          return result;
        },
        combine, part_per_batch());
  };
  // The index of the first edge with an id >= n, plus one (0: none).
  const std::uint64_t bad = parts_reduce(
      [&](std::uint64_t k) {
        return edges.visit(k, [&](auto part) {
          for (std::size_t i = 0; i < part.size(); ++i) {
            if (part[i].src >= n || part[i].dst >= n) return edges.first(k) + i + 1;
          }
          return std::uint64_t{0};
        });
      },
      [](std::uint64_t a, std::uint64_t b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); });
  if (bad != 0) {
    const Edge e = edges.edge(bad - 1);
    throw_error(ErrorCode::invalid_argument, "edge " + std::to_string(bad - 1) + " (" + std::to_string(e.src) + " -> " +
                                                 std::to_string(e.dst) + ") has a vertex id not below the vertex count " +
                                                 std::to_string(n));
  }
  // Refused before the offsets are sized: n + 1 must not wrap, and the CSR must fit the machine.
  const std::uint64_t self_loops =
      edges.directed() ? 0
                       : parts_reduce(
                             [&](std::uint64_t k) {
                               return edges.visit(k, [](auto part) {
                                 return static_cast<std::uint64_t>(
                                     std::count_if(part.begin(), part.end(), [](const auto& e) { return e.src == e.dst; }));
                               });
                             },
                             std::plus<>());
  check_build_memory(n, stored_edge_count(edges.size(), self_loops, edges.directed()));
  if (n <= std::uint64_t{1} << 32) return build_staged<detail::NarrowCsrParts>(edges, options, pool);
  return build_staged<CsrParts>(edges, options, pool);
}

}  // namespace

CsrGraph build_csr(const EdgeList& list, const BuildOptions& options, runtime::ThreadPool& pool) {
  ListParts edges(list, nullptr);
  return out_of_memory_as_error(list.vertices, list.edges.size(), [&] { return build_edges(edges, options, pool); });
}

CsrGraph build_csr(EdgeList&& list, const BuildOptions& options, runtime::ThreadPool& pool) {
  ListParts edges(list, &list);
  return out_of_memory_as_error(list.vertices, list.edges.size(), [&] { return build_edges(edges, options, pool); });
}

CsrGraph detail::build_csr(EdgeBlocks& blocks, const BuildOptions& options, runtime::ThreadPool& pool, bool consume) {
  BlockParts edges(blocks, consume);
  return out_of_memory_as_error(blocks.vertices, edges.size(), [&] { return build_edges(edges, options, pool); });
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
