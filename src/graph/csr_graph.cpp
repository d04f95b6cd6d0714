// Owns CsrGraph's bookkeeping: array and variant names, variant layouts, neighbour queries, the
// memory report and paper formula, and the parallel degree statistics and invariant check.
#include "smartarrays/graph/csr_graph.hpp"

#include <algorithm>
#include <string>

#include "graph/csr_parts.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::graph {

namespace {

constexpr util::NameTable<Variant, 4> variant_names{
    "variant", {{{Variant::U, "U"}, {Variant::V, "V"}, {Variant::VE, "V+E"}, {Variant::VE, "VE"}}}};

constexpr const char* array_names[graph_array_count] = {"begin", "edge", "rbegin", "redge"};

// U's widths (paper §5.2): 64-bit offsets, 32-bit vertex ids. The paper's 64-bit out-degree
// property is derived from begin, so no width of ours counts for it.
constexpr unsigned u_offset_bits = 64;
constexpr unsigned u_id_bits = 32;
constexpr unsigned derived_degree_bits = 0;
constexpr unsigned rank_bits = 64;

std::string describe_edge_count(const SmartArray& begin) {
  return begin.length() == 0 ? "no offsets" : std::to_string(begin.get(begin.length() - 1)) + " edges";
}

constexpr std::uint64_t no_position = ~std::uint64_t{0};
constexpr std::uint64_t top_bit = std::uint64_t{1} << 63;
// Values check_bounds decodes at a time per worker (16 KiB on its stack).
constexpr std::uint64_t bounds_block = 2048;

// The smallest position i of array for which flag(array[i - 1], array[i]) has its top bit set (the
// value before position 0 taken as 0), or no_position. Decoded block by block in parallel on pool,
// never whole; flag is branch-free, so a block is one vectorised pass (OR of the flags) and only a
// block that has a flagged value is looked at again, to find it.
template <typename Flag>
std::uint64_t first_flagged(const SmartArray& array, runtime::ThreadPool& pool, Flag&& flag) {
  return pool.parallel_reduce(
      0, array.length(), no_position,
      [&](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t window[bounds_block + 1];  // window[0]: the value before the block
        window[bounds_block] = lo == 0 ? 0 : array.get(lo - 1);
        for (std::uint64_t first = lo; first < hi; first += bounds_block) {
          const std::uint64_t count = std::min(bounds_block, hi - first);
          window[0] = window[bounds_block];
          array.decode(first, count, window + 1);
          std::uint64_t flags = 0;
          for (std::uint64_t k = 0; k < count; ++k) flags |= flag(window[k], window[k + 1]);
          if ((flags & top_bit) != 0) {
            for (std::uint64_t k = 0; k < count; ++k) {
              if ((flag(window[k], window[k + 1]) & top_bit) != 0) return first + k;
            }
          }
          window[bounds_block] = window[count];
        }
        return no_position;
      },
      [](std::uint64_t a, std::uint64_t b) { return std::min(a, b); });
}

}  // namespace

const char* to_string(GraphArray array) noexcept { return array_names[static_cast<std::size_t>(array)]; }

GraphArray parse_graph_array(std::string_view name) {
  for (std::size_t i = 0; i < graph_array_count; ++i) {
    if (name == array_names[i]) return static_cast<GraphArray>(i);
  }
  if (name == "out_degree") {
    throw_error(ErrorCode::invalid_argument,
                "graph array \"out_degree\" is no longer stored: out-degrees are derived from begin "
                "(begin[v+1] - begin[v])");
  }
  throw_error(ErrorCode::invalid_argument,
              "unknown graph array " + util::quoted(name) + " (expected begin, edge, rbegin or redge)");
}

const char* to_string(Variant variant) noexcept { return variant_names.c_name(variant); }

Variant parse_variant(std::string_view name) { return variant_names.parse(name); }

GraphLayout GraphLayout::for_variant(Variant variant, const ArrayOptions& placement) {
  GraphLayout layout;
  layout.set_placement(placement);
  const bool u = variant == Variant::U;
  const unsigned ids = variant == Variant::VE ? 0 : u_id_bits;
  layout[GraphArray::begin].bits = u ? u_offset_bits : 0;
  layout[GraphArray::rbegin].bits = u ? u_offset_bits : 0;
  layout[GraphArray::edge].bits = ids;
  layout[GraphArray::redge].bits = ids;
  return layout;
}

