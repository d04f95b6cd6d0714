// Owns the distributed-PageRank part of smartarrays._core: cutting a graph (in memory, or a .sg file
// read range by range) into vertex-range parts of its reverse CSR, handed out as SmartArrays, and
// one part's start and pull iteration over numpy float64 ranks and contributions, each with the
// GIL released. The package's smartarrays/dask.py drives them on Dask workers.
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "binding.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/graph/pull_part.hpp"

namespace smartarrays::python {
namespace {

using namespace nb::literals;

/// A 1-D float64 numpy array that owns its buffer.
using F64Array = nb::ndarray<nb::numpy, double, nb::ndim<1>>;
/// A read-only, contiguous 1-D float64 input array.
using F64In = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
/// (vertices, first, rbegin, redge, begin) of one part, its arrays sharing the part.
using PartTuple = std::tuple<std::uint64_t, std::uint64_t, ArrayHandle, ArrayHandle, ArrayHandle>;

F64Array new_f64(std::size_t n) {
  auto data = std::make_unique<double[]>(n);
  nb::capsule owner(data.get(), [](void* p) noexcept { delete[] static_cast<double*>(p); });
  return F64Array(data.release(), {n}, owner);
}

PartTuple part_tuple(graph::PullPart part) {
  auto shared = std::make_shared<const graph::PullPart>(std::move(part));
  return {shared->vertices, shared->first, ArrayHandle(SharedArray(shared, &shared->rbegin)),
          ArrayHandle(SharedArray(shared, &shared->redge)), ArrayHandle(SharedArray(shared, &shared->begin))};
}

PartTuple graph_part(const GraphHandle& graph, std::uint64_t first, std::uint64_t count) {
  const GraphHandle::Shared g = graph.get();
  return part_tuple(interruptible([&] { return graph::pull_part(*g, first, count); }));
}

PartTuple sg_part(const nb::bytes& path, std::uint64_t first, std::uint64_t count) {
  return part_tuple(interruptible([&] { return graph::read_sg_pull_part(path_of(path), first, count); }));
}

std::tuple<bool, std::uint64_t, std::uint64_t> sg_header(const nb::bytes& path) {
  const graph::SgHeader header = interruptible([&] { return graph::read_sg_header(path_of(path)); });
  return {header.directed, header.edges, header.vertices};
}

// The vertices of a part whose out-offsets are begin (ValueError for an empty begin, as the core says).
std::size_t part_count(const SmartArray& begin) {
  if (begin.length() == 0) throw nb::value_error("pagerank part: begin holds no offsets (n + 1 >= 1 expected)");
  return static_cast<std::size_t>(begin.length() - 1);
}

std::tuple<F64Array, F64Array, std::uint64_t> part_start(const ArrayHandle& begin, std::uint64_t vertices) {
  const SharedArray out_offsets = begin.get();
  F64Array ranks = new_f64(part_count(*out_offsets));
  F64Array contributions = new_f64(part_count(*out_offsets));
  nb::gil_scoped_release release;
  const algo::PageRankPartTotals totals = algo::pagerank_part_start(
      *out_offsets, vertices, {ranks.data(), ranks.shape(0)}, {contributions.data(), contributions.shape(0)});
  return {std::move(ranks), std::move(contributions), totals.dangling_vertices};
}

std::tuple<F64Array, F64Array, double, double> part_step(const ArrayHandle& rbegin, const ArrayHandle& redge,
                                                         const ArrayHandle& begin, const F64In& contributions,
                                                         const F64In& ranks, double dangling, double damping,
                                                         std::string_view rule) {
  const SharedArray offsets = rbegin.get();
  const SharedArray sources = redge.get();
  const SharedArray out_offsets = begin.get();
  algo::PageRankOptions options;
  options.damping = damping;
  options.dangling = algo::parse_dangling_rule(rule);
  F64Array new_ranks = new_f64(part_count(*out_offsets));
  F64Array new_contributions = new_f64(part_count(*out_offsets));
  nb::gil_scoped_release release;
  const algo::PageRankPartTotals totals = algo::pagerank_part_step(
      *offsets, *sources, *out_offsets, {contributions.data(), contributions.shape(0)}, {ranks.data(), ranks.shape(0)},
      dangling, options, {new_ranks.data(), new_ranks.shape(0)}, {new_contributions.data(), new_contributions.shape(0)});
  return {std::move(new_ranks), std::move(new_contributions), totals.difference, totals.dangling};
}

void check_options(double tolerance, double damping, unsigned max_iterations, std::string_view rule) {
  algo::PageRankOptions options;
  options.tolerance = tolerance;
  options.damping = damping;
  options.max_iterations = max_iterations;
  options.dangling = algo::parse_dangling_rule(rule);
  algo::validate(options);
}

}  // namespace

void bind_distributed(nb::module_& m) {
  m.def("_pagerank_check", &check_options, "tolerance"_a, "damping"_a, "max_iterations"_a, "rule"_a,
        "Raises ValueError for PageRank options the core refuses, in its words.");
  m.def("_graph_pull_part", &graph_part, "graph"_a, "first"_a, "count"_a,
        "(vertices, first, rbegin, redge, begin) of vertices [first, first + count) of a graph's reverse CSR.");
  m.def("_sg_header", &sg_header, "path"_a, "(directed, edges, vertices) of a .sg file, its size checked.");
  m.def("_sg_pull_part", &sg_part, "path"_a, "first"_a, "count"_a,
        "_graph_pull_part of a .sg file, reading only the part's byte ranges.");
  m.def("_pagerank_part_start", &part_start, "begin"_a, "vertices"_a,
        "(ranks, contributions, dangling vertices) of a part at the start of a distributed PageRank.");
  m.def("_pagerank_part_step", &part_step, "rbegin"_a, "redge"_a, "begin"_a, "contributions"_a.noconvert(),
        "ranks"_a.noconvert(), "dangling"_a, "damping"_a, "rule"_a,
        "(new ranks, new contributions, difference, dangling rank) of one pull iteration over a part.");
}

}  // namespace smartarrays::python
