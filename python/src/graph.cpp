// Owns the graph part of smartarrays._core: the native graph handle (a CsrGraph of smart arrays),
// its factories — each a GraphSource (a file, the R-MAT or uniform generator, edge arrays) built
// with one shared _GraphBuild of the layout arguments — and its analytics (degree centrality,
// PageRank) returning numpy arrays; every read, build and analytic runs with the GIL released and
// is interruptible by Ctrl-C.
// The package's Graph class (smartarrays/graph.py) normalises arguments and wraps this handle.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/graph/layout_spec.hpp"
#include "smartarrays/graph/source.hpp"

namespace smartarrays::python {
namespace {

using namespace nb::literals;

using ArrayLine = std::tuple<std::string, std::uint64_t, unsigned, std::string, std::size_t, std::uint64_t, std::string>;

/// The arguments every graph factory shares (variant, duplicates, self-loops, placement), translated once.
struct GraphBuild {
  graph::BuildOptions options;
};

GraphBuild make_build(std::string_view variant, bool dedup, bool drop_self_loops, std::string_view placement,
                      std::vector<int> nodes, std::string_view huge_pages) {
  const graph::LayoutSpec spec(make_options(0, placement, std::move(nodes), huge_pages));
  GraphBuild build;
  build.options.dedup = dedup;
  build.options.drop_self_loops = drop_self_loops;
  build.options.layout = spec.layout(graph::parse_variant(variant));
  return build;
}

// Makes the source with make_source() and builds the graph from it, both without the GIL and
// interruptible by Ctrl-C.
template <typename MakeSource>
GraphHandle build_graph(const GraphBuild& build, MakeSource&& make_source) {
  return interruptible([&] { return GraphHandle(make_source().build(build.options)); });
}

GraphHandle from_edges(const U64In& src, const U64In& dst, std::uint64_t vertices, bool directed, const GraphBuild& build) {
  return build_graph(build, [&] {
    return graph::GraphSource::from_edges(std::span<const std::uint64_t>(src.data(), src.shape(0)),
                                          std::span<const std::uint64_t>(dst.data(), dst.shape(0)), vertices, directed);
  });
}

GraphHandle load(const nb::bytes& path, const std::optional<std::string>& format, const GraphBuild& build) {
  graph::SourceOptions source;
  if (format) source.format = graph::parse_graph_format(*format);
  return build_graph(build, [&] { return graph::GraphSource::open(path_of(path), source); });
}

GraphHandle rmat(unsigned scale, std::uint64_t edge_factor, std::uint64_t seed, const GraphBuild& build) {
  graph::RmatOptions generator;
  generator.scale = scale;
  generator.edge_factor = edge_factor;
  generator.seed = seed;
  return build_graph(build, [&] { return graph::GraphSource::rmat(generator); });
}

GraphHandle uniform(std::uint64_t vertices, double average_degree, std::uint64_t seed, const GraphBuild& build) {
  graph::UniformOptions generator;
  generator.vertices = vertices;
  generator.average_degree = average_degree;
  generator.seed = seed;
  return build_graph(build, [&] { return graph::GraphSource::uniform(generator); });
}

void save(const GraphHandle& self, const nb::bytes& path, const std::optional<std::string>& format) {
  const GraphHandle::Shared g = self.get();
  const std::string file = path_of(path);
  const graph::GraphFormat chosen = format ? graph::parse_graph_format(*format) : graph::format_of_path(file);
  interruptible([&] {
    graph::save_graph(*g, file, chosen);
    return 0;
  });
}

U64Array degree_centrality(const GraphHandle& self) {
  const GraphHandle::Shared g = self.get();
  const SmartArray degrees =
      interruptible([&] { return algo::degree_centrality(g->begin(), g->rbegin(), algo::interleaved_options()); });
  return decode_to_numpy(degrees, 0, degrees.length());
}

U64Array out_degrees(const GraphHandle& self) {
  const GraphHandle::Shared g = self.get();
  U64Array degrees = new_numpy_array(g->vertices());
  nb::gil_scoped_release release;
  g->out_degrees({degrees.data(), degrees.shape(0)});
  return degrees;
}

nb::object pagerank(const GraphHandle& self, double tolerance, double damping, unsigned max_iterations,
                    std::string_view dangling, std::string_view scores) {
  const GraphHandle::Shared g = self.get();
  algo::PageRankOptions options;
  options.tolerance = tolerance;
  options.damping = damping;
  options.max_iterations = max_iterations;
  options.dangling = algo::parse_dangling_rule(dangling);
  options.scores = algo::parse_score_precision(scores);
  const algo::PageRankResult result =
      interruptible([&] { return algo::pagerank(g->rbegin(), g->redge(), g->begin(), options); });
  // The ranks are doubles (or floats) stored as 64-bit (32-bit) patterns: decoded as uint64, viewed
  // as float64 (narrowed to uint32, viewed as float32).
  nb::object ranks = nb::cast(decode_to_numpy(result.ranks, 0, result.ranks.length()));
  if (options.scores == algo::ScorePrecision::f32) return ranks.attr("astype")("uint32").attr("view")("float32");
  return ranks.attr("view")("float64");
}

std::tuple<std::vector<ArrayLine>, std::uint64_t> memory(const GraphHandle& self) {
  const graph::MemoryReport report = self.get()->memory_report();
  std::vector<ArrayLine> lines;
  for (const graph::ArrayMemory& a : report.arrays) {
    lines.emplace_back(a.name, a.length, a.bits, to_string(a.placement), a.replicas, a.bytes, a.shared_with);
  }
  return {std::move(lines), report.total_bytes};
}

ArrayHandle array(const GraphHandle& self, std::string_view name) {
  const GraphHandle::Shared& g = self.get();
  // Shares ownership of the whole graph, so the array stays valid after the graph is closed.
  return ArrayHandle(SharedArray(g, &g->array(graph::parse_graph_array(name))));
}

}  // namespace

void bind_graph(nb::module_& m) {
  nb::class_<GraphBuild>(m, "_GraphBuild", "The layout arguments every Graph factory shares, checked and translated.")
      .def("__init__",
           [](GraphBuild* self, std::string_view variant, bool dedup, bool drop_self_loops, std::string_view placement,
              std::vector<int> nodes, std::string_view huge_pages) {
             new (self) GraphBuild(make_build(variant, dedup, drop_self_loops, placement, std::move(nodes), huge_pages));
           },
           "variant"_a, "dedup"_a, "drop_self_loops"_a, "placement"_a, "nodes"_a, "huge_pages"_a);

  nb::class_<GraphHandle> cls(m, "_Graph", "Native CSR graph of smart arrays; use smartarrays.Graph.");
  bind_closeable(cls, "_Graph", "Releases the graph's memory once nothing else uses it; idempotent.");
  cls.def_prop_ro("vertices", [](const GraphHandle& self) { return self.get()->vertices(); }, "Number of vertices.")
      .def_prop_ro("edges", [](const GraphHandle& self) { return self.get()->edges(); },
                   "Number of stored directed edges (an undirected edge counts twice, a self-loop once).")
      .def_prop_ro("directed", [](const GraphHandle& self) { return self.get()->directed(); },
                   "False when built from undirected edges.")
      .def_prop_ro("variant", [](const GraphHandle& self) { return std::string(to_string(self.get()->variant())); },
                   "The compression variant of the arrays' widths: U, V or V+E.")
      .def("degree_centrality", &degree_centrality, "Out-degree plus in-degree of every vertex (GIL released, Ctrl-C interrupts).")
      .def("out_degrees", &out_degrees, "begin[v+1] - begin[v] of every vertex (GIL released).")
      .def("pagerank", &pagerank, "tolerance"_a, "damping"_a, "max_iterations"_a, "dangling"_a, "scores"_a,
           nb::sig("def pagerank(self, tolerance: float, damping: float, max_iterations: int, dangling: str, "
                   "scores: str) -> numpy.typing.NDArray[numpy.floating]"),
           "PageRank of every vertex (pull, Jacobi; GIL released, Ctrl-C interrupts).")
      .def("memory", &memory,
           "Per-array (name, length, bits, placement, replicas, bytes, shared_with) lines and the total bytes.")
      .def("array", &array, "name"_a, "One of the graph's arrays (begin, edge, rbegin, redge) as a SmartArray.")
      .def("save", &save, "path"_a, "format"_a,
           "Writes the graph as an edge list, Matrix Market, GAP .sg or compact .sa file (format None = from the name; "
           "GIL released, Ctrl-C interrupts, the old file kept on failure).");

  m.def("_graph_from_edges", &from_edges, "src"_a.noconvert(), "dst"_a.noconvert(), "vertices"_a, "directed"_a, "build"_a,
        "A graph from edge arrays src[i] -> dst[i] (vertices 0 = the largest id + 1).");
  m.def("_graph_load", &load, "path"_a, "format"_a, "build"_a,
        "A graph read from an edge list, Matrix Market or GAP .sg file (format None = from the name).");
  m.def("_graph_rmat", &rmat, "scale"_a, "edge_factor"_a, "seed"_a, "build"_a, "An R-MAT graph with the Graph500 parameters.");
  m.def("_graph_uniform", &uniform, "vertices"_a, "average_degree"_a, "seed"_a, "build"_a, "A uniform random graph.");
}

}  // namespace smartarrays::python
