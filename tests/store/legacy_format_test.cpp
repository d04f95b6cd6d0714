// Tests reading store files of format version 1, whose graphs carry an out_degree block
// (tests/data/store/tiny-v1.sa, written by the version-1 writer; tests/data/store/README.md says
// how): every graph opens mapped and loaded with the arrays it was built with, the stored
// out-degrees equal the ones derived from begin, the block is listed but never needed, and an
// append brings the file to this version's header with a graph of four blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/store/store.hpp"
#include "store_support.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays {
namespace {

using store::Mode;
using store::Store;

std::string legacy_store() { return std::string(SMARTARRAYS_TEST_DATA_DIR) + "/store/tiny-v1.sa"; }

// tiny.el built as the fixture's graph of that name was.
graph::CsrGraph expected_graph(const std::string& name) {
  graph::SourceOptions source;
  source.undirected = name == "undirected_ve";
  graph::BuildOptions build;
  build.layout = graph::GraphLayout::for_variant(name == "directed_u" ? graph::Variant::U : graph::Variant::VE);
  return graph::GraphSource::open(test::graph_data("tiny.el"), source).build(build);
}

// The values of the block described by info, read from the file's bytes.
std::vector<std::uint64_t> block_values(const std::vector<std::uint8_t>& file, const store::BlockInfo& info) {
  std::vector<std::uint64_t> words(info.bytes / 8);
  std::memcpy(words.data(), file.data() + info.offset, info.bytes);
  std::vector<std::uint64_t> values(info.length);
  codec::decode(words.data(), info.bits, 0, info.length, values.data());
  return values;
}

TEST(LegacyStoreFormat, VersionOneGraphsOpenAndTheirStoredDegreesAreTheDerivedOnes) {
  const store::StoreInfo info = store::describe(legacy_store());
  EXPECT_EQ(info.version, 1u);
  ASSERT_EQ(info.objects.size(), 3u);
  const std::vector<std::uint8_t> file = test::read_bytes(legacy_store());
  for (Mode mode : {Mode::map, Mode::load}) {
    const Store s = Store::open(legacy_store(), mode);
    for (const store::ObjectInfo& object : info.objects) {
      SCOPED_TRACE(object.name + " " + store::to_string(mode));
      ASSERT_EQ(object.blocks.size(), 5u);
      EXPECT_EQ(object.blocks[4].array, "out_degree");
      const graph::CsrGraph& g = s.graph(object.name);
      g.validate();
      const graph::CsrGraph expected = expected_graph(object.name);
      EXPECT_EQ(test::decode(g), test::decode(expected));
      EXPECT_EQ(g.shares_reverse(), expected.shares_reverse());
      EXPECT_EQ(g.variant(), expected.variant());
      for (std::size_t a = 0; a < graph::graph_array_count; ++a) {
        const auto which = static_cast<graph::GraphArray>(a);
        EXPECT_EQ(g.array(which).bits(), expected.array(which).bits()) << graph::to_string(which);
      }
      // What the old writer stored is what the offsets say now.
      const std::vector<std::uint64_t> stored = block_values(file, object.blocks[4]);
      ASSERT_EQ(stored.size(), g.vertices());
      for (std::uint64_t v = 0; v < g.vertices(); ++v) EXPECT_EQ(g.out_degree(v), stored[v]) << "vertex " << v;
      // The graph's memory is its four arrays; the unused block is not mapped into it.
      EXPECT_EQ(g.memory_report().arrays.size(), graph::graph_array_count);
      const algo::PageRankResult ranks = algo::pagerank(g.rbegin(), g.redge(), g.begin());
      const algo::PageRankResult reference = algo::pagerank(expected.rbegin(), expected.redge(), expected.begin());
      for (std::uint64_t v = 0; v < g.vertices(); ++v) EXPECT_EQ(ranks.ranks.get(v), reference.ranks.get(v)) << v;
    }
  }
  const store::VerifyReport deep = store::verify(legacy_store(), true);
  EXPECT_TRUE(deep.ok()) << (deep.problems.empty() ? "" : deep.problems.front());
  EXPECT_EQ(deep.blocks, 3u * 5 - 2) << "the undirected graph's shared blocks count once; out_degree blocks are checked";
}

TEST(LegacyStoreFormat, AnAppendWritesThisVersionsHeaderAndAGraphOfFourBlocks) {
  const test::ScratchFile copy("legacy-append");
  std::filesystem::copy_file(legacy_store(), copy.path());
  Store::append(copy.path(), {{"appended", expected_graph("directed_u")}});
  const store::StoreInfo info = store::describe(copy.path());
  EXPECT_EQ(info.version, 2u);
  ASSERT_EQ(info.objects.size(), 4u);
  EXPECT_EQ(info.objects[0].blocks.size(), 5u) << "the old graphs keep their out_degree blocks";
  EXPECT_EQ(info.objects[3].blocks.size(), graph::graph_array_count);
  for (Mode mode : {Mode::map, Mode::load}) {
    const Store s = Store::open(copy.path(), mode);
    EXPECT_EQ(test::decode(s.graph("appended")), test::decode(s.graph("directed_u")));
  }
  EXPECT_TRUE(store::verify(copy.path(), true).ok());
}

TEST(LegacyStoreFormat, NewFilesHaveNoOutDegreeBlock) {
  const test::ScratchFile file("no-out-degree");
  Store::write(file.path(), {{"d", expected_graph("directed_u")}, {"u", expected_graph("undirected_ve")}});
  const store::StoreInfo info = store::describe(file.path());
  EXPECT_EQ(info.version, 2u);
  for (const store::ObjectInfo& object : info.objects) {
    ASSERT_EQ(object.blocks.size(), graph::graph_array_count) << object.name;
    for (const store::BlockInfo& block : object.blocks) EXPECT_NE(block.array, "out_degree");
  }
}

}  // namespace
}  // namespace smartarrays
