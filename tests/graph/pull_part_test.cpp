// Tests the vertex-range parts of a reverse CSR: cut from a graph in memory and read from a .sg
// file (directed and undirected), every part equals the graph's own range, parts of every split
// cover the graph, and bad ranges and malformed files fail naming the byte offset.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/graph/pull_part.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::graph {
namespace {

using test::ScratchDir;
using test::values_of;

CsrGraph small_rmat(bool directed) {
  RmatOptions r;
  r.scale = 8;
  r.edge_factor = 6;
  r.seed = 3;
  EdgeList list = generate_rmat(r);
  list.directed = directed;
  BuildOptions clean;
  clean.dedup = true;
  clean.drop_self_loops = true;
  return build_csr(list, clean);
}

// The part [first, first + count) as the graph's own arrays hold it.
void expect_part_of(const CsrGraph& g, const PullPart& part, std::uint64_t first, std::uint64_t count) {
  const std::vector<std::uint64_t> rbegin = values_of(g.rbegin());
  const std::vector<std::uint64_t> redge = values_of(g.redge());
  const std::vector<std::uint64_t> begin = values_of(g.begin());
  ASSERT_EQ(part.vertices, g.vertices());
  ASSERT_EQ(part.first, first);
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t v = first; v <= first + count; ++v) offsets.push_back(rbegin[v] - rbegin[first]);
  EXPECT_EQ(values_of(part.rbegin), offsets);
  EXPECT_EQ(values_of(part.redge),
            std::vector<std::uint64_t>(redge.begin() + static_cast<std::ptrdiff_t>(rbegin[first]),
                                       redge.begin() + static_cast<std::ptrdiff_t>(rbegin[first + count])));
  std::vector<std::uint64_t> out_offsets;
  for (std::uint64_t v = first; v <= first + count; ++v) out_offsets.push_back(begin[v] - begin[first]);
  EXPECT_EQ(values_of(part.begin), out_offsets);
  EXPECT_EQ(part.count(), count);
  // The part's out-degrees, derived from its offsets, are the graph's.
  for (std::uint64_t k = 0; k < count; ++k) ASSERT_EQ(out_offsets[k + 1] - out_offsets[k], g.out_degree(first + k)) << k;
}

TEST(PullPart, PartsOfAGraphAndOfItsSgFileAreItsRanges) {
  ScratchDir dir;
  for (bool directed : {true, false}) {
    const CsrGraph g = small_rmat(directed);
    const std::string path = dir.file(directed ? "d.sg" : "u.sg");
    write_gap_sg(g, path);
    const SgHeader header = read_sg_header(path);
    EXPECT_EQ(header.directed, directed);
    EXPECT_EQ(header.vertices, g.vertices());
    EXPECT_EQ(header.edges, g.edges());
    const std::uint64_t n = g.vertices();
    for (const auto& [first, count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
             {0, n}, {0, n / 3}, {n / 3, n - n / 3}, {n / 2, 1}, {n, 0}, {7, 0}}) {
      expect_part_of(g, pull_part(g, first, count), first, count);
      expect_part_of(g, read_sg_pull_part(path, first, count), first, count);
    }
    EXPECT_EQ(pull_part(g, 0, n).redge.bits(), g.redge().bits());
  }
}

TEST(PullPart, RangesOutsideTheGraphAreRefused) {
  const CsrGraph g = small_rmat(true);
  const std::uint64_t n = g.vertices();
  test::expect_error([&] { pull_part(g, n + 1, 0); }, {"outside the graph's"});
  test::expect_error([&] { pull_part(g, 1, n); }, {"outside the graph's"});
  test::expect_error([&] { pull_part(g, 2, UINT64_MAX); }, {"outside"});
}