void GraphLayout::set_placement(const ArrayOptions& placement) {
  for (ArrayOptions& options : arrays) {
    const unsigned bits = options.bits;
    options = placement;
    options.bits = bits;
  }
}

void MemoryReport::add(std::string name, const SmartArray& array) {
  arrays.push_back({std::move(name), array.length(), array.bits(), array.placement(), array.replicas(), array.memory_bytes(), ""});
  total_bytes += array.memory_bytes();
}

void MemoryReport::add_shared(std::string name, const SmartArray& array, std::string shared_with) {
  arrays.push_back({std::move(name), array.length(), array.bits(), array.placement(), array.replicas(), 0, std::move(shared_with)});
}

double paper_memory_bits(std::uint64_t vertices, std::uint64_t edges, unsigned bits_begin, unsigned bits_edge,
                         unsigned bits_degree) noexcept {
  const double v = static_cast<double>(vertices);
  const double e = static_cast<double>(edges);
  return 2.0 * bits_begin * v + 2.0 * bits_edge * e + bits_degree * v + rank_bits * v;
}

CsrGraph::CsrGraph(std::array<SmartArray, graph_array_count> arrays, bool directed) : directed_(directed) {
  arrays_.reserve(graph_array_count);
  for (SmartArray& a : arrays) arrays_.push_back(std::move(a));
  check_lengths();
}

CsrGraph::CsrGraph(SmartArray begin, SmartArray edge) : directed_(false) {
  arrays_.reserve(2);
  arrays_.push_back(std::move(begin));
  arrays_.push_back(std::move(edge));
  check_lengths();
}

void CsrGraph::check_lengths() {
  const SmartArray& b = begin();
  const SmartArray& rb = rbegin();
  if (b.length() == 0 || rb.length() != b.length()) {
    throw_error(ErrorCode::invalid_argument, "CSR offsets: begin has " + std::to_string(b.length()) + " values, rbegin " +
                                                 std::to_string(rb.length()) + " (both need n + 1 >= 1)");
  }
  vertices_ = b.length() - 1;
  edges_ = b.get(vertices_);
  if (edge().length() != edges_ || redge().length() != edges_ || rb.get(vertices_) != edges_) {
    throw_error(ErrorCode::invalid_argument, "CSR edge arrays: begin ends at " + describe_edge_count(b) + ", rbegin at " +
                                                 describe_edge_count(rb) + ", edge holds " +
                                                 std::to_string(edge().length()) + " ids, redge " +
                                                 std::to_string(redge().length()));
  }
}

std::uint64_t CsrGraph::out_degree(std::uint64_t v) const {
  if (v >= vertices_) smartarrays::detail::throw_index_out_of_range(v, vertices_);
  std::uint64_t offsets[2];
  begin().decode(v, 2, offsets);
  return offsets[1] - offsets[0];
}

std::uint64_t CsrGraph::in_degree(std::uint64_t v) const {
  if (v >= vertices_) smartarrays::detail::throw_index_out_of_range(v, vertices_);
  std::uint64_t offsets[2];
  rbegin().decode(v, 2, offsets);
  return offsets[1] - offsets[0];
}

void CsrGraph::out_degrees(std::span<std::uint64_t> out, runtime::ThreadPool& pool) const {
  if (out.size() != vertices_) {
    throw_error(ErrorCode::invalid_argument, "out_degrees: the buffer holds " + std::to_string(out.size()) +
                                                 " values for " + std::to_string(vertices_) + " vertices");
  }
  pool.parallel_for(0, vertices_, [&](std::uint64_t lo, std::uint64_t hi) {
    constexpr std::uint64_t block = 512;
    std::uint64_t offsets[block + 1];
    for (std::uint64_t first = lo; first < hi; first += block) {
      const std::uint64_t count = std::min(block, hi - first);
      begin().decode(first, count + 1, offsets);
      for (std::uint64_t k = 0; k < count; ++k) out[first + k] = offsets[k + 1] - offsets[k];
    }
  });
}

