// Owns the sa_graph entry points of the C ABI: argument checks and translation to GraphSource,
// CsrGraph and the graph algorithms, nothing more.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "capi/options.hpp"
#include "smartarrays.h"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/graph/layout_spec.hpp"
#include "smartarrays/graph/pull_part.hpp"
#include "smartarrays/graph/source.hpp"

namespace {

namespace graph = smartarrays::graph;
namespace algo = smartarrays::algo;
using smartarrays::ErrorCode;
using smartarrays::SmartArray;
using smartarrays::throw_error;
using smartarrays::capi::guarded;
using smartarrays::capi::guarded_value;
using smartarrays::capi::require;

// The bindings lay these structs out by hand; their shapes are part of the ABI.
static_assert(sizeof(sa_graph_variant) == 4 && sizeof(sa_dangling_rule) == 4);
static_assert(offsetof(sa_graph_options, variant) == 0 && offsetof(sa_graph_options, dedup) == 4 &&
              offsetof(sa_graph_options, drop_self_loops) == 8 && offsetof(sa_graph_options, undirected) == 12 &&
              offsetof(sa_graph_options, arrays) == 16 && offsetof(sa_graph_options, placement) == 80 &&
              offsetof(sa_graph_options, bits) == 88 && sizeof(sa_graph_options) == 96);
static_assert(offsetof(sa_graph_array_memory, name) == 0 && offsetof(sa_graph_array_memory, length) == 8 &&
              offsetof(sa_graph_array_memory, bytes) == 16 && offsetof(sa_graph_array_memory, bits) == 24 &&
              offsetof(sa_graph_array_memory, placement) == 28 && offsetof(sa_graph_array_memory, replicas) == 32 &&
              sizeof(sa_graph_array_memory) == 40);
static_assert(offsetof(sa_pagerank_options, damping) == 0 && offsetof(sa_pagerank_options, tolerance) == 8 &&
              offsetof(sa_pagerank_options, max_iterations) == 16 && offsetof(sa_pagerank_options, dangling) == 20 &&
              offsetof(sa_pagerank_options, scores) == 24 && sizeof(sa_pagerank_options) == 32);
static_assert(offsetof(sa_pagerank_result, iterations) == 0 && offsetof(sa_pagerank_result, converged) == 4 &&
              offsetof(sa_pagerank_result, difference) == 8 && offsetof(sa_pagerank_result, seconds) == 16 &&
              sizeof(sa_pagerank_result) == 24);

// The C enums are the C++ ones, value for value.
static_assert(SA_GRAPH_U == static_cast<int>(graph::Variant::U) && SA_GRAPH_V == static_cast<int>(graph::Variant::V) &&
              SA_GRAPH_VE == static_cast<int>(graph::Variant::VE));
static_assert(SA_DANGLING_NONE == static_cast<int>(algo::DanglingRule::none) &&
              SA_DANGLING_UNIFORM == static_cast<int>(algo::DanglingRule::uniform));

// An enum field read as its raw bits (a C caller may store any int; loading one outside the
// enumerators is undefined in C++), checked to lie in 0..last.
template <typename Enum>
std::int32_t enum_field(const Enum& field, std::int32_t last, const char* name) {
  std::int32_t value = 0;
  std::memcpy(&value, &field, sizeof value);
  if (value < 0 || value > last) {
    throw_error(ErrorCode::invalid_argument,
                std::string(name) + " " + std::to_string(value) + " is outside 0.." + std::to_string(last));
  }
  return value;
}

// What an sa_graph_options asks for, in the library's terms.
struct GraphRequest {
  bool undirected = false;
  graph::BuildOptions build;
  graph::LayoutSpec layout;
};

GraphRequest translate(const sa_graph_options* o) {
  sa_graph_options defaults;
  sa_graph_options_init(&defaults);
  const sa_graph_options& options = o != nullptr ? *o : defaults;
  const auto variant = static_cast<graph::Variant>(enum_field(options.variant, SA_GRAPH_VE, "options->variant"));
  smartarrays::ArrayOptions base = smartarrays::capi::to_array_options(&options.arrays, "options->arrays.");
  if (base.bits != 0) {
    throw_error(ErrorCode::invalid_argument, "options->arrays.bits is " + std::to_string(base.bits) +
                                                 "; the variant and options->bits choose a graph's widths");
  }
  GraphRequest request{options.undirected != 0, {}, graph::LayoutSpec(std::move(base))};
  if (options.placement != nullptr) request.layout.add_placements(options.placement);
  if (options.bits != nullptr) request.layout.add_bits(options.bits);
  request.build.dedup = options.dedup != 0;
  request.build.drop_self_loops = options.drop_self_loops != 0;
  request.build.layout = request.layout.layout(variant);
  return request;
}

// Translates o, makes the source with source_of(request), builds the graph into *out.
template <typename SourceOf>
sa_status make_graph(const char* function, const sa_graph_options* o, sa_graph** out, SourceOf&& source_of) noexcept {
  return guarded(function, [&] {
    require(out, "out");
    GraphRequest request = translate(o);
    graph::CsrGraph built = source_of(request).build(request.build);
    *out = new sa_graph{std::move(built), std::move(request.layout)};
  });
}

std::optional<graph::GraphFormat> format_of(const char* format) {
  if (format == nullptr) return std::nullopt;
  return graph::parse_graph_format(format);
}

const graph::CsrGraph& graph_of(const sa_graph* g) {
  require(g, "g");
  return *g->graph;
}

// Checks that a caller's buffer of n values (NULL allowed when n is 0) fits the graph's vertices.
void require_vertex_buffer(const graph::CsrGraph& g, const void* buffer, std::uint64_t n, const char* name) {
  if (n != g.vertices()) {
    throw_error(ErrorCode::invalid_argument, std::string(name) + " holds " + std::to_string(n) +
                                                 " values but the graph has " + std::to_string(g.vertices()) +
                                                 " vertices");
  }
  if (n > 0) require(buffer, (std::string(name) + " (with n > 0)").c_str());
}

// The PageRank numbers and rules o asks for (defaults for NULL), arrays placed by default.
algo::PageRankOptions pagerank_options(const sa_pagerank_options* o) {
  sa_pagerank_options defaults;
  sa_pagerank_options_init(&defaults);
  const sa_pagerank_options& given = o != nullptr ? *o : defaults;
  algo::PageRankOptions options;
  options.damping = given.damping;
  options.tolerance = given.tolerance;
  options.max_iterations = given.max_iterations;
  options.dangling = static_cast<algo::DanglingRule>(enum_field(given.dangling, SA_DANGLING_UNIFORM, "o->dangling"));
  options.scores = static_cast<algo::ScorePrecision>(enum_field(given.scores, SA_SCORES_F32, "o->scores"));
  if (given.reserved != 0) {
    throw_error(ErrorCode::invalid_argument, "o->reserved must be 0 (sa_pagerank_options_init), got " + std::to_string(given.reserved));
  }
  return options;
}

algo::PageRankOptions pagerank_options(const sa_graph* g, const sa_pagerank_options* o) {
  algo::PageRankOptions options = pagerank_options(o);
  options.contributions = g->layout.for_array("contributions");
  options.ranks = g->layout.for_output("ranks");
  return options;
}

const graph::PullPart& part_of(const sa_pull_part* p) {
  require(p, "p");
  return p->part;
}

// Checks a caller's buffer of n doubles (NULL allowed when n is 0) against the count it must hold.
void require_doubles(const void* buffer, std::uint64_t n, std::uint64_t expected, const char* name) {
  if (n != expected) {
    throw_error(ErrorCode::invalid_argument,
                std::string(name) + " holds " + std::to_string(n) + " values, expected " + std::to_string(expected));
  }
  if (n > 0) require(buffer, (std::string(name) + " (with n > 0)").c_str());
}

// Copies a ranks array (64-bit doubles or 32-bit floats as bit patterns) into doubles, a block at a time.
void copy_doubles(const SmartArray& bits, double* out) {
  constexpr std::uint64_t block = 4096;
  std::uint64_t words[block];
  for (std::uint64_t first = 0; first < bits.length(); first += block) {
    const std::uint64_t count = std::min(block, bits.length() - first);
    bits.decode(first, count, words);
    if (bits.bits() == 32) {
      for (std::uint64_t k = 0; k < count; ++k) out[first + k] = std::bit_cast<float>(static_cast<std::uint32_t>(words[k]));
    } else {
      std::memcpy(out + first, words, count * sizeof(double));
    }
  }
}

// A pull iteration's arrays: a part's, or (the part [0, n)) a whole graph's own, not copied.
struct PullArrays {
  const SmartArray& rbegin;
  const SmartArray& redge;
  const SmartArray& begin;  // count + 1 out-offsets: the out-degrees are their differences
  std::uint64_t vertices;  // n of the whole graph
  std::uint64_t count() const noexcept { return begin.length() - 1; }
};

PullArrays pull_arrays(const graph::PullPart& part) { return {part.rbegin, part.redge, part.begin, part.vertices}; }

PullArrays pull_arrays(const graph::CsrGraph& g) { return {g.rbegin(), g.redge(), g.begin(), g.vertices()}; }

// sa_pull_part_start and sa_graph_pagerank_start: checks the buffers, then starts the run.
void pull_start(const PullArrays& arrays, double* ranks, double* contributions, uint64_t count,
                uint64_t* dangling_vertices) {
  const std::uint64_t size = arrays.count();
  require_doubles(ranks, count, size, "ranks");
  require_doubles(contributions, count, size, "contributions");
  require(dangling_vertices, "dangling_vertices");
  *dangling_vertices =
      algo::pagerank_part_start(arrays.begin, arrays.vertices, {ranks, count}, {contributions, count}).dangling_vertices;
}

// sa_pull_part_step and sa_graph_pagerank_step: checks the buffers, then runs one pull iteration.
void pull_step(const PullArrays& arrays, const sa_pagerank_options* o, const double* contributions, uint64_t n,
               const double* ranks, double dangling, double* new_ranks, double* new_contributions, uint64_t count,
               double* difference, double* new_dangling) {
  const std::uint64_t size = arrays.count();
  require_doubles(contributions, n, arrays.vertices, "contributions");
  require_doubles(ranks, count, size, "ranks");
  require_doubles(new_ranks, count, size, "new_ranks");
  require_doubles(new_contributions, count, size, "new_contributions");
  require(difference, "difference");
  require(new_dangling, "new_dangling");
  const algo::PageRankPartTotals totals =
      algo::pagerank_part_step(arrays.rbegin, arrays.redge, arrays.begin, {contributions, n}, {ranks, count},
                               dangling, pagerank_options(o), {new_ranks, count}, {new_contributions, count});
  *difference = totals.difference;
  *new_dangling = totals.dangling;
}

}  // namespace