TEST(PullPart, MalformedSgFilesNameTheByteOffset) {
  ScratchDir dir;
  using test::SgBytes;
  // Undirected, n = 2, m = 2: 0 - 1 both ways.
  const std::string good = dir.write("good.sg", SgBytes().flag(0).i64(2).i64(2).i64s({0, 1, 2}).i32s({1, 0}).bytes);
  const PullPart part = read_sg_pull_part(good, 0, 2);
  EXPECT_EQ(values_of(part.redge), (std::vector<std::uint64_t>{1, 0}));
  const std::string bad_id = dir.write("id.sg", SgBytes().flag(0).i64(2).i64(2).i64s({0, 1, 2}).i32s({1, 7}).bytes);
  test::expect_error([&] { read_sg_pull_part(bad_id, 0, 2); }, {"id.sg: byte offset 45: ", "vertex id 7 is not below n = 2"});
  const std::string bad_offset = dir.write("off.sg", SgBytes().flag(0).i64(2).i64(2).i64s({0, 3, 2}).i32s({1, 0}).bytes);
  test::expect_error([&] { read_sg_pull_part(bad_offset, 0, 2); }, {"off.sg: byte offset 25: ", "offset 3"});
  // Offsets that do not start at 0 or end at m: the parts holding vertex 0 or vertex n refuse them
  // (offsets from 1 left edge 0 outside every part: a rank computed without it), parts between do not see them.
  // Directed, n = 4, m = 3: 0 -> 1, 1 -> 2, 2 -> 3, the in-offsets from 1.
  const std::string from_one =
      dir.write("from1.sg", SgBytes().flag(1).i64(3).i64(4).i64s({0, 1, 2, 3, 3}).i32s({1, 2, 3}).i64s({1, 1, 2, 3, 3}).i32s({0, 1, 2}).bytes);
  test::expect_error([&] { read_sg_pull_part(from_one, 0, 4); }, {"from1.sg: byte offset 69: ", "in offset of vertex 0 is 1 (expected 0)"});
  test::expect_error([&] { read_sg_pull_part(from_one, 0, 1); }, {"in offset of vertex 0 is 1 (expected 0)"});
  EXPECT_EQ(read_sg_pull_part(from_one, 1, 2).first, 1u);
  const std::string out_from_one =
      dir.write("out1.sg", SgBytes().flag(1).i64(3).i64(4).i64s({1, 1, 2, 3, 3}).i32s({1, 2, 3}).i64s({0, 0, 1, 2, 3}).i32s({0, 1, 2}).bytes);
  test::expect_error([&] { read_sg_pull_part(out_from_one, 0, 2); }, {"out1.sg: byte offset 17: ", "out offset of vertex 0 is 1 (expected 0)"});
  const std::string short_end =
      dir.write("end.sg", SgBytes().flag(1).i64(3).i64(4).i64s({0, 1, 2, 3, 3}).i32s({1, 2, 3}).i64s({0, 0, 1, 2, 2}).i32s({0, 1, 2}).bytes);
  test::expect_error([&] { read_sg_pull_part(short_end, 3, 1); }, {"end.sg: byte offset 101: ", "the last in offset is 2 but the header says 3 edges"});
  EXPECT_EQ(read_sg_pull_part(short_end, 0, 3).first, 0u);
  const std::string short_file = dir.write("short.sg", SgBytes().flag(0).i64(2).i64(2).i64s({0, 1, 2}).i32s({1}).bytes);
  // One header parser for every .sg reader: the part reader's messages are the whole-file reader's.
  test::expect_error([&] { read_sg_header(short_file); },
                     {"short.sg: byte offset 45: ", "the file is truncated: n = 2 and m = 2 (undirected) need 49 bytes, it has 45"});
  const std::string flag = dir.write("flag.sg", SgBytes().flag(5).i64(0).i64(0).i64s({0}).bytes);
  test::expect_error([&] { read_sg_header(flag); }, {"byte offset 0", "directed flag is 5"});
  test::expect_error([&] { read_sg_header(dir.write("tiny.sg", "ab")); }, {"17-byte header"});
  EXPECT_EQ(test::expect_error([&] { read_sg_header(dir.file("missing.sg")); }, {"cannot open", "missing.sg"}),
            ErrorCode::os_error);
}

}  // namespace
}  // namespace smartarrays::graph
