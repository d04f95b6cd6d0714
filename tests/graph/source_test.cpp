// Tests of GraphSource and LayoutSpec: every format read once and built in several layouts, the
// format and undirected checks, generators and edge arrays as sources, the progress writer, the
// placement and bits lists with every error, and CsrGraph's degree statistics and its invariant
// check's first difference.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/layout_spec.hpp"
#include "smartarrays/graph/source.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::graph {
namespace {

using test::decode;
using test::graph_data;
using test::ScratchDir;
using test::values_of;

// Runs f, expects an Error(invalid_argument) whose message contains every needle.
template <typename F>
void expect_invalid(F&& f, std::initializer_list<const char*> needles) {
  EXPECT_EQ(test::expect_error(std::forward<F>(f), needles), ErrorCode::invalid_argument);
}

BuildOptions variant_options(Variant variant) {
  BuildOptions options;
  options.layout = GraphLayout::for_variant(variant);
  return options;
}

// Memory running out while a file's graph is built names the file and the array: a 16-byte edge
// list naming vertex 99,999,999 under a small memory limit said only "cannot map 762.9 MiB: Cannot
// allocate memory". An empty hugetlb pool refuses the mapping here.
TEST(GraphSource, MemoryRunningOutWhileBuildingNamesTheFileAndTheArray) {
  if (!test::hugetlb_2m_pool_is_empty()) GTEST_SKIP() << "the 2 MiB hugetlb pool is missing or has pages: nothing fails";
  const std::string file = graph_data("tiny.el");
  BuildOptions options = variant_options(Variant::U);
  options.layout[GraphArray::rbegin].huge_pages = HugePages::pages_2m;
  const std::string named = "graph '" + file + "': graph array rbegin of 7 values: cannot map 2 MiB in 2 MiB hugetlb pages";
  EXPECT_EQ(test::expect_error([&] { GraphSource::open(file).build(options); }, {named.c_str()}), ErrorCode::out_of_memory);
  // Generated graphs and given edges have no file to name.
  const std::vector<std::uint64_t> src{0, 1}, dst{1, 2};
  try {
    GraphSource::from_edges(src, dst, 6).build(options);
    ADD_FAILURE() << "built";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("graph array rbegin of 7 values: cannot map", 0), 0u) << e.what();
  }
}

TEST(GraphSource, EveryFormatReadsTheTinyGraph) {
  const ScratchDir dir;
  const CsrGraph reference = GraphSource::open(graph_data("tiny.el")).build();
  EXPECT_EQ(decode(reference), test::tiny_graph());
  const std::string sg = dir.file("tiny.sg"), mtx = dir.file("tiny.mtx"), renamed = dir.file("tiny.graph");
  save_graph(reference, sg, GraphFormat::gap_sg);
  save_graph(reference, mtx, GraphFormat::matrix_market);
  save_graph(reference, renamed, GraphFormat::edge_list);
  for (const std::string& path : {sg, mtx, graph_data("tiny.mtx")}) {
    const GraphSource source = GraphSource::open(path);
    EXPECT_EQ(source.vertices(), 6u) << path;
    EXPECT_TRUE(source.directed()) << path;
    EXPECT_EQ(decode(source.build()), test::tiny_graph()) << path;
  }
  SourceOptions named;
  named.format = GraphFormat::edge_list;
  EXPECT_EQ(decode(GraphSource::open(renamed, named).build()), test::tiny_graph());
  EXPECT_EQ(decode(GraphSource::open(sg).build(variant_options(Variant::U))), test::tiny_graph()) << "built once, moved";
}

TEST(GraphSource, OneReadBuildsEveryVariant) {
  for (const char* name : {"tiny.el", "tiny.mtx"}) {
    const GraphSource source = GraphSource::open(graph_data(name));
    const CsrGraph u = source.build(variant_options(Variant::U));
    const CsrGraph v = source.build(variant_options(Variant::V));
    const CsrGraph ve = source.build(variant_options(Variant::VE));
    EXPECT_EQ(u.variant(), Variant::U);
    EXPECT_EQ(v.variant(), Variant::V);
    EXPECT_EQ(ve.variant(), Variant::VE);
    EXPECT_EQ(u.edge().bits(), 32u);
    EXPECT_EQ(ve.edge().bits(), 3u);
    for (const CsrGraph* g : {&u, &v, &ve}) EXPECT_EQ(decode(*g), test::tiny_graph()) << name;
  }
}

