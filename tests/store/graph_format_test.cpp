// Tests the compact form as a graph format: its names and extension, GraphSource::open of a store
// mapped (the stored arrays in place) or loaded into a placement, choosing one of several graphs,
// rebuilding another layout from a stored graph, save_graph and load_graph through it, describe().
#include <gtest/gtest.h>

#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/store/store.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::graph {
namespace {

CsrGraph tiny(Variant variant = Variant::VE) {
  return load_graph(test::graph_data("tiny.el"), GraphFormat::edge_list, {.layout = GraphLayout::for_variant(variant)});
}

TEST(CompactGraphFormat, NamesAndExtension) {
  EXPECT_EQ(parse_graph_format("compact"), GraphFormat::compact);
  EXPECT_EQ(parse_graph_format("SA"), GraphFormat::compact);
  EXPECT_EQ(parse_graph_format("store"), GraphFormat::compact);
  EXPECT_STREQ(to_string(GraphFormat::compact), "compact");
  EXPECT_EQ(format_of_path("dir.x/rmat.sa"), GraphFormat::compact);
  EXPECT_EQ(parse_open_mode("LOAD"), OpenMode::load);
  EXPECT_STREQ(to_string(OpenMode::map), "map");
  EXPECT_THROW(parse_open_mode("mmap"), Error);
  SourceOptions undirected;
  undirected.undirected = true;
  try {
    undirected.format_of("g.sa");
    FAIL() << "undirected accepted for a compact file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("says itself whether it is directed"), std::string::npos) << e.what();
  }
}

TEST(CompactGraphFormat, SaveThenOpenMappedKeepsTheStoredArrays) {
  const test::ScratchDir dir;
  const std::string path = dir.file("tiny.sa");
  save_graph(tiny(), path, GraphFormat::compact);
  GraphSource source = GraphSource::open(path);
  ASSERT_TRUE(source.stored());
  EXPECT_EQ(source.vertices(), 6u);
  EXPECT_TRUE(source.directed());
  const CsrGraph& stored = source.stored_graph();
  EXPECT_EQ(stored.variant(), Variant::VE);
  EXPECT_TRUE(stored.edge().read_only());  // a view over the file's pages
  EXPECT_EQ(test::decode(stored), test::tiny_graph());
  // build() makes another layout of the same graph.
  const CsrGraph u = source.build({.layout = GraphLayout::for_variant(Variant::U)});
  EXPECT_EQ(u.variant(), Variant::U);
  EXPECT_FALSE(u.edge().read_only());
  EXPECT_EQ(test::decode(u), test::tiny_graph());
  const CsrGraph taken = std::move(source).take_stored();
  EXPECT_EQ(test::decode(taken), test::tiny_graph());
  EXPECT_THROW(static_cast<void>(source.stored_graph()), Error);
  EXPECT_EQ(test::decode(load_graph(path, GraphFormat::compact)), test::tiny_graph());
}

TEST(CompactGraphFormat, LoadedIntoAPlacementIsACopy) {
  const test::ScratchDir dir;
  const std::string path = dir.file("tiny.sa");
  save_graph(tiny(Variant::V), path, GraphFormat::compact);
  SourceOptions options;
  options.mode = OpenMode::load;
  ArrayOptions interleaved;
  interleaved.placement = Placement::interleaved;
  options.placement = GraphLayout::for_variant(Variant::U, interleaved);
  const GraphSource source = GraphSource::open(path, options);
  const CsrGraph& g = source.stored_graph();
  EXPECT_FALSE(g.edge().read_only());
  EXPECT_EQ(g.variant(), Variant::V);  // stored widths kept, the layout's bits ignored
  EXPECT_EQ(g.begin().placement(), Placement::interleaved);
  EXPECT_EQ(test::decode(g), test::tiny_graph());
}

TEST(CompactGraphFormat, OneOfSeveralGraphsByName) {
  const test::ScratchDir dir;
  const std::string path = dir.file("two.sa");
  const CsrGraph a = tiny(Variant::U);
  const CsrGraph b = build_csr(generate_rmat({.scale = 6, .edge_factor = 4}));
  ArrayOptions two_bits;
  two_bits.bits = 2;
  const SmartArray values = SmartArray::from_values(std::vector<std::uint64_t>{1, 2, 3}, two_bits);
  store::Store::write(path, {{"a", a}, {"b", b}, {"v", values}});
  SourceOptions options;
  try {
    GraphSource::open(path, options);
    FAIL() << "two graphs and no name accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds 2 graphs"), std::string::npos) << e.what();
  }
  options.object = "b";
  EXPECT_EQ(GraphSource::open(path, options).stored_graph().edges(), b.edges());
  options.object = "v";
  EXPECT_THROW(GraphSource::open(path, options), Error);
  options.object = "missing";
  EXPECT_THROW(GraphSource::open(path, options), Error);
  const store::StoreInfo info = store::describe(path);
  ASSERT_EQ(info.objects.size(), 3u);
  EXPECT_EQ(info.objects[0].name, "a");
  EXPECT_EQ(info.objects[0].variant, Variant::U);
  EXPECT_EQ(info.objects[0].blocks.size(), 4u) << "begin, edge, rbegin, redge: no out_degree block";
  EXPECT_EQ(info.objects[0].blocks[1].array, "edge");
  EXPECT_EQ(info.objects[2].kind, store::ObjectKind::array);
  EXPECT_EQ(info.objects[2].blocks[0].length, 3u);
  EXPECT_EQ(info.objects[2].blocks[0].bits, 2u);
  EXPECT_EQ(info.uncommitted_bytes, 0u);
  EXPECT_EQ(info.version, 2u);
}

}  // namespace
}  // namespace smartarrays::graph