std::vector<std::uint64_t> CsrGraph::out_neighbours(std::uint64_t v) const {
  if (v >= vertices_) smartarrays::detail::throw_index_out_of_range(v, vertices_);
  const std::uint64_t lo = begin().get(v);
  std::vector<std::uint64_t> ids(begin().get(v + 1) - lo);
  if (!ids.empty()) edge().decode(lo, ids.size(), ids.data());
  return ids;
}

std::vector<std::uint64_t> CsrGraph::in_neighbours(std::uint64_t v) const {
  if (v >= vertices_) smartarrays::detail::throw_index_out_of_range(v, vertices_);
  const std::uint64_t lo = rbegin().get(v);
  std::vector<std::uint64_t> ids(rbegin().get(v + 1) - lo);
  if (!ids.empty()) redge().decode(lo, ids.size(), ids.data());
  return ids;
}

Variant CsrGraph::variant() const noexcept {
  const bool u = begin().bits() == u_offset_bits && rbegin().bits() == u_offset_bits && edge().bits() == u_id_bits &&
                 redge().bits() == u_id_bits;
  if (u) return Variant::U;
  return edge().bits() < u_id_bits || redge().bits() < u_id_bits ? Variant::VE : Variant::V;
}

MemoryReport CsrGraph::memory_report() const {
  MemoryReport report;
  for (std::size_t i = 0; i < graph_array_count; ++i) {
    const auto a = static_cast<GraphArray>(i);
    if (slot(a) == i) {
      report.add(array_names[i], array(a));
    } else {
      report.add_shared(array_names[i], array(a), array_names[slot(a)]);
    }
  }
  return report;
}

double CsrGraph::paper_memory_bits() const noexcept {
  return graph::paper_memory_bits(vertices_, edges_, std::max(begin().bits(), rbegin().bits()),
                                  std::max(edge().bits(), redge().bits()), derived_degree_bits);
}

double CsrGraph::paper_saving() const noexcept {
  const double u = graph::paper_memory_bits(vertices_, edges_, u_offset_bits, u_id_bits, derived_degree_bits);
  return u > 0 ? 1.0 - paper_memory_bits() / u : 0.0;
}

DegreeStats CsrGraph::degree_stats(runtime::ThreadPool& pool) const {
  DegreeStats stats = pool.parallel_reduce(
      0, vertices_, DegreeStats{},
      [&](std::uint64_t lo, std::uint64_t hi) {
        DegreeStats part;
        std::vector<std::uint64_t> out(hi - lo + 1), in(hi - lo + 1);
        begin().decode(lo, out.size(), out.data());
        rbegin().decode(lo, in.size(), in.data());
        for (std::uint64_t k = 0; k + 1 < out.size(); ++k) {
          part.max_out_degree = std::max(part.max_out_degree, out[k + 1] - out[k]);
          part.max_in_degree = std::max(part.max_in_degree, in[k + 1] - in[k]);
          part.without_out_edges += out[k + 1] == out[k] ? 1 : 0;
          part.without_in_edges += in[k + 1] == in[k] ? 1 : 0;
        }
        return part;
      },
      [](DegreeStats a, const DegreeStats& b) {
        a.max_out_degree = std::max(a.max_out_degree, b.max_out_degree);
        a.max_in_degree = std::max(a.max_in_degree, b.max_in_degree);
        a.without_out_edges += b.without_out_edges;
        a.without_in_edges += b.without_in_edges;
        return a;
      });
  stats.mean_degree = vertices_ == 0 ? 0.0 : static_cast<double>(edges_) / static_cast<double>(vertices_);
  return stats;
}