extern "C" {

void sa_graph_options_init(sa_graph_options* o) {
  if (o == nullptr) return;
  *o = sa_graph_options{};
  o->variant = SA_GRAPH_VE;
  sa_options_init(&o->arrays);
}

sa_status sa_graph_load(const char* path, const char* format, const sa_graph_options* o, sa_graph** out) {
  return make_graph(__func__, o, out, [&](const GraphRequest& request) {
    require(path, "path");
    graph::SourceOptions source;
    source.format = format_of(format);
    source.undirected = request.undirected;
    return graph::GraphSource::open(path, source);
  });
}

sa_status sa_graph_generate_rmat(uint32_t scale, uint64_t edge_factor, uint64_t seed, const sa_graph_options* o,
                                 sa_graph** out) {
  return make_graph(__func__, o, out, [&](const GraphRequest& request) {
    graph::RmatOptions rmat;
    rmat.scale = scale;
    rmat.edge_factor = edge_factor;
    rmat.seed = seed;
    return graph::GraphSource::rmat(rmat, request.undirected);
  });
}

sa_status sa_graph_generate_uniform(uint64_t vertices, double average_degree, uint64_t seed, const sa_graph_options* o,
                                    sa_graph** out) {
  return make_graph(__func__, o, out, [&](const GraphRequest& request) {
    graph::UniformOptions uniform;
    uniform.vertices = vertices;
    uniform.average_degree = average_degree;
    uniform.seed = seed;
    return graph::GraphSource::uniform(uniform, request.undirected);
  });
}

sa_status sa_graph_from_edges(const uint64_t* src, const uint64_t* dst, uint64_t m, uint64_t vertices,
                              const sa_graph_options* o, sa_graph** out) {
  return make_graph(__func__, o, out, [&](const GraphRequest& request) {
    if (m > 0) {
      require(src, "src (with m > 0)");
      require(dst, "dst (with m > 0)");
    }
    return graph::GraphSource::from_edges(std::span<const std::uint64_t>(src, m), std::span<const std::uint64_t>(dst, m),
                                          vertices, !request.undirected);
  });
}

sa_status sa_graph_save(const sa_graph* g, const char* path, const char* format) {
  return guarded(__func__, [&] {
    const graph::CsrGraph& csr = graph_of(g);
    require(path, "path");
    const std::optional<graph::GraphFormat> given = format_of(format);
    graph::save_graph(csr, path, given ? *given : graph::format_of_path(path));
  });
}

void sa_graph_free(sa_graph* g) { delete g; }

uint64_t sa_graph_vertices(const sa_graph* g) {
  return guarded_value<uint64_t>(__func__, 0, [&] { return graph_of(g).vertices(); });
}

uint64_t sa_graph_edges(const sa_graph* g) {
  return guarded_value<uint64_t>(__func__, 0, [&] { return graph_of(g).edges(); });
}

int32_t sa_graph_directed(const sa_graph* g) {
  return guarded_value<int32_t>(__func__, -1, [&] { return graph_of(g).directed() ? 1 : 0; });
}

sa_status sa_graph_memory(const sa_graph* g, sa_graph_array_memory* arrays, uint32_t max, uint32_t* count,
                          uint64_t* total_bytes) {
  return guarded(__func__, [&] {
    const graph::CsrGraph& csr = graph_of(g);
    if (max > 0) require(arrays, "arrays (with max > 0)");
    require(count, "count");
    require(total_bytes, "total_bytes");
    const graph::MemoryReport report = csr.memory_report();
    for (std::size_t i = 0; i < report.arrays.size() && i < max; ++i) {
      const graph::ArrayMemory& line = report.arrays[i];
      arrays[i] = sa_graph_array_memory{graph::to_string(static_cast<graph::GraphArray>(i)),
                                        line.length,
                                        line.bytes,
                                        line.bits,
                                        static_cast<sa_placement>(line.placement),
                                        static_cast<uint32_t>(line.replicas)};
    }
    *count = static_cast<uint32_t>(report.arrays.size());
    *total_bytes = report.total_bytes;
  });
}

sa_status sa_graph_degree_centrality(const sa_graph* g, uint64_t* degrees, uint64_t n) {
  return guarded(__func__, [&] {
    const graph::CsrGraph& csr = graph_of(g);
    require_vertex_buffer(csr, degrees, n, "degrees");
    const SmartArray result = algo::degree_centrality(csr.begin(), csr.rbegin(), g->layout.for_output("degrees"));
    if (n > 0) result.decode(0, n, degrees);
  });
}

sa_status sa_graph_out_degrees(const sa_graph* g, uint64_t* degrees, uint64_t n) {
  return guarded(__func__, [&] {
    const graph::CsrGraph& csr = graph_of(g);
    require_vertex_buffer(csr, degrees, n, "degrees");
    csr.out_degrees({degrees, static_cast<std::size_t>(n)});
  });
}

void sa_pagerank_options_init(sa_pagerank_options* o) {
  if (o == nullptr) return;
  const algo::PageRankOptions defaults;
  *o = sa_pagerank_options{defaults.damping, defaults.tolerance, defaults.max_iterations,
                           static_cast<sa_dangling_rule>(defaults.dangling),
                           static_cast<sa_score_precision>(defaults.scores), 0};
}

sa_status sa_graph_pagerank(const sa_graph* g, const sa_pagerank_options* o, double* ranks, uint64_t n,
                            sa_pagerank_result* result) {
  return guarded(__func__, [&] {
    const graph::CsrGraph& csr = graph_of(g);
    require_vertex_buffer(csr, ranks, n, "ranks");
    const algo::PageRankResult run = algo::pagerank(csr.rbegin(), csr.redge(), csr.begin(), pagerank_options(g, o));
    copy_doubles(run.ranks, ranks);
    if (result != nullptr) {
      *result = sa_pagerank_result{run.iterations, run.converged ? 1 : 0, run.difference,
                                   std::accumulate(run.iteration_seconds.begin(), run.iteration_seconds.end(), 0.0)};
    }
  });
}

sa_status sa_graph_pull_part(const sa_graph* g, uint64_t first, uint64_t count, sa_pull_part** out) {
  return guarded(__func__, [&] {
    const graph::CsrGraph& csr = graph_of(g);
    require(out, "out");
    *out = new sa_pull_part{graph::pull_part(csr, first, count)};
  });
}

sa_status sa_sg_pull_part(const char* path, uint64_t first, uint64_t count, sa_pull_part** out) {
  return guarded(__func__, [&] {
    require(path, "path");
    require(out, "out");
    *out = new sa_pull_part{graph::read_sg_pull_part(path, first, count)};
  });
}

sa_status sa_sg_vertices(const char* path, uint64_t* vertices) {
  return guarded(__func__, [&] {
    require(path, "path");
    require(vertices, "vertices");
    *vertices = graph::read_sg_header(path).vertices;
  });
}

void sa_pull_part_free(sa_pull_part* p) { delete p; }

uint64_t sa_pull_part_first(const sa_pull_part* p) {
  return guarded_value<uint64_t>(__func__, 0, [&] { return part_of(p).first; });
}

uint64_t sa_pull_part_count(const sa_pull_part* p) {
  return guarded_value<uint64_t>(__func__, 0, [&] { return part_of(p).count(); });
}

uint64_t sa_pull_part_vertices(const sa_pull_part* p) {
  return guarded_value<uint64_t>(__func__, 0, [&] { return part_of(p).vertices; });
}

sa_status sa_pull_part_start(const sa_pull_part* p, double* ranks, double* contributions, uint64_t count,
                             uint64_t* dangling_vertices) {
  return guarded(__func__, [&] { pull_start(pull_arrays(part_of(p)), ranks, contributions, count, dangling_vertices); });
}

sa_status sa_pull_part_step(const sa_pull_part* p, const sa_pagerank_options* o, const double* contributions, uint64_t n,
                            const double* ranks, double dangling, double* new_ranks, double* new_contributions,
                            uint64_t count, double* difference, double* new_dangling) {
  return guarded(__func__, [&] {
    pull_step(pull_arrays(part_of(p)), o, contributions, n, ranks, dangling, new_ranks, new_contributions, count,
              difference, new_dangling);
  });
}

sa_status sa_graph_pagerank_start(const sa_graph* g, double* ranks, double* contributions, uint64_t n,
                                  uint64_t* dangling_vertices) {
  return guarded(__func__, [&] { pull_start(pull_arrays(graph_of(g)), ranks, contributions, n, dangling_vertices); });
}

sa_status sa_graph_pagerank_step(const sa_graph* g, const sa_pagerank_options* o, const double* contributions,
                                 uint64_t n, const double* ranks, double dangling, double* new_ranks,
                                 double* new_contributions, uint64_t count, double* difference, double* new_dangling) {
  return guarded(__func__, [&] {
    pull_step(pull_arrays(graph_of(g)), o, contributions, n, ranks, dangling, new_ranks, new_contributions, count,
              difference, new_dangling);
  });
}

}  // extern "C"
