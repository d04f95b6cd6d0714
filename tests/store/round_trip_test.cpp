// Tests writing and opening stores: arrays of every width at chunk boundaries in both modes, every
// placement when loading (fake topologies), graphs of every variant with PageRank and degree
// centrality on mapped graphs, append, an interrupted append, writes refused on mapped arrays, and
// blocks written in pieces with an interrupt check before each.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/store/store.hpp"
#include "store_support.hpp"
#include "support/fake_topology.hpp"
#include "support/pagerank_ranks.hpp"

namespace smartarrays {
namespace {

using store::Mode;
using store::Object;
using store::Store;
using test::ranks_of;
using test::ScratchFile;

std::vector<std::uint64_t> sample(std::uint64_t n, unsigned bits, std::uint64_t seed) {
  std::vector<std::uint64_t> values(n);
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (auto& v : values) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = x & mask;
  }
  if (n > 0) values[n - 1] = mask;  // the widest value sits in the partial last chunk
  return values;
}

// "a<k>", built by append: GCC 12 warns wrongly (-Wrestrict) on "a" + std::to_string(k).
std::string array_name(std::size_t k) { return std::string("a").append(std::to_string(k)); }

void expect_values(const SmartArray& array, const std::vector<std::uint64_t>& values) {
  ASSERT_EQ(array.length(), values.size());
  std::vector<std::uint64_t> decoded(values.size());
  if (!values.empty()) array.decode(0, values.size(), decoded.data());
  EXPECT_EQ(decoded, values);
  std::uint64_t sum = 0;
  for (std::uint64_t v : values) sum += v;
  EXPECT_EQ(array.sum(), sum);
  std::uint64_t i = 0;
  for (std::uint64_t v : array) ASSERT_EQ(v, values[i++]) << "iterator at " << i - 1;
  for (std::uint64_t k = 0; k < values.size(); k += 1 + values.size() / 7) EXPECT_EQ(array.get(k), values[k]);
}

TEST(StoreRoundTrip, EveryWidthAtChunkBoundariesInBothModes) {
  ScratchFile file("widths");
  std::vector<std::vector<std::uint64_t>> inputs;
  std::vector<SmartArray> arrays;
  std::vector<Object> objects;
  for (unsigned bits = 1; bits <= 64; ++bits) {
    for (std::uint64_t n : {0ull, 1ull, 63ull, 64ull, 65ull, 200ull}) {
      inputs.push_back(sample(n, bits, bits * 1000 + n));
      ArrayOptions options;
      options.bits = bits;
      arrays.push_back(SmartArray::from_values(inputs.back(), options));
    }
  }
  for (std::size_t k = 0; k < arrays.size(); ++k) objects.emplace_back(array_name(k), arrays[k]);
  Store::write(file.path(), objects);
  for (Mode mode : {Mode::map, Mode::load}) {
    const Store store = Store::open(file.path(), mode);
    ASSERT_EQ(store.names().size(), arrays.size());
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      SCOPED_TRACE(::testing::Message() << (mode == Mode::map ? "map" : "load") << " array " << k);
      const SmartArray& a = store.array(array_name(k));
      EXPECT_EQ(a.bits(), arrays[k].bits());
      EXPECT_EQ(a.read_only(), mode == Mode::map);
      expect_values(a, inputs[k]);
    }
  }
  EXPECT_TRUE(store::verify(file.path(), true).ok());
}

TEST(StoreRoundTrip, MappedArraysAreViewsOfTheFileAndRefuseWrites) {
  ScratchFile file("views");
  const std::vector<std::uint64_t> values = sample(5000, 13, 3);
  const SmartArray array = SmartArray::from_values(values, {});
  Store::write(file.path(), {{"v", array}});
  Store store = Store::open(file.path());
  const SmartArray& mapped = store.array("v");
  // A view of the block: its words are the file's, 4096-aligned in the mapping.
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mapped.replica(0)) % 4096, 0u);
  EXPECT_EQ(mapped.view<13>().get(4999), values[4999]);
  SmartArray& writable = const_cast<SmartArray&>(mapped);
  EXPECT_THROW(writable.init(0, 1), Error);
  EXPECT_THROW(writable.mutable_replica(0), Error);
  EXPECT_THROW(build::fill_array(writable, [](std::uint64_t, std::uint64_t, std::uint64_t*) {}), Error);
  // The views keep the mapping alive after the store is gone.
  SmartArray kept = std::move(writable);
  store = Store::open(file.path());
  EXPECT_EQ(kept.get(4999), values[4999]);
}