void CsrGraph::check_bounds(runtime::ThreadPool& pool) const {
  // n and m are below 2^63 (no array of 2^63 values fits in memory), so for values below 2^63 the
  // top bit of a difference is its sign, and a value with the top bit set is out of bounds itself.
  const std::size_t csrs = shares_reverse() ? 1 : 2;
  for (std::size_t k = 0; k < csrs; ++k) {
    const GraphArray offsets_name = k == 0 ? GraphArray::begin : GraphArray::rbegin;
    const GraphArray ids_name = k == 0 ? GraphArray::edge : GraphArray::redge;
    const SmartArray& offsets = array(offsets_name);
    const std::string offsets_text = to_string(offsets_name);
    if (const std::uint64_t first = offsets.get(0); first != 0) {
      throw_error(ErrorCode::invalid_argument, "CSR bounds: " + offsets_text + "[0] is " + std::to_string(first) + ", not 0");
    }
    // The constructor saw the last offset equal m, so offsets that never decrease stay within the ids.
    const std::uint64_t bad = first_flagged(offsets, pool, [](std::uint64_t previous, std::uint64_t value) {
      return (value - previous) | value;
    });
    if (bad != no_position) {
      const std::uint64_t value = offsets.get(bad), previous = offsets.get(bad - 1);
      throw_error(ErrorCode::invalid_argument,
                  "CSR bounds: " + offsets_text + "[" + std::to_string(bad) + "] = " + std::to_string(value) +
                      (value < previous ? " is below " + offsets_text + "[" + std::to_string(bad - 1) + "] = " + std::to_string(previous)
                                        : " is past the edge count " + std::to_string(edges_)));
    }
    const SmartArray& ids = array(ids_name);
    // An array of b-bit values holds none of 2^b or more: with 2^b <= n (a V+E graph of 2^k
    // vertices) its ids need no look.
    if (ids.bits() < 64 && (std::uint64_t{1} << ids.bits()) <= vertices_) continue;
    const std::uint64_t last_id = vertices_ - 1;  // not used when n = 0: m is then 0 too
    const std::uint64_t outside = first_flagged(ids, pool, [last_id](std::uint64_t, std::uint64_t id) { return (last_id - id) | id; });
    if (outside != no_position) {
      throw_error(ErrorCode::invalid_argument, std::string("CSR bounds: neighbour id ") + to_string(ids_name) + "[" +
                                                   std::to_string(outside) + "] = " + std::to_string(ids.get(outside)) +
                                                   " is not below the vertex count " + std::to_string(vertices_));
    }
  }
}

void CsrGraph::validate() const {
  runtime::ThreadPool& pool = runtime::default_pool();
  auto fail = [](const std::string& message) { throw_error(ErrorCode::internal, "CSR invariant broken: " + message); };
  CsrParts forward{detail::decode_all(begin(), pool), detail::decode_all(edge(), pool)};
  // A shared reverse is the forward CSR itself: decoded once, and the transpose check below is then
  // the symmetry of the undirected graph.
  CsrParts own_reverse;
  if (!shares_reverse()) own_reverse = {detail::decode_all(rbegin(), pool), detail::decode_all(redge(), pool)};
  const CsrParts& reverse = shares_reverse() ? forward : own_reverse;
  try {
    detail::check_parts(forward, vertices_, "forward", pool);
    if (!shares_reverse()) detail::check_parts(reverse, vertices_, "reverse", pool);
  } catch (const Error& e) {
    fail(e.what());
  }
  for (std::uint64_t v = 0; v < vertices_; ++v) {
    for (const CsrParts* parts : {&forward, &own_reverse}) {
      if (parts->offsets.empty()) continue;
      const auto first = parts->targets.begin() + static_cast<std::ptrdiff_t>(parts->offsets[v]);
      const auto last = parts->targets.begin() + static_cast<std::ptrdiff_t>(parts->offsets[v + 1]);
      if (!std::is_sorted(first, last)) {
        fail(std::string(parts == &forward ? "edge" : "redge") + " list of vertex " + std::to_string(v) + " is not ascending");
      }
    }
  }
  const CsrParts transposed = detail::transpose(forward, vertices_, pool);
  if (const auto d = detail::first_difference(transposed, reverse, vertices_, pool)) {
    const std::string edge = std::to_string(d->id) + " -> " + std::to_string(d->vertex);
    fail(std::string(shares_reverse() ? "the undirected graph's edges are not symmetric"
                                      : "the reverse arrays are not the transpose of the forward ones") +
         " (first difference at vertex " +
         std::to_string(d->vertex) + ": begin/edge hold " + edge + " " + detail::times(d->count_a) + ", rbegin/redge " +
         detail::times(d->count_b) + ")");
  }
}

}  // namespace smartarrays::graph
