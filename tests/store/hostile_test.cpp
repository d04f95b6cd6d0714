// Tests that opening never trusts a store file: each malformed header, trailer, directory and
// block is refused with a message naming the object or block and the offset; a loaded graph whose
// ids or offsets would lead a traversal out of its arrays is refused (a mapped one is verify's);
// verify reports corrupt blocks; graphs rebuilt from arrays (Dask frames, pickles) keep a store
// graph's rules, and what the reader refuses is not written; and what a mapped store does when its
// file is truncated or rewritten after opening: an Error, never a signal or a read outside its arrays.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/build/bulk.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/os/mapping_guard.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/store/store.hpp"
#include "store_support.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays {
namespace {

using store::Mode;
using store::Store;
using test::ScratchFile;

// Directory layout (docs/compact-format.md): 16-byte head, 40-byte block descriptors, objects.
constexpr std::size_t blocks_at = 16;
constexpr std::size_t block_bytes = 40;

class HostileStore : public ::testing::Test {
 protected:
  void SetUp() override {
    const SmartArray a = SmartArray::from_values(std::vector<std::uint64_t>(300, 5), {});
    const graph::CsrGraph g = graph::build_csr(graph::generate_uniform({.vertices = 50, .average_degree = 2, .seed = 3}));
    Store::write(file_.path(), {{"numbers", a}, {"g", g}});
    good_ = test::read_bytes(file_.path());
  }