TEST(GraphSource, FormatAndUndirectedChecks) {
  SourceOptions options;
  EXPECT_EQ(options.format_of("a/b.mtx"), GraphFormat::matrix_market);
  expect_invalid([&] { options.format_of("graph.unknown"); }, {"graph.unknown", "extension"});
  expect_invalid([&] { GraphSource::open("graph.unknown"); }, {"graph.unknown"});
  options.undirected = true;
  EXPECT_EQ(options.format_of("g.el"), GraphFormat::edge_list);
  expect_invalid([&] { options.format_of("g.sg"); }, {"undirected", "g.sg"});
  options.format = GraphFormat::gap_sg;
  expect_invalid([&] { GraphSource::open(graph_data("tiny.el"), options); }, {"undirected", "tiny.el"});
  try {
    GraphSource::open("/nonexistent/graph.el");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

TEST(GraphSource, UndirectedEdgeListStoresBothDirections) {
  SourceOptions options;
  options.undirected = true;
  const GraphSource source = GraphSource::open(graph_data("tiny.el"), options);
  EXPECT_FALSE(source.directed());
  const CsrGraph g = source.build();
  EXPECT_FALSE(g.directed());
  EXPECT_EQ(g.edges(), 13u);  // six edges both ways, the self-loop once
  EXPECT_EQ(values_of(g.edge()), values_of(g.redge()));
  EXPECT_FALSE(GraphSource::open(graph_data("triangle_symmetric.mtx")).directed());
}

TEST(GraphSource, GeneratorsAndEdgeArrays) {
  RmatOptions rmat;
  rmat.scale = 8;
  rmat.edge_factor = 4;
  EXPECT_EQ(decode(GraphSource::rmat(rmat).build()), decode(build_csr(generate_rmat(rmat))));
  const CsrGraph undirected = GraphSource::rmat(rmat, true).build();
  EXPECT_FALSE(undirected.directed());
  UniformOptions uniform;
  uniform.vertices = 300;
  uniform.average_degree = 3;
  const GraphSource u = GraphSource::uniform(uniform);
  EXPECT_EQ(u.vertices(), 300u);
  EXPECT_EQ(decode(u.build()), decode(build_csr(generate_uniform(uniform))));

  const std::vector<std::uint64_t> src{0, 0, 1, 2, 3, 4, 0}, dst{1, 2, 2, 0, 2, 4, 1};
  const GraphSource inferred = GraphSource::from_edges(src, dst);
  EXPECT_EQ(inferred.vertices(), 5u) << "the largest id + 1";
  EXPECT_EQ(decode(GraphSource::from_edges(src, dst, 6).build()), test::tiny_graph());
  EXPECT_EQ(GraphSource::from_edges(std::vector<std::uint64_t>{}, std::vector<std::uint64_t>{}).build().vertices(), 0u);
  EXPECT_FALSE(GraphSource::from_edges(src, dst, 0, false).directed());
  expect_invalid([&] { GraphSource::from_edges(src, std::vector<std::uint64_t>{1}); }, {"src has 7 ids but dst has 1"});
  expect_invalid([&] { GraphSource::from_edges(src, dst, 3).build(); }, {"not below the vertex count 3"});
  uniform.vertices = 0;
  expect_invalid([&] { GraphSource::uniform(uniform); }, {});
}

TEST(GraphSource, ProgressWriter) {
  std::ostringstream log;
  auto quiet_small = progress_writer("small.el", log, false, 1000);
  quiet_small(10, 999);
  EXPECT_EQ(log.str(), "") << "inputs below the threshold print nothing";
  auto lines = progress_writer("big.el", log, false, 0);
  for (std::uint64_t done : {0u, 5u, 10u, 15u, 100u}) lines(done << 20, 100u << 20);
  EXPECT_EQ(log.str(),
            "reading big.el: 0% (0.0 MiB of 100.0 MiB)\n"
            "reading big.el: 10% (10.0 MiB of 100.0 MiB)\n"
            "reading big.el: 100% (100.0 MiB of 100.0 MiB)\n");
  std::ostringstream terminal;
  auto rewritten = progress_writer("t.el", terminal, true, 0);
  rewritten(1 << 20, 2 << 20);
  rewritten(2 << 20, 2 << 20);
  EXPECT_EQ(terminal.str(), "\r\033[Kreading t.el: 50% (1.0 MiB of 2.0 MiB)\r\033[Kreading t.el: 100% (2.0 MiB of 2.0 MiB)\n");
  // A pipe's total is unknown (0) until its end: the bytes so far, no percentage, no bogus total.
  std::ostringstream pipe;
  auto streamed = progress_writer("-", pipe, false, 64u << 20);
  streamed(1u << 20, 0);
  streamed(64u << 20, 0);
  streamed(128u << 20, 0);
  streamed(130u << 20, 130u << 20);
  EXPECT_EQ(pipe.str(),
            "reading -: 64.0 MiB so far\n"
            "reading -: 128.0 MiB so far\n"
            "reading -: 100% (130.0 MiB of 130.0 MiB)\n");
}

TEST(GraphSource, ReadsReportProgressThroughTheWriter) {
  std::ostringstream log;
  SourceOptions options;
  options.read.progress = progress_writer("tiny", log, false, 0);
  GraphSource::open(graph_data("tiny.el"), options);
  EXPECT_NE(log.str().find("reading tiny: 100%"), std::string::npos) << log.str();
}

TEST(LayoutSpec, PlacementsAndBitsByName) {
  LayoutSpec spec;
  EXPECT_EQ(spec.for_array("edge").placement, Placement::os_default);
  EXPECT_EQ(spec.for_output("ranks").placement, Placement::interleaved) << "outputs stay interleaved unless named";
  spec.add_placements("interleaved,redge=os_default,ranks=single_node");
  spec.add_bits("edge=9,begin=40");
  EXPECT_EQ(spec.for_array("begin").placement, Placement::interleaved);
  EXPECT_EQ(spec.for_array("contributions").placement, Placement::interleaved);
  EXPECT_EQ(spec.for_array("redge").placement, Placement::os_default);
  EXPECT_EQ(spec.for_output("degrees").placement, Placement::interleaved);
  EXPECT_EQ(spec.for_output("ranks").placement, Placement::single_node);
  EXPECT_EQ(spec.for_output("ranks").node, 0);
  spec.set_node(3);
  EXPECT_EQ(spec.for_output("ranks").node, 3);
  const GraphLayout layout = spec.layout(Variant::U);
  EXPECT_EQ(layout[GraphArray::edge].bits, 9u);
  EXPECT_EQ(layout[GraphArray::begin].bits, 40u);
  EXPECT_EQ(layout[GraphArray::redge].bits, 32u) << "the variant's width";
  EXPECT_EQ(layout[GraphArray::rbegin].placement, Placement::interleaved);
  EXPECT_EQ(layout[GraphArray::redge].placement, Placement::os_default);
  spec.add_placements("single_node");
  EXPECT_EQ(spec.layout(Variant::VE)[GraphArray::begin].node, 3) << "the node applies to later items too";
  EXPECT_EQ(spec.layout(Variant::VE)[GraphArray::begin].bits, 40u);
  EXPECT_EQ(spec.layout(Variant::VE)[GraphArray::rbegin].bits, 0u);
}

TEST(LayoutSpec, BaseOptionsCarryOverToOverrides) {
  ArrayOptions base;
  base.placement = Placement::interleaved;
  base.nodes = {0};
  base.huge_pages = HugePages::on;
  base.bits = 7;
  LayoutSpec spec(base);
  EXPECT_EQ(spec.for_array("edge").nodes, std::vector<int>{0});
  EXPECT_EQ(spec.for_array("edge").bits, 0u) << "widths come from the variant and add_bits";
  spec.add_placements("edge=replicated");
  const ArrayOptions edge = spec.for_array("edge");
  EXPECT_EQ(edge.placement, Placement::replicated);
  EXPECT_TRUE(edge.nodes.empty()) << "an override is over every node";
  EXPECT_EQ(edge.huge_pages, HugePages::on);
  EXPECT_EQ(spec.for_array("begin").nodes, std::vector<int>{0});
}

TEST(LayoutSpec, BadListsNameTheItem) {
  LayoutSpec spec;
  expect_invalid([&] { spec.add_placements("begin=everywhere"); }, {"begin=everywhere", "unknown placement 'everywhere'"});
  expect_invalid([&] { spec.add_placements("nodes=interleaved"); }, {"unknown array 'nodes'", "contributions"});
  expect_invalid([&] { spec.add_placements("interleaved,,edge=replicated"); }, {"empty item"});
  expect_invalid([&] { spec.add_placements(""); }, {"empty item"});
  expect_invalid([&] { spec.add_bits("edge=65"); }, {"edge=65", "1..64"});
  expect_invalid([&] { spec.add_bits("edge=0"); }, {"edge=0"});
  expect_invalid([&] { spec.add_bits("edge=x"); }, {"'x'"});
  expect_invalid([&] { spec.add_bits("edge"); }, {"expected ARRAY=BITS, got 'edge'"});
  expect_invalid([&] { spec.add_bits("ranks=8"); }, {"ranks=8", "unknown graph array 'ranks'"});
  // out_degree was an array until out-degrees were derived from begin: both lists say so.
  expect_invalid([&] { spec.add_placements("out_degree=replicated"); },
                 {"placement 'out_degree=replicated'", "no longer stored", "derived from begin"});
  expect_invalid([&] { spec.add_bits("out_degree=20"); }, {"bits 'out_degree=20'", "no longer stored"});
  EXPECT_EQ(spec.for_array("begin").placement, Placement::os_default) << "a failed list leaves earlier items";
}

TEST(DegreeStats, TinyGraphAndEmptyGraphs) {
  const DegreeStats tiny = GraphSource::open(graph_data("tiny.el")).build().degree_stats();
  EXPECT_EQ(tiny.max_out_degree, 3u);
  EXPECT_EQ(tiny.max_in_degree, 3u);
  EXPECT_EQ(tiny.without_out_edges, 1u);  // vertex 5
  EXPECT_EQ(tiny.without_in_edges, 2u);   // vertices 3 and 5
  EXPECT_DOUBLE_EQ(tiny.mean_degree, 7.0 / 6.0);
  const DegreeStats none = build_csr(EdgeList{}).degree_stats();
  EXPECT_EQ(none.max_out_degree, 0u);
  EXPECT_EQ(none.mean_degree, 0.0);
  const DegreeStats isolated = build_csr(EdgeList{3, {}, true}).degree_stats();
  EXPECT_EQ(isolated.without_out_edges, 3u);
  EXPECT_EQ(isolated.without_in_edges, 3u);
}

TEST(DegreeStats, EqualSerialCountsOnALargeGraphForEveryThreadCount) {
  RmatOptions rmat;
  rmat.scale = 14;
  rmat.edge_factor = 8;
  const CsrGraph g = GraphSource::rmat(rmat).build(variant_options(Variant::VE));
  const std::vector<std::uint64_t> begin = values_of(g.begin()), rbegin = values_of(g.rbegin());
  DegreeStats expected;
  for (std::uint64_t v = 0; v < g.vertices(); ++v) {
    expected.max_out_degree = std::max(expected.max_out_degree, begin[v + 1] - begin[v]);
    expected.max_in_degree = std::max(expected.max_in_degree, rbegin[v + 1] - rbegin[v]);
    expected.without_out_edges += begin[v + 1] == begin[v] ? 1 : 0;
    expected.without_in_edges += rbegin[v + 1] == rbegin[v] ? 1 : 0;
  }
  for (std::size_t threads : {1u, 3u}) {
    runtime::ThreadPool pool(runtime::PoolOptions{.threads = threads});
    const DegreeStats got = g.degree_stats(pool);
    EXPECT_EQ(got.max_out_degree, expected.max_out_degree) << threads;
    EXPECT_EQ(got.max_in_degree, expected.max_in_degree) << threads;
    EXPECT_EQ(got.without_out_edges, expected.without_out_edges) << threads;
    EXPECT_EQ(got.without_in_edges, expected.without_in_edges) << threads;
    EXPECT_DOUBLE_EQ(got.mean_degree, static_cast<double>(g.edges()) / static_cast<double>(g.vertices()));
  }
}

TEST(CsrGraphValidate, NamesTheFirstVertexWhoseReverseListDiffers) {
  // 0 -> 1, 0 -> 2, 1 -> 2, but the reverse lists say 2 <- 0 and 2 <- 0 (vertex 2 differs first).
  auto array = [](std::vector<std::uint64_t> values) {
    return SmartArray::from_values(std::span<const std::uint64_t>(values), ArrayOptions{});
  };
  std::array<SmartArray, graph_array_count> arrays{array({0, 2, 3, 3}), array({1, 2, 2}), array({0, 0, 1, 3}),
                                                   array({0, 0, 0})};
  const CsrGraph g(std::move(arrays), true);
  try {
    g.validate();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::internal);
    EXPECT_NE(std::string(e.what()).find("first difference at vertex 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace smartarrays::graph
