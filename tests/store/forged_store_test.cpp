// Property test of what deep verification promises: stores of directed and undirected graphs are
// forged with a seeded RNG (a graph entry's flags, block slots, n, m or variant, or a block's width,
// changed in the directory with its checksums kept right), and every file that
// store::verify(path, true) reports clean is read by every reader (Store::open mapped and loaded,
// GraphSource::open of the file, a received stream) as the same graphs, which every graph writer
// (.sg, .el, .mtx, .sa) writes back unchanged.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codec/crc32c.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/store/store.hpp"
#include "store_support.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays {
namespace {

using store::Mode;
using store::Store;

// Directory layout (docs/compact-format.md): a 16-byte head, 40-byte block descriptors, then
// 56-byte object entries each followed by its name padded to a multiple of 8.
constexpr std::size_t head_bytes = 16;
constexpr std::size_t block_bytes = 40;
constexpr std::size_t entry_bytes = 56;
constexpr std::uint32_t graph_kind = 2;
constexpr std::uint32_t no_block = 0xFFFFFFFF;

template <typename T>
T read_at(const std::vector<std::uint8_t>& bytes, std::size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// Where a store's directory puts its block descriptors and its graphs' entries.
struct Directory {
  std::size_t blocks_at = 0;               // file offset of block descriptor 0
  std::uint32_t blocks = 0;                // block count
  std::vector<std::size_t> graph_entries;  // file offsets of the graphs' object entries
};

Directory directory_of(const std::vector<std::uint8_t>& bytes) {
  const std::size_t dir = test::directory_offset(bytes);
  Directory d;
  d.blocks_at = dir + head_bytes;
  d.blocks = read_at<std::uint32_t>(bytes, dir + 8);
  std::size_t at = d.blocks_at + d.blocks * block_bytes;
  for (std::uint32_t k = 0, objects = read_at<std::uint32_t>(bytes, dir + 12); k < objects; ++k) {
    if (read_at<std::uint32_t>(bytes, at) == graph_kind) d.graph_entries.push_back(at);
    at += entry_bytes + (read_at<std::uint32_t>(bytes, at + 4) + 7) / 8 * 8;
  }
  return d;
}

// n or m forged: one more or less, zero, or any value.
std::uint64_t forged_count(std::uint64_t count, std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return count + 1;
    case 1: return count - 1;
    case 2: return 0;
    default: return rng();
  }
}

// Changes one field of bytes (a store whose last 32 bytes are its trailer) at random, recomputing
// the checksums that cover it, so only the field is wrong; returns what it changed.
std::string forge(std::vector<std::uint8_t>& bytes, std::mt19937_64& rng) {
  const Directory d = directory_of(bytes);
  const std::size_t entry = d.graph_entries[rng() % d.graph_entries.size()];
  const std::string where = "entry at " + std::to_string(entry) + ": ";
  std::string what;
  test::patch_directory(bytes, [&](std::vector<std::uint8_t>& b, std::size_t) {
    switch (rng() % 6) {
      case 0: {  // flags: mostly the directed bit
        const std::uint32_t bit = rng() % 3 == 0 ? std::uint32_t{1} << (rng() % 32) : 1;
        test::put_at(b, entry + 28, read_at<std::uint32_t>(b, entry + 28) ^ bit);
        what = where + "flags ^= " + std::to_string(bit);
        break;
      }
      case 1: {  // a block slot: another slot's block, any block, or none
        const std::size_t slot = rng() % 5;
        std::uint32_t block = no_block;
        switch (rng() % 3) {
          case 0: block = read_at<std::uint32_t>(b, entry + 8 + 4 * (rng() % 4)); break;
          case 1: block = static_cast<std::uint32_t>(rng() % d.blocks); break;
          default: break;
        }
        test::put_at(b, entry + 8 + 4 * slot, block);
        what = where + "slot " + std::to_string(slot) + " = " + std::to_string(block);
        break;
      }
      case 2:
      case 3: {  // n or m
        const std::size_t field = entry + (rng() % 2 == 0 ? 32 : 40);
        const std::uint64_t value = forged_count(read_at<std::uint64_t>(b, field), rng);
        test::put_at(b, field, value);
        what = where + (field == entry + 32 ? "n = " : "m = ") + std::to_string(value);
        break;
      }
      case 4: {  // variant
        const auto variant = static_cast<std::uint32_t>(rng() % 4);
        test::put_at(b, entry + 48, variant);
        what = where + "variant = " + std::to_string(variant);
        break;
      }
      default: {  // a block's width, its byte length made to agree and its checksum recomputed
        const std::size_t descriptor = d.blocks_at + (rng() % d.blocks) * block_bytes;
        const auto bits = static_cast<std::uint32_t>(1 + rng() % 64);
        const std::uint64_t length = read_at<std::uint64_t>(b, descriptor + 8);
        const std::uint64_t offset = read_at<std::uint64_t>(b, descriptor + 16);
        const std::uint64_t byte_length = ((length + 63) / 64 * bits + 1) * 8;
        test::put_at(b, descriptor + 4, bits);
        test::put_at(b, descriptor + 24, byte_length);
        if (offset + byte_length <= b.size()) {
          test::put_at(b, descriptor + 32, codec::crc32c(b.data() + offset, byte_length));
        }
        what = "block at " + std::to_string(descriptor) + ": bits = " + std::to_string(bits);
        break;
      }
    }
  });
  return what;
}

// Stores of a directed graph, an undirected one (one shared CSR), and both beside an array.
std::vector<std::vector<std::uint8_t>> base_stores(const test::ScratchDir& dir) {
  graph::EdgeList directed_edges = graph::generate_uniform({.vertices = 40, .average_degree = 3, .seed = 7});
  graph::EdgeList undirected_edges = graph::generate_uniform({.vertices = 30, .average_degree = 2, .seed = 8});
  undirected_edges.directed = false;
  using graph::GraphLayout;
  using graph::Variant;
  const graph::CsrGraph directed_ve = graph::build_csr(directed_edges, {.layout = GraphLayout::for_variant(Variant::VE)});
  const graph::CsrGraph directed_u = graph::build_csr(directed_edges, {.layout = GraphLayout::for_variant(Variant::U)});
  const graph::CsrGraph undirected_v = graph::build_csr(undirected_edges, {.layout = GraphLayout::for_variant(Variant::V)});
  const graph::CsrGraph undirected_ve =
      graph::build_csr(undirected_edges, {.layout = GraphLayout::for_variant(Variant::VE)});
  ArrayOptions nine;
  nine.bits = 9;
  const SmartArray numbers = SmartArray::from_values(std::vector<std::uint64_t>(100, 300), nine);
  std::vector<std::vector<std::uint8_t>> stores;
  const std::string path = dir.file("base.sa");
  for (const std::vector<store::Object>& objects :
       {std::vector<store::Object>{{"d", directed_ve}}, std::vector<store::Object>{{"u", undirected_v}},
        std::vector<store::Object>{{"a", numbers}, {"d", directed_u}, {"u", undirected_ve}}}) {
    Store::write(path, objects);
    stores.push_back(test::read_bytes(path));
  }
  return stores;
}

// Expects every reader to take the clean store at path (whose bytes are bytes) as the same graphs
// and arrays, and every graph writer to write each graph back unchanged.
void expect_read_and_written_back(const std::string& path, const std::vector<std::uint8_t>& bytes, const test::ScratchDir& dir) {
  try {
    std::vector<std::uint8_t> stream(16 + bytes.size());  // the preamble, then the file's bytes
    std::memcpy(stream.data(), "SASTREAM", 8);
    test::put_at<std::uint64_t>(stream, 8, bytes.size());
    std::memcpy(stream.data() + 16, bytes.data(), bytes.size());
    const Store mapped = Store::open(path, Mode::map);
    const Store loaded = Store::open(path, Mode::load);
    const Store received = test::receive_bytes(stream);
    for (const std::string& name : mapped.names()) {
      SCOPED_TRACE(name);
      if (mapped.kind(name) == store::ObjectKind::array) {
        EXPECT_EQ(test::values_of(loaded.array(name)), test::values_of(mapped.array(name)));
        EXPECT_EQ(test::values_of(received.array(name)), test::values_of(mapped.array(name)));
        continue;
      }
      const graph::CsrGraph& original = mapped.graph(name);
      const test::DecodedGraph expected = test::decode(original);
      EXPECT_EQ(test::decode(loaded.graph(name)), expected);
      EXPECT_EQ(test::decode(received.graph(name)), expected);
      graph::SourceOptions options;
      options.object = name;
      EXPECT_EQ(test::decode(graph::GraphSource::open(path, options).stored_graph()), expected);
      for (const char* extension : {"sg", "el", "mtx", "sa"}) {
        SCOPED_TRACE(extension);
        const std::string copy = dir.file(std::string("copy.") + extension);
        graph::save_graph(original, copy, graph::format_of_path(copy));
        const graph::CsrGraph back = graph::GraphSource::open(copy).build();
        EXPECT_EQ(back.vertices(), original.vertices());
        EXPECT_EQ(test::decode(back), expected);
      }
    }
  } catch (const Error& e) {
    ADD_FAILURE() << "a file deep verification found clean was refused: " << e.what();
  }
}

TEST(ForgedStores, WhatDeepVerifyFindsCleanEveryReaderTakesAndEveryWriterKeeps) {
  const test::ScratchDir dir;
  const std::vector<std::vector<std::uint8_t>> bases = base_stores(dir);
  const std::string path = dir.file("forged.sa");
  std::mt19937_64 rng(40);
  std::size_t clean = 0, reported = 0, refused = 0;
  for (std::size_t c = 0; c < 300; ++c) {
    std::vector<std::uint8_t> bytes = bases[c % bases.size()];
    std::string changes;
    for (std::uint64_t k = 0, count = 1 + rng() % 2; k < count; ++k) changes += forge(bytes, rng) + "; ";
    SCOPED_TRACE("case " + std::to_string(c) + ": " + changes);
    test::write_bytes(path, bytes);
    store::VerifyReport report;
    try {
      report = store::verify(path, true);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
      ++refused;
      continue;
    }
    if (!report.ok()) {
      ++reported;
      continue;
    }
    ++clean;
    expect_read_and_written_back(path, bytes, dir);
  }
  // Each outcome is common enough that the property is tested, not passed by having nothing to check.
  EXPECT_GE(clean, 10u);
  EXPECT_GE(reported, 10u);
  EXPECT_GE(refused, 10u);
  RecordProperty("clean", static_cast<int>(clean));
  RecordProperty("reported", static_cast<int>(reported));
  RecordProperty("refused", static_cast<int>(refused));
}

}  // namespace
}  // namespace smartarrays