  // Writes bytes and expects both modes to refuse them with a message holding every part.
  void expect_refused(const std::vector<std::uint8_t>& bytes, const std::vector<std::string>& parts) {
    test::write_bytes(file_.path(), bytes);
    for (Mode mode : {Mode::map, Mode::load}) {
      try {
        Store::open(file_.path(), mode);
        ADD_FAILURE() << "opened a hostile store";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        for (const std::string& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      }
    }
  }

  std::size_t object_entry(std::size_t index) const {
    const std::size_t dir = test::directory_offset(good_);
    std::uint32_t blocks;
    std::memcpy(&blocks, good_.data() + dir + 8, 4);
    std::size_t at = dir + blocks_at + blocks * block_bytes;
    for (std::size_t k = 0; k < index; ++k) {
      std::uint32_t name;
      std::memcpy(&name, good_.data() + at + 4, 4);
      at += 56 + (name + 7) / 8 * 8;
    }
    return at;
  }

  ScratchFile file_{"hostile"};
  std::vector<std::uint8_t> good_;
};

TEST_F(HostileStore, RefusesShortFilesAndForeignHeaders) {
  expect_refused({}, {"0 bytes is too short"});
  expect_refused(std::vector<std::uint8_t>(good_.begin(), good_.begin() + 40), {"40 bytes is too short"});
  auto bytes = good_;
  bytes[0] = 'X';
  expect_refused(bytes, {"not a smartarrays store: magic 'XASTORE\\x00' at offset 0"});
  bytes = good_;
  test::put_at<std::uint32_t>(bytes, 12, 0x04030201);
  expect_refused(bytes, {"big-endian", "at offset 12"});
  bytes = good_;
  test::put_at<std::uint32_t>(bytes, 8, 3);
  expect_refused(bytes, {"format version 3 at offset 8 is newer than this reader's (2)"});
  bytes = good_;
  test::put_at<std::uint64_t>(bytes, 16, 4);
  expect_refused(bytes, {"unknown header flags 0x4 at offset 16"});
  bytes = good_;
  bytes[25] ^= 1;
  expect_refused(bytes, {"header checksum", "at offset 24"});
}

TEST_F(HostileStore, RefusesATruncatedFileAndABadTrailerOrDirectory) {
  // Cut inside the only version's directory: no trailer is left.
  expect_refused(std::vector<std::uint8_t>(good_.begin(), good_.end() - 40), {"no trailer", "truncated"});
  auto bytes = good_;
  bytes[test::directory_offset(good_) + 20] ^= 0xff;  // a descriptor byte, checksum left stale
  expect_refused(bytes, {"directory at offset " + std::to_string(test::directory_offset(good_)), "checksum"});
}

TEST_F(HostileStore, RefusesBadBlockDescriptors) {
  const std::size_t d0 = test::directory_offset(good_) + blocks_at;
  auto patched = [&](std::size_t field, auto value) {
    auto bytes = good_;
    test::patch_directory(bytes, [&](std::vector<std::uint8_t>& b, std::size_t) { test::put_at(b, d0 + field, value); });
    return bytes;
  };
  const std::string descriptor = "block 0 (descriptor at offset " + std::to_string(d0) + ")";
  expect_refused(patched(4, std::uint32_t{0}), {descriptor, "bit width 0 out of range 1..64"});
  expect_refused(patched(4, std::uint32_t{65}), {descriptor, "bit width 65"});
  expect_refused(patched(0, std::uint32_t{9}), {descriptor, "unknown block kind 9"});
  expect_refused(patched(8, std::uint64_t{100'000}), {descriptor, "byte length", "disagrees with 100000 values"});
  expect_refused(patched(8, ~std::uint64_t{0}), {descriptor, "exceed the format's 2^58 words"});
  expect_refused(patched(16, std::uint64_t{4100}), {descriptor, "data offset 4100 is not a positive multiple of 4096"});
  expect_refused(patched(16, std::uint64_t{1} << 62), {descriptor, "runs past the directory"});
  expect_refused(patched(16, ~std::uint64_t{0} / 4096 * 4096), {descriptor, "runs past the directory"});
  // Block 1 moved onto block 0.
  auto bytes = good_;
  test::patch_directory(bytes, [&](std::vector<std::uint8_t>& b, std::size_t) {
    test::put_at(b, d0 + block_bytes + 16, test::u64_at(b, d0 + 16));
  });
  expect_refused(bytes, {"overlaps block"});
}

TEST_F(HostileStore, RefusesBadObjects) {
  const std::size_t numbers = object_entry(0);
  const std::size_t g = object_entry(1);
  auto patched = [&](std::size_t at, auto value) {
    auto bytes = good_;
    test::patch_directory(bytes, [&](std::vector<std::uint8_t>& b, std::size_t) { test::put_at(b, at, value); });
    return bytes;
  };
  const std::string array_entry = "array 'numbers' (entry at offset " + std::to_string(numbers) + ")";
  expect_refused(patched(numbers + 8, std::uint32_t{99}), {array_entry, "names block 99, but the directory has 5 blocks"});
  expect_refused(patched(numbers + 8, std::uint32_t{1}), {"already belongs to another object"});
  expect_refused(patched(numbers, std::uint32_t{7}), {"object 0 (entry at offset " + std::to_string(numbers) + ")", "unknown object kind 7"});
  expect_refused(patched(numbers + 4, std::uint32_t{0}), {"name length 0 out of range"});
  expect_refused(patched(numbers + 4, std::uint32_t{5000}), {"name length 5000 out of range"});
  expect_refused(patched(numbers + 4, std::uint32_t{900}), {"the directory ends inside the name"});
  expect_refused(patched(numbers + 4, std::uint32_t{1}), {"array 'n'", "the name's padding is not zero"});
  auto renamed = good_;  // "numbers" renamed "g", padded with zeros: the graph's name is then taken twice
  test::patch_directory(renamed, [&](std::vector<std::uint8_t>& b, std::size_t) {
    test::put_at(b, numbers + 4, std::uint32_t{1});
    test::put_at(b, numbers + 56, std::uint64_t{'g'});
  });
  expect_refused(renamed, {"graph 'g' (entry at offset " + std::to_string(g) + ")", "the name is used twice"});
  expect_refused(patched(g + 32, std::uint64_t{49}), {"graph 'g'", "array begin", "holds 51 values", "n = 49"});
  expect_refused(patched(g + 32, ~std::uint64_t{0}), {"graph 'g'", "leaves no room"});
  expect_refused(patched(g + 48, std::uint32_t{3}), {"graph 'g'", "variant 3"});
  expect_refused(patched(g + 28, std::uint32_t{6}), {"graph 'g'", "unknown graph flags 0x6"});
  // Slot 4 (a version 1 file's out_degree) is no block in this version's files; when set it must
  // name a block of its own of n values.
  expect_refused(patched(g + 24, std::uint32_t{99}), {"graph 'g'", "names block 99"});
  expect_refused(patched(g + 24, std::uint32_t{0}), {"block 0 already belongs to another object"});
  // Only an undirected graph's rbegin and redge may name begin's and edge's blocks.
  auto shared = good_;
  test::patch_directory(shared, [&](std::vector<std::uint8_t>& b, std::size_t) {
    std::uint32_t begin_block, edge_block;
    std::memcpy(&begin_block, b.data() + g + 8, 4);
    std::memcpy(&edge_block, b.data() + g + 12, 4);
    test::put_at(b, g + 16, begin_block);
    test::put_at(b, g + 20, edge_block);
  });
  expect_refused(shared, {"graph 'g'", "a directed graph's rbegin and redge cannot be its begin and edge"});
  // An undirected graph is one CSR: its rbegin and redge name begin's and edge's blocks, both, never
  // one and never blocks of their own (which deep verification passed, and which the .sg and .el
  // writers then wrote wrong: the forward CSR alone, not symmetric). Block 0 is the array's.
  const std::string entry = "graph 'g' (entry at offset " + std::to_string(g) + ")";
  const std::string undirected = "an undirected graph's rbegin and redge slots must name begin's and edge's blocks";
  expect_refused(patched(g + 28, std::uint32_t{0}), {entry, undirected, "slots begin, edge, rbegin, redge name blocks 1, 2, 3, 4"});
  auto one_shared = good_;
  test::patch_directory(one_shared, [&](std::vector<std::uint8_t>& b, std::size_t) {
    test::put_at(b, g + 28, std::uint32_t{0});
    test::put_at(b, g + 16, std::uint32_t{1});
  });
  expect_refused(one_shared, {entry, undirected, "name blocks 1, 2, 1, 4"});
  // An object count beyond what the directory holds.
  expect_refused(patched(test::directory_offset(good_) + 12, std::uint32_t{1'000'000}), {"objects do not fit"});
  expect_refused(patched(test::directory_offset(good_) + 12, std::uint32_t{1}), {"bytes after its last object"});
}

TEST_F(HostileStore, VerifyReportsCorruptBlocksAndLoadRefusesThem) {
  auto bytes = good_;
  bytes[4096 + 3] ^= 0x10;  // inside the first block's words
  test::write_bytes(file_.path(), bytes);
  const store::VerifyReport report = store::verify(file_.path(), true);
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_NE(report.problems[0].find("array 'numbers': checksum"), std::string::npos) << report.problems[0];
  EXPECT_NE(report.problems[0].find("offset 4096"), std::string::npos) << report.problems[0];
  // Mapped mode reads no block, so it opens; load checks every block it copies.
  EXPECT_NO_THROW(Store::open(file_.path(), Mode::map));
  try {
    Store::open(file_.path(), Mode::load);
    FAIL() << "loaded a corrupt block";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("array 'numbers': the block at offset 4096 has checksum"), std::string::npos) << e.what();
  }
}

TEST_F(HostileStore, DeepVerifyFindsABrokenGraph) {
  // A graph whose reverse arrays are not the transpose: CsrGraph checks only lengths, so it writes.
  const Store good = Store::open(file_.path());
  const graph::CsrGraph& g = good.graph("g");
  auto copy = [](const SmartArray& a, bool break_first) {
    std::vector<std::uint64_t> values(a.length());
    a.decode(0, values.size(), values.data());
    if (break_first) values[0] = values[0] == 0 ? 1 : 0;
    ArrayOptions options;
    options.bits = a.bits();
    return SmartArray::from_values(values, options);
  };
  const graph::CsrGraph broken({copy(g.begin(), false), copy(g.edge(), false), copy(g.rbegin(), false),
                                copy(g.redge(), true)},
                               g.directed());
  ScratchFile other("broken-graph");
  Store::write(other.path(), {{"broken", broken}});
  EXPECT_TRUE(store::verify(other.path()).ok());
  const store::VerifyReport deep = store::verify(other.path(), true);
  ASSERT_EQ(deep.problems.size(), 1u);
  EXPECT_EQ(deep.problems[0].rfind("graph 'broken': ", 0), 0u) << deep.problems[0];
}

// The graph's checksums are right, its ids are not: before the check, a loaded store held it and
// PageRank read past the rank array (the Python interpreter died with SIGSEGV); mapped, it was
// opened unchecked and `smartarrays graph pagerank bad.sa` died with SIGSEGV.
TEST(StoreGraphBounds, AGraphWithIdsPastItsVertexCountIsRefusedMappedOrLoaded) {
  ScratchFile file("bounds");
  Store::write(file.path(), {{"g", test::graph_out_of_bounds()}});
  auto expect_refused = [](auto&& open) {
    try {
      open();
      ADD_FAILURE() << "a graph with ids past its vertex count was loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_EQ(std::string(e.what()).rfind("store: graph 'g' (entry at offset ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(test::out_of_bounds_message), std::string::npos) << e.what();
    }
  };
  for (Mode mode : {Mode::map, Mode::load}) {
    expect_refused([&] { Store::open(file.path(), mode); });
    expect_refused([&] { Store::open_graph(file.path(), "g", mode); });
  }
  const store::VerifyReport deep = store::verify(file.path(), true);
  ASSERT_EQ(deep.problems.size(), 1u);
  EXPECT_NE(deep.problems[0].find("4294967295"), std::string::npos) << deep.problems[0];
}

// Arrays received in another form (Dask frames, a pickle) make a graph only under a store entry's
// rules: an undirected graph is one CSR (two arrays, or four whose reverse holds the forward words),
// a directed graph four arrays, and every offset and id lies within them.
TEST(StoreGraphFromArrays, KeepsTheRulesOfAStoresGraph) {
  auto values = [](std::vector<std::uint64_t> v, unsigned bits) {
    ArrayOptions options;
    options.bits = bits;
    return SmartArray::from_values(v, options);
  };
  // 0 - 1, 1 - 2 undirected: begin {0, 1, 3, 4}, edge {1, 0, 2, 1}.
  auto csr = [&] {
    std::vector<SmartArray> arrays;
    arrays.push_back(values({0, 1, 3, 4}, 3));
    arrays.push_back(values({1, 0, 2, 1}, 2));
    return arrays;
  };
  const graph::CsrGraph two = store::graph_from_arrays(csr(), false, "frames");
  EXPECT_TRUE(two.shares_reverse());
  two.validate();
  std::vector<SmartArray> four = csr();
  four.push_back(values({0, 1, 3, 4}, 3));
  four.push_back(values({1, 0, 2, 1}, 2));
  const graph::CsrGraph same_words = store::graph_from_arrays(std::move(four), false, "pickle");
  EXPECT_TRUE(same_words.shares_reverse());  // a pickle's copies of begin and edge: one CSR again
  EXPECT_EQ(same_words.out_neighbours(1), (std::vector<std::uint64_t>{0, 2}));
  const char* undirected = "an undirected graph's rbegin and redge slots must name begin's and edge's blocks";
  std::vector<SmartArray> separate = csr();
  separate.push_back(values({0, 1, 3, 4}, 3));
  separate.push_back(values({1, 2, 0, 1}, 2));  // the reverse of a directed graph, not begin's and edge's words
  test::expect_error([&] { store::graph_from_arrays(std::move(separate), false, "frames"); },
                     {"frames: ", undirected, "name blocks 0, 1, 0, 3"});
  test::expect_error([&] { store::graph_from_arrays(csr(), true, "frames"); },
                     {"frames: a directed graph's rbegin and redge cannot be its begin and edge"});
  std::vector<SmartArray> three = csr();
  three.push_back(values({0, 1, 3, 4}, 3));
  test::expect_error([&] { store::graph_from_arrays(std::move(three), true, "frames"); }, {"frames: a graph is four arrays", "3 came"});
  const graph::CsrGraph bad = test::graph_out_of_bounds();
  std::vector<SmartArray> outside;
  for (auto which : {graph::GraphArray::begin, graph::GraphArray::edge, graph::GraphArray::rbegin, graph::GraphArray::redge}) {
    outside.push_back(SmartArray::from_values(test::values_of(bad.array(which)), [&] {
      ArrayOptions options;
      options.bits = bad.array(which).bits();
      return options;
    }()));
  }
  test::expect_error([&] { store::graph_from_arrays(std::move(outside), true, "pickle"); },
                     {"pickle: ", test::out_of_bounds_message});
}

// What the reader refuses is never written: an undirected graph whose rbegin and redge are arrays
// of their own (CsrGraph's four-array constructor) is refused by the writer and the sender.
TEST(StoreGraphFromArrays, AnUndirectedGraphWithAReverseOfItsOwnIsNotWritten) {
  auto values = [](std::vector<std::uint64_t> v) { return SmartArray::from_values(v, {}); };
  const graph::CsrGraph g({values({0, 1, 2}), values({1, 0}), values({0, 1, 2}), values({1, 0})}, false);
  ScratchFile file("undirected-four");
  test::expect_error([&] { Store::write(file.path(), {{"g", g}}); },
                     {"store: graph 'g' is undirected but its rbegin and redge are arrays of their own"});
  EXPECT_FALSE(std::filesystem::exists(file.path()));
}

// An interrupt while a graph loads stays an interrupt (Error(cancelled), the command's exit 130),
// not a malformed graph: the graph's context is added to the error, its code kept.
TEST_F(HostileStore, AnInterruptedGraphLoadIsCancelledNotMalformed) {
  const runtime::InterruptScope stop([] { return true; });
  try {
    Store::open_graph(file_.path(), "g", Mode::load);
    ADD_FAILURE() << "the load was not interrupted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::cancelled) << e.what();
  }
}

// A mapped array's pages are the file's: truncating the file under it makes a read raise SIGBUS,
// which the mapping guard turns into zeros and an Error naming the file at the library's next check
// (each checked read of a mapped array, each parallel batch, each C ABI call), while a loaded store
// owns its copy and is unaffected.
TEST(StoreTruncatedAfterOpen, MappedReadsFailNamingTheFileLoadedStoresAreUnaffected) {
  ScratchFile file("truncated");
  std::vector<std::uint64_t> values(200'000);
  for (std::uint64_t i = 0; i < values.size(); ++i) values[i] = i;
  const SmartArray array = SmartArray::from_values(values, {});
  const graph::CsrGraph g = graph::build_csr(graph::generate_uniform({.vertices = 20000, .average_degree = 8, .seed = 5}));
  Store::write(file.path(), {{"big", array}, {"g", g}});
  const Store loaded = Store::open(file.path(), Mode::load);
  const Store mapped = Store::open(file.path(), Mode::map);
  std::filesystem::resize_file(file.path(), 4096);
  const auto expect_truncated = [&](const auto& call) {
    try {
      call();
      ADD_FAILURE() << "a read past the new end of a mapped file succeeded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::os_error) << e.what();
      EXPECT_NE(std::string(e.what()).find(file.path()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("was truncated while mapped"), std::string::npos) << e.what();
    }
  };
  // Each checked read of a mapped array fails at once; a read through a view is the caller's to check.
  expect_truncated([&] { mapped.array("big").get(values.size() - 2); });
  expect_truncated([&] { mapped.array("big").sum(100'000, 1000); });
  std::uint64_t faults = os::mapping_faults();
  EXPECT_EQ(mapped.array("big").view<18>().get(120'000), 0u);
  expect_truncated([&] { os::check_mapping_faults(faults); });
  expect_truncated([&] { build::crc32c(mapped.array("big"), 0); });
  // The pages read as zeros fault no more, but a checked read of a cut mapping still fails.
  expect_truncated([&] { mapped.array("big").get(values.size() - 2); });
  // PageRank's first reads are the caller's own (its input checks), which read zeros and fail them;
  // the thread's fault count says why.
  const graph::CsrGraph& mapped_graph = mapped.graph("g");
  faults = os::mapping_faults();
  EXPECT_THROW(algo::pagerank(mapped_graph.rbegin(), mapped_graph.redge(), mapped_graph.begin(), {}), Error);
  expect_truncated([&] { os::check_mapping_faults(faults); });
  EXPECT_EQ(loaded.array("big").get(values.size() - 1), values.size() - 1);
  EXPECT_EQ(loaded.array("big").sum(), values.size() * (values.size() - 1) / 2);
  EXPECT_THROW(Store::open(file.path(), Mode::load), Error);
}

// Ids and offsets rewritten in place under a mapped graph by a writer that ignores the locks: the
// pull tests each where it uses it, so PageRank ends with an Error instead of reading outside its
// scores, for in-place (32-bit, U) and unpacked (V) ids and for in-place (64-bit) and decoded offsets.
TEST(StoreChangedUnderneath, IdsAndOffsetsRewrittenUnderAMappedGraphAreAnErrorNotACrash) {
  const graph::EdgeList edges = graph::generate_uniform({.vertices = 5000, .average_degree = 8, .seed = 9});
  for (graph::Variant variant : {graph::Variant::U, graph::Variant::V}) {
    for (const char* array : {"redge", "rbegin"}) {
      ScratchFile file("changed");
      graph::BuildOptions options;
      options.layout = graph::GraphLayout::for_variant(variant);
      Store::write(file.path(), {{"g", graph::build_csr(edges, options)}});
      const Store mapped = Store::open(file.path(), Mode::map);
      const graph::CsrGraph& g = mapped.graph("g");
      const algo::PageRankResult before = algo::pagerank(g.rbegin(), g.redge(), g.begin(), {});
      std::uint64_t offset = 0;
      std::uint64_t bytes = 0;
      const store::StoreInfo info = store::describe(file.path());
      for (const store::BlockInfo& block : info.objects[0].blocks) {
        if (block.array == array) {
          offset = block.offset;
          bytes = block.bytes;
        }
      }
      // Every bit set in the block's second quarter: ids far past n, offsets past m (the last offset,
      // which PageRank's input check reads, is left alone).
      const std::vector<std::uint8_t> ones(bytes / 4, 0xff);
      std::fstream out(file.path(), std::ios::in | std::ios::out | std::ios::binary);
      out.seekp(static_cast<std::streamoff>(offset + bytes / 4));
      out.write(reinterpret_cast<const char*>(ones.data()), static_cast<std::streamsize>(ones.size()));
      out.close();
      try {
        algo::pagerank(g.rbegin(), g.redge(), g.begin(), {});
        ADD_FAILURE() << graph::to_string(variant) << " " << array << ": PageRank over rewritten ids succeeded";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
        EXPECT_NE(std::string(e.what()).find("a mapped file changed after its bounds were checked at open"), std::string::npos)
            << e.what();
      }
      EXPECT_GT(before.iterations, 0u);
    }
  }
}

}  // namespace
}  // namespace smartarrays
