// Owns the graph part of smartarrays._core: the native graph handle (a CsrGraph of smart arrays),
// its constructors (edge arrays, files, R-MAT and uniform generators) and its analytics (degree
// centrality, PageRank) returning numpy arrays; every build and analytic runs with the GIL released.
// The package's Graph class (smartarrays/graph.py) normalises arguments and wraps this handle.
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"

namespace smartarrays::python {
namespace {

using namespace nb::literals;

using SharedGraph = std::shared_ptr<const graph::CsrGraph>;
using ArrayLine = std::tuple<std::string, std::uint64_t, unsigned, std::string, std::size_t, std::uint64_t>;

/// The object behind a Python Graph: the core graph until close().
class GraphHandle {
 public:
  explicit GraphHandle(graph::CsrGraph graph) : graph_(std::make_shared<const graph::CsrGraph>(std::move(graph))) {}

  /// The graph; raises ValueError once closed.
  const SharedGraph& get() const {
    if (!graph_) throw nb::value_error("operation on a closed Graph");
    return graph_;
  }
  /// Drops this handle's reference; running analytics and arrays taken with array() keep the memory.
  void close() noexcept { graph_.reset(); }
  /// True after close().
  bool closed() const noexcept { return !graph_; }

 private:
  SharedGraph graph_;
};

graph::BuildOptions build_options(std::string_view variant, bool dedup, bool drop_self_loops, std::string_view placement,
                                  std::vector<int> nodes, bool huge_pages) {
  graph::BuildOptions options;
  options.dedup = dedup;
  options.drop_self_loops = drop_self_loops;
  options.layout = graph::GraphLayout::for_variant(graph::parse_variant(variant),
                                                   make_options(0, placement, std::move(nodes), huge_pages));
  return options;
}

GraphHandle from_edges(const U64In& src, const U64In& dst, std::uint64_t vertices, bool directed, std::string_view variant,
                       bool dedup, bool drop_self_loops, std::string_view placement, std::vector<int> nodes,
                       bool huge_pages) {
  if (src.shape(0) != dst.shape(0)) {
    throw nb::value_error(("src has " + std::to_string(src.shape(0)) + " ids but dst has " +
                           std::to_string(dst.shape(0)))
                              .c_str());
  }
  const graph::BuildOptions options = build_options(variant, dedup, drop_self_loops, placement, std::move(nodes), huge_pages);
  nb::gil_scoped_release release;
  graph::EdgeList list;
  list.directed = directed;
  list.edges.resize(src.shape(0));
  std::uint64_t largest = 0;
  for (std::size_t i = 0; i < list.edges.size(); ++i) {
    list.edges[i] = {src.data()[i], dst.data()[i]};
    largest = std::max({largest, src.data()[i], dst.data()[i]});
  }
  // 0 = one more than the largest id; a given count that is too small is the builder's error to name.
  list.vertices = vertices != 0 ? vertices : (list.edges.empty() ? 0 : largest + 1);
  return GraphHandle(graph::build_csr(list, options));
}

GraphHandle load(const std::string& path, std::string_view format, std::string_view variant, bool dedup,
                 bool drop_self_loops, std::string_view placement, std::vector<int> nodes, bool huge_pages) {
  const graph::GraphFormat parsed = format.empty() ? graph::format_of_path(path) : graph::parse_graph_format(format);
  const graph::BuildOptions options = build_options(variant, dedup, drop_self_loops, placement, std::move(nodes), huge_pages);
  nb::gil_scoped_release release;
  return GraphHandle(graph::load_graph(path, parsed, options));
}

GraphHandle rmat(unsigned scale, std::uint64_t edge_factor, std::uint64_t seed, std::string_view variant, bool dedup,
                 bool drop_self_loops, std::string_view placement, std::vector<int> nodes, bool huge_pages) {
  graph::RmatOptions generator;
  generator.scale = scale;
  generator.edge_factor = edge_factor;
  generator.seed = seed;
  const graph::BuildOptions options = build_options(variant, dedup, drop_self_loops, placement, std::move(nodes), huge_pages);
  nb::gil_scoped_release release;
  return GraphHandle(graph::build_csr(graph::generate_rmat(generator), options));
}

GraphHandle uniform(std::uint64_t vertices, double average_degree, std::uint64_t seed, std::string_view variant,
                    bool dedup, bool drop_self_loops, std::string_view placement, std::vector<int> nodes,
                    bool huge_pages) {
  graph::UniformOptions generator;
  generator.vertices = vertices;
  generator.average_degree = average_degree;
  generator.seed = seed;
  const graph::BuildOptions options = build_options(variant, dedup, drop_self_loops, placement, std::move(nodes), huge_pages);
  nb::gil_scoped_release release;
  return GraphHandle(graph::build_csr(graph::generate_uniform(generator), options));
}

U64Array degree_centrality(const GraphHandle& self) {
  const SharedGraph g = self.get();
  const SmartArray degrees = [&] {
    nb::gil_scoped_release release;
    return algo::degree_centrality(g->begin(), g->rbegin(), algo::interleaved_options());
  }();
  return decode_to_numpy(degrees, 0, degrees.length());
}

nb::object pagerank(const GraphHandle& self, double tolerance, double damping, unsigned max_iterations,
                    std::string_view dangling) {
  const SharedGraph g = self.get();
  algo::PageRankOptions options;
  options.tolerance = tolerance;
  options.damping = damping;
  options.max_iterations = max_iterations;
  options.dangling = algo::parse_dangling_rule(dangling);
  const algo::PageRankResult result = [&] {
    nb::gil_scoped_release release;
    return algo::pagerank(g->rbegin(), g->redge(), g->out_degree(), options);
  }();
  // The ranks are doubles stored as 64-bit patterns: decoded as uint64, viewed as float64.
  return nb::cast(decode_to_numpy(result.ranks, 0, result.ranks.length())).attr("view")("float64");
}

std::tuple<std::vector<ArrayLine>, std::uint64_t> memory(const GraphHandle& self) {
  const graph::MemoryReport report = self.get()->memory_report();
  std::vector<ArrayLine> lines;
  for (const graph::ArrayMemory& a : report.arrays) {
    lines.emplace_back(a.name, a.length, a.bits, to_string(a.placement), a.replicas, a.bytes);
  }
  return {std::move(lines), report.total_bytes};
}

ArrayHandle array(const GraphHandle& self, std::string_view name) {
  const SharedGraph& g = self.get();
  // Shares ownership of the whole graph, so the array stays valid after the graph is closed.
  return ArrayHandle(SharedArray(g, &g->array(graph::parse_graph_array(name))));
}

}  // namespace

void bind_graph(nb::module_& m) {
  nb::class_<GraphHandle>(m, "_Graph", "Native CSR graph of smart arrays; use smartarrays.Graph.")
      .def_prop_ro("vertices", [](const GraphHandle& self) { return self.get()->vertices(); }, "Number of vertices.")
      .def_prop_ro("edges", [](const GraphHandle& self) { return self.get()->edges(); },
                   "Number of stored directed edges (an undirected edge counts twice, a self-loop once).")
      .def_prop_ro("directed", [](const GraphHandle& self) { return self.get()->directed(); },
                   "False when built from undirected edges.")
      .def_prop_ro("variant", [](const GraphHandle& self) { return std::string(to_string(self.get()->variant())); },
                   "The compression variant of the arrays' widths: U, V or V+E.")
      .def_prop_ro("closed", &GraphHandle::closed, "True after close().")
      .def("degree_centrality", &degree_centrality, "Out-degree plus in-degree of every vertex (GIL released).")
      .def("pagerank", &pagerank, "tolerance"_a, "damping"_a, "max_iterations"_a, "dangling"_a,
           nb::sig("def pagerank(self, tolerance: float, damping: float, max_iterations: int, dangling: str) -> "
                   "numpy.typing.NDArray[numpy.float64]"),
           "PageRank of every vertex (pull, Jacobi; GIL released).")
      .def("memory", &memory, "Per-array (name, length, bits, placement, replicas, bytes) lines and the total bytes.")
      .def("array", &array, "name"_a, "One of the graph's arrays (begin, edge, rbegin, redge, out_degree) as a SmartArray.")
      .def("close", &GraphHandle::close, "Releases the graph's memory once nothing else uses it; idempotent.");

  m.def("_graph_from_edges", &from_edges, "src"_a.noconvert(), "dst"_a.noconvert(), "vertices"_a, "directed"_a,
        "variant"_a, "dedup"_a, "drop_self_loops"_a, "placement"_a, "nodes"_a, "huge_pages"_a,
        "A graph from edge arrays src[i] -> dst[i] (vertices 0 = the largest id + 1).");
  m.def("_graph_load", &load, "path"_a, "format"_a, "variant"_a, "dedup"_a, "drop_self_loops"_a, "placement"_a,
        "nodes"_a, "huge_pages"_a, "A graph read from an edge list, Matrix Market or GAP .sg file (format '' = from the name).");
  m.def("_graph_rmat", &rmat, "scale"_a, "edge_factor"_a, "seed"_a, "variant"_a, "dedup"_a, "drop_self_loops"_a,
        "placement"_a, "nodes"_a, "huge_pages"_a, "An R-MAT graph with the Graph500 parameters.");
  m.def("_graph_uniform", &uniform, "vertices"_a, "average_degree"_a, "seed"_a, "variant"_a, "dedup"_a,
        "drop_self_loops"_a, "placement"_a, "nodes"_a, "huge_pages"_a, "A uniform random graph.");
}

}  // namespace smartarrays::python