TEST(StoreRoundTrip, LoadPutsArraysInEveryPlacement) {
  test::ScopedFakeTopology fake("nodes=3");
  runtime::ThreadPool pool(runtime::PoolOptions{.threads = 3});
  ScratchFile file("placements");
  const std::vector<std::uint64_t> values = sample(70'001, 29, 5);
  const SmartArray array = SmartArray::from_values(values, {});
  Store::write(file.path(), {{"x", array}});
  for (Placement placement : {Placement::os_default, Placement::single_node, Placement::interleaved,
                              Placement::replicated, Placement::partitioned}) {
    SCOPED_TRACE(to_string(placement));
    ArrayOptions options;
    options.placement = placement;
    options.node = placement == Placement::single_node ? 2 : 0;
    const Store store = Store::open(file.path(), Mode::load, options, pool);
    const SmartArray& loaded = store.array("x");
    EXPECT_EQ(loaded.placement(), placement);
    EXPECT_EQ(loaded.replicas(), placement == Placement::replicated ? 3u : 1u);
    for (std::size_t r = 0; r < loaded.replicas(); ++r) {
      for (std::uint64_t w = 0; w < loaded.words_per_replica(); ++w) {
        ASSERT_EQ(loaded.replica(r)[w], array.replica(0)[w]) << "replica " << r << " word " << w;
      }
    }
    expect_values(loaded, values);
  }
}

TEST(StoreRoundTrip, AMappedOpenRefusesAPlacementItWouldIgnore) {
  ScratchFile file("mapped-placement");
  const graph::CsrGraph g = graph::build_csr(graph::generate_uniform({.vertices = 50, .average_degree = 2, .seed = 4}));
  Store::write(file.path(), {{"x", SmartArray::from_values(sample(1'000, 12, 3), {})}, {"g", g}});
  ArrayOptions interleaved;
  interleaved.placement = Placement::interleaved;
  ArrayOptions on_node_zero;
  on_node_zero.placement = Placement::single_node;
  ArrayOptions huge;
  huge.huge_pages = HugePages::on;
  ArrayOptions automatic;
  automatic.auto_placement = true;
  const std::string said = "store: placement, nodes and huge pages apply to load mode; a mapped store stays in the file's pages";
  for (const ArrayOptions& placed : {interleaved, on_node_zero, huge, automatic}) {
    try {
      Store::open(file.path(), Mode::map, placed);
      ADD_FAILURE() << "a mapped store took a placement";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_EQ(std::string(e.what()), said);
    }
    graph::GraphLayout layout;
    layout[graph::GraphArray::redge] = placed;  // one array is enough
    try {
      Store::open_graph(file.path(), "g", Mode::map, layout);
      ADD_FAILURE() << "a mapped graph took a placement";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), said);
    }
    EXPECT_NO_THROW(Store::open(file.path(), Mode::load, placed.auto_placement ? ArrayOptions{} : placed));
  }
  // The defaults, and a layout that differs from them only in widths (ignored: stored widths are kept).
  EXPECT_NO_THROW(Store::open(file.path(), Mode::map, ArrayOptions{}));
  const graph::GraphLayout widths_only = graph::GraphLayout::for_variant(graph::Variant::U);
  EXPECT_EQ(Store::open_graph(file.path(), "g", Mode::map, widths_only).edges(), g.edges());
}

std::vector<std::uint64_t> centrality_of(const graph::CsrGraph& g) {
  const SmartArray c = algo::degree_centrality(g.begin(), g.rbegin(), ArrayOptions{});
  std::vector<std::uint64_t> out(c.length());
  c.decode(0, c.length(), out.data());
  return out;
}

TEST(StoreRoundTrip, GraphsOfEveryVariantRunTheAlgorithmsMapped) {
  ScratchFile file("graphs");
  graph::EdgeList edges = graph::generate_uniform({.vertices = 3000, .average_degree = 6, .seed = 7});
  std::vector<graph::CsrGraph> graphs;
  for (graph::Variant variant : {graph::Variant::U, graph::Variant::V, graph::Variant::VE}) {
    graph::BuildOptions options;
    options.layout = graph::GraphLayout::for_variant(variant);
    graphs.push_back(graph::build_csr(edges, options));
  }
  edges.directed = false;
  graphs.push_back(graph::build_csr(edges));
  Store::write(file.path(), {{"U", graphs[0]}, {"V", graphs[1]}, {"V+E", graphs[2]}, {"undirected", graphs[3]}});
  for (Mode mode : {Mode::map, Mode::load}) {
    const Store store = Store::open(file.path(), mode);
    const char* names[] = {"U", "V", "V+E", "undirected"};
    for (std::size_t k = 0; k < graphs.size(); ++k) {
      SCOPED_TRACE(names[k]);
      EXPECT_EQ(store.kind(names[k]), store::ObjectKind::graph);
      const graph::CsrGraph& g = store.graph(names[k]);
      EXPECT_EQ(g.vertices(), graphs[k].vertices());
      EXPECT_EQ(g.edges(), graphs[k].edges());
      EXPECT_EQ(g.directed(), graphs[k].directed());
      EXPECT_EQ(g.variant(), graphs[k].variant());
      for (std::size_t a = 0; a < graph::graph_array_count; ++a) {
        EXPECT_EQ(g.array(static_cast<graph::GraphArray>(a)).bits(), graphs[k].array(static_cast<graph::GraphArray>(a)).bits());
      }
      g.validate();
      EXPECT_EQ(ranks_of(g), ranks_of(graphs[k]));
      EXPECT_EQ(centrality_of(g), centrality_of(graphs[k]));
      EXPECT_EQ(g.out_neighbours(17), graphs[k].out_neighbours(17));
    }
  }
  EXPECT_TRUE(store::verify(file.path(), true).ok());
  // The undirected graph's shared arrays are written once and come back shared.
  EXPECT_TRUE(graphs[3].shares_reverse());
  EXPECT_TRUE(Store::open(file.path(), Mode::map).graph("undirected").shares_reverse());
  EXPECT_EQ(store::verify(file.path(), false).blocks, 3u * 4u + 2u);
}

TEST(StoreAppend, KeepsOldObjectsAndAddsNewOnes) {
  ScratchFile file("append");
  const std::vector<std::uint64_t> first = sample(1000, 9, 1);
  const std::vector<std::uint64_t> second = sample(3000, 40, 2);
  const SmartArray a = SmartArray::from_values(first, {});
  const SmartArray b = SmartArray::from_values(second, {});
  const graph::CsrGraph g = graph::build_csr(graph::generate_uniform({.vertices = 100, .average_degree = 3, .seed = 2}));
  Store::write(file.path(), {{"a", a}});
  const auto before = std::filesystem::file_size(file.path());
  Store::append(file.path(), {{"b", b}, {"g", g}});
  EXPECT_GT(std::filesystem::file_size(file.path()), before);
  const Store store = Store::open(file.path());
  EXPECT_EQ(store.names(), (std::vector<std::string>{"a", "b", "g"}));
  expect_values(store.array("a"), first);
  expect_values(store.array("b"), second);
  EXPECT_EQ(store.graph("g").edges(), g.edges());
  EXPECT_TRUE(store::verify(file.path(), true).ok());
  try {
    Store::append(file.path(), {{"a", b}});
    FAIL() << "a second 'a' was appended";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("an object named 'a' already exists"), std::string::npos) << e.what();
  }
}

TEST(StoreAppend, AnInterruptedAppendLeavesThePreviousVersionReadable) {
  ScratchFile file("crash");
  const std::vector<std::uint64_t> first = sample(777, 11, 4);
  const SmartArray a = SmartArray::from_values(first, {});
  const SmartArray b = SmartArray::from_values(sample(50'000, 33, 5), {});
  Store::write(file.path(), {{"a", a}});
  const auto committed = std::filesystem::file_size(file.path());
  Store::append(file.path(), {{"b", b}});
  // The crash: everything after the new blocks (the new directory and trailer) never reached the disk.
  const std::vector<std::uint8_t> full = test::read_bytes(file.path());
  const std::size_t new_directory = test::directory_offset(full);
  for (std::size_t cut : {new_directory, new_directory + 5, full.size() - 1}) {
    SCOPED_TRACE(cut);
    test::write_bytes(file.path(), std::vector<std::uint8_t>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(cut)));
    for (Mode mode : {Mode::map, Mode::load}) {
      const Store store = Store::open(file.path(), mode);
      EXPECT_EQ(store.names(), std::vector<std::string>{"a"});
      EXPECT_EQ(store.uncommitted_bytes(), cut - committed);
      expect_values(store.array("a"), first);
    }
    const store::VerifyReport report = store::verify(file.path());
    EXPECT_TRUE(report.ok());
    EXPECT_EQ(report.uncommitted_bytes, cut - committed);
  }
  // Appending again drops the remains and commits the new object after the old version.
  Store::append(file.path(), {{"b", b}});
  const Store store = Store::open(file.path());
  EXPECT_EQ(store.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(store.uncommitted_bytes(), 0u);
  EXPECT_EQ(store.array("b").sum(), b.sum());
}

TEST(StoreWrite, RefusesBadNamesAndDuplicates) {
  ScratchFile file("names");
  const SmartArray a = SmartArray::from_values(std::vector<std::uint64_t>{1, 2, 3}, {});
  EXPECT_THROW(Store::write(file.path(), {{"", a}}), Error);
  EXPECT_THROW(Store::write(file.path(), {{std::string("a\0b", 3), a}}), Error);
  EXPECT_THROW(Store::write(file.path(), {{std::string(1025, 'x'), a}}), Error);
  // Control bytes (a name is shown by store list and typed after --name) are refused, named as \xHH.
  for (const std::string& bad : std::vector<std::string>{"a\nb", "\x1b[2J", "tab\t", "del\x7f"}) {
    try {
      Store::write(file.path(), {{bad, a}});
      ADD_FAILURE() << "accepted a name with a control byte";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("no control byte (below 0x20, or 0x7f)"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\x1b'), std::string::npos) << "the raw byte reached the message";
    }
  }
  EXPECT_THROW(Store::write(file.path(), {{"a", a}, {"a", a}}), Error);
  EXPECT_FALSE(std::filesystem::exists(file.path()));
  Store::write(file.path(), {});
  EXPECT_TRUE(Store::open(file.path()).names().empty());
  // Any other bytes are kept as they are: UTF-8, spaces, 1024 bytes.
  const std::vector<std::string> good{"gr\xc3\xb6\xc3\x9f" "e", "with space", std::string(1024, 'y')};
  Store::write(file.path(), {{good[0], a}, {good[1], a}, {good[2], a}});
  EXPECT_EQ(Store::open(file.path()).names(), good);
}

// Blocks are written in pieces of 1 MiB: an array of several pieces reads back with its checksum.
// An interrupt (Ctrl-C in Python or the command) is taken before each piece: a write leaves the old
// file and no staged file, an append leaves the file as it was.
TEST(StoreWrite, ABlockOfSeveralPiecesVerifiesAndAnInterruptLeavesTheOldVersion) {
  ScratchFile file("interrupt");
  const std::vector<std::uint64_t> old_values = sample(100, 7, 6);
  const std::vector<std::uint64_t> big_values = sample(400'000, 61, 7);  // 3.05 MB: 3 whole pieces and a part
  const SmartArray old_array = SmartArray::from_values(old_values, {});
  const SmartArray big = SmartArray::from_values(big_values, {});
  Store::write(file.path(), {{"big", big}});
  EXPECT_TRUE(store::verify(file.path(), true).ok());
  expect_values(Store::open(file.path(), Mode::load).array("big"), big_values);

  Store::write(file.path(), {{"old", old_array}});
  const std::vector<std::uint8_t> before = test::read_bytes(file.path());
  {
    runtime::InterruptScope scope([] { return true; });
    for (const auto& write : {std::function<void()>([&] { Store::write(file.path(), {{"big", big}}); }),
                              std::function<void()>([&] { Store::append(file.path(), {{"big", big}}); })}) {
      try {
        write();
        ADD_FAILURE() << "an interrupted write completed";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::cancelled) << e.what();
      }
      EXPECT_EQ(test::read_bytes(file.path()), before);
    }
  }
  const std::filesystem::path path(file.path());
  for (const auto& entry : std::filesystem::directory_iterator(path.parent_path())) {
    EXPECT_NE(entry.path().filename().string().rfind(path.filename().string() + ".partial", 0), 0u)
        << "a staged file remains: " << entry.path();
  }
  const Store store = Store::open(file.path());
  EXPECT_EQ(store.names(), std::vector<std::string>{"old"});
  expect_values(store.array("old"), old_values);
}

}  // namespace
}  // namespace smartarrays
