// Tests of the graph file formats: every reader on hand-written files, the readers against each
// other on the same graph, writer round trips, format detection, progress reports, and every kind
// of malformed input, whose error must name the line or byte offset.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/graph/pull_part.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::graph {
namespace {

using test::decode;
using test::expect_error;
using test::graph_data;
using test::ScratchDir;
using test::SgBytes;

// The tiny graph of tests/data/graph/tiny.el as a directed .sg file (out-lists in GAP's sorted order).
SgBytes tiny_sg() {
  SgBytes b;
  b.flag(1).i64(7).i64(6);
  b.i64s({0, 3, 4, 5, 6, 7, 7}).i32s({1, 1, 2, 2, 0, 2, 4});
  b.i64s({0, 1, 3, 6, 6, 7, 7}).i32s({2, 0, 0, 0, 1, 3, 4});
  return b;
}

TEST(EdgeListReader, ReadsTheHandWrittenFile) {
  const EdgeList list = read_edge_list(graph_data("tiny.el"));
  EXPECT_EQ(list.vertices, 6u);  // the header names the isolated vertex 5
  EXPECT_TRUE(list.directed);
  EXPECT_EQ(list.edges, (std::vector<Edge>{{0, 1}, {0, 2}, {1, 2}, {2, 0}, {3, 2}, {4, 4}, {0, 1}}));
  EXPECT_EQ(decode(build_csr(list)), test::tiny_graph());
}

TEST(EdgeListReader, VertexCountFollowsTheLargestIdWithoutAHeader) {
  ScratchDir dir;
  const EdgeList list = read_edge_list(dir.write("g.txt", "% konect-style comment\r\n3 9\r\n1 0"));
  EXPECT_EQ(list.vertices, 10u);
  EXPECT_EQ(list.edges, (std::vector<Edge>{{3, 9}, {1, 0}}));
  EXPECT_EQ(read_edge_list(dir.write("e.txt", "# only comments\n\n")).vertices, 0u);
}

TEST(MatrixMarketReader, ReadsTheHandWrittenFiles) {
  const EdgeList list = read_matrix_market(graph_data("tiny.mtx"));
  EXPECT_EQ(list.vertices, 6u);
  EXPECT_TRUE(list.directed);
  EXPECT_EQ(decode(build_csr(list)), test::tiny_graph());

  const EdgeList sym = read_matrix_market(graph_data("triangle_symmetric.mtx"));
  EXPECT_EQ(sym.vertices, 4u);
  EXPECT_FALSE(sym.directed);
  const CsrGraph g = build_csr(sym);
  EXPECT_EQ(g.edges(), 9u);
  EXPECT_EQ(g.out_neighbours(2), (std::vector<std::uint64_t>{0, 1, 3}));
  EXPECT_EQ(g.out_neighbours(3), (std::vector<std::uint64_t>{2, 3}));
  g.validate();
}

TEST(GapSgReader, ReadsHandWrittenBytes) {
  ScratchDir dir;
  const std::string path = dir.write("tiny.sg", tiny_sg().bytes);
  const SgContents c = read_gap_sg(path);
  EXPECT_TRUE(c.directed);
  EXPECT_EQ(c.vertices, 6u);
  EXPECT_EQ(c.out.offsets, (std::vector<std::uint64_t>{0, 3, 4, 5, 6, 7, 7}));
  EXPECT_EQ(c.in.targets, (std::vector<std::uint64_t>{2, 0, 0, 0, 1, 3, 4}));
  EXPECT_EQ(decode(load_graph(path, GraphFormat::gap_sg)), test::tiny_graph());

  // Undirected: one part, both directions stored.
  SgBytes u;
  u.flag(0).i64(4).i64(3).i64s({0, 1, 3, 4}).i32s({1, 0, 2, 1});
  const CsrGraph g = load_graph(dir.write("path.sg", u.bytes), GraphFormat::gap_sg);
  EXPECT_FALSE(g.directed());
  EXPECT_EQ(g.edges(), 4u);
  EXPECT_EQ(g.in_neighbours(1), (std::vector<std::uint64_t>{0, 2}));
  g.validate();
}

TEST(Readers, AgreeWithEachOtherOnTheSameGraph) {
  ScratchDir dir;
  const test::DecodedGraph el = decode(load_graph(graph_data("tiny.el"), GraphFormat::edge_list));
  const test::DecodedGraph mtx = decode(load_graph(graph_data("tiny.mtx"), GraphFormat::matrix_market));
  const test::DecodedGraph sg = decode(load_graph(dir.write("tiny.sg", tiny_sg().bytes), GraphFormat::gap_sg));
  EXPECT_EQ(el, mtx);
  EXPECT_EQ(el, sg);
  BuildOptions squish;
  squish.dedup = true;
  squish.drop_self_loops = true;
  EXPECT_EQ(decode(load_graph(graph_data("tiny.el"), GraphFormat::edge_list, squish)),
            decode(load_graph(dir.file("tiny.sg"), GraphFormat::gap_sg, squish)));
}

TEST(Writers, RoundTripEveryFormat) {
  ScratchDir dir;
  RmatOptions r;
  r.scale = 9;
  r.edge_factor = 6;
  const EdgeList directed = generate_rmat(r);
  EdgeList undirected = generate_uniform(UniformOptions{.vertices = 300, .average_degree = 3, .seed = 2});
  undirected.directed = false;
  for (const EdgeList* list : {&directed, static_cast<const EdgeList*>(&undirected)}) {
    const CsrGraph g = build_csr(*list);
    for (GraphFormat f : {GraphFormat::edge_list, GraphFormat::matrix_market, GraphFormat::gap_sg}) {
      SCOPED_TRACE(::testing::Message() << to_string(f) << (list->directed ? " directed" : " undirected"));
      const std::string path = dir.file(std::string("g.") + to_string(f));
      save_graph(g, path, format_of_path(path));
      EXPECT_EQ(decode(load_graph(path, format_of_path(path))), decode(g));
    }
  }
}

TEST(Formats, NamesAndExtensions) {
  EXPECT_EQ(format_of_path("a/b.el"), GraphFormat::edge_list);
  EXPECT_EQ(format_of_path("web-Google.txt"), GraphFormat::edge_list);
  EXPECT_EQ(format_of_path("m.mtx"), GraphFormat::matrix_market);
  EXPECT_EQ(format_of_path("/x.y/twitter.sg"), GraphFormat::gap_sg);
  EXPECT_EQ(format_of_path("g.edges"), GraphFormat::edge_list);
  EXPECT_EQ(format_of_path("g.tsv"), GraphFormat::edge_list);
  EXPECT_EQ(format_of_path("g.sa"), GraphFormat::compact);
  EXPECT_THROW(format_of_path("dir.d/graph"), Error);
  expect_error([] { format_of_path("g.gz"); }, {"'g.gz' from its extension (.el, .txt, .edges, .tsv, .mtx, .sg or .sa)"});
  expect_error([] { format_of_path("g.EL"); }, {"'g.EL'"});  // extensions are matched as written
  expect_error([] { parse_graph_format("csv"); }, {"unknown graph format 'csv' (expected one of: el, mtx, sg, compact)"});
  for (const char* alias : {"edgelist", "SNAP", "txt"}) EXPECT_EQ(parse_graph_format(alias), GraphFormat::edge_list);
  EXPECT_EQ(parse_graph_format("mm"), GraphFormat::matrix_market);
  for (const char* alias : {"sa", "store"}) EXPECT_EQ(parse_graph_format(alias), GraphFormat::compact);
  for (GraphFormat f : {GraphFormat::edge_list, GraphFormat::matrix_market, GraphFormat::gap_sg, GraphFormat::compact}) {
    EXPECT_EQ(parse_graph_format(to_string(f)), f);
  }
}

TEST(Readers, ReportProgress) {
  ScratchDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  const std::string path = dir.write("p.el", text);
  std::vector<std::uint64_t> reports;
  ReadOptions options;
  options.progress_step = 4096;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, text.size());
    reports.push_back(done);
  };
  read_edge_list(path, options);
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back(), text.size());
  EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
}

TEST(EdgeListReader, MalformedLinesNameTheLine) {
  ScratchDir dir;
  const std::string head = "# c\n0 1\n";  // the bad line is line 3
  expect_error([&] { read_edge_list(dir.write("a.el", head + "1 x\n")); }, {"a.el:3:", "'x'"});
  expect_error([&] { read_edge_list(dir.write("b.el", head + "-1 2\n")); }, {"b.el:3:", "'-1'"});
  expect_error([&] { read_edge_list(dir.write("c.el", head + "5\n")); }, {"c.el:3:", "missing destination"});
  expect_error([&] { read_edge_list(dir.write("d.el", head + "1 2 0.5\n")); }, {"d.el:3:", "third field"});
  expect_error([&] { read_edge_list(dir.write("e.el", head + "99999999999999999999 1\n")); }, {"e.el:3:"});
  expect_error([&] { read_edge_list(dir.write("f.el", head + "1 2x\n")); }, {"f.el:3:", "'2x'"});
  expect_error([&] { read_edge_list(dir.file("missing.el")); }, {"cannot open", "missing.el"});
}

TEST(MatrixMarketReader, MalformedFilesNameTheLine) {
  ScratchDir dir;
  const std::string header = "%%MatrixMarket matrix coordinate pattern general\n";
  auto mm = [&](const std::string& name, const std::string& text) { return dir.write(name, text); };
  expect_error([&] { read_matrix_market(mm("a.mtx", "3 3 1\n1 1\n")); }, {"a.mtx:1:", "%%MatrixMarket"});
  expect_error([&] { read_matrix_market(mm("b.mtx", "%%MatrixMarket matrix array real general\n2 2\n")); },
               {"b.mtx:1:", "coordinate"});
  expect_error([&] { read_matrix_market(mm("c.mtx", "%%MatrixMarket matrix coordinate weird general\n")); },
               {"c.mtx:1:", "'weird'"});
  expect_error([&] { read_matrix_market(mm("d.mtx", header + "3 4 1\n1 1\n")); }, {"d.mtx:2:", "square"});
  expect_error([&] { read_matrix_market(mm("e.mtx", header + "3 3 2\n1 1\n0 2\n")); }, {"e.mtx:4:", "index 0"});
  expect_error([&] { read_matrix_market(mm("f.mtx", header + "3 3 1\n1 4\n")); }, {"f.mtx:3:", "index 4"});
  expect_error([&] { read_matrix_market(mm("g.mtx", header + "3 3 3\n1 2\n2 3\n")); }, {"g.mtx:", "2 of the 3"});
  expect_error([&] { read_matrix_market(mm("h.mtx", header + "3 3 1\n1 2\n2 3\n")); }, {"h.mtx:4:", "more entries"});
  expect_error([&] { read_matrix_market(mm("i.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n")); },
               {"i.mtx:3:", "'abc'"});
  expect_error([&] { read_matrix_market(mm("j.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2\n")); },
               {"j.mtx:3:", "missing value"});
  expect_error([&] { read_matrix_market(mm("k.mtx", header + "% only a comment\n")); }, {"k.mtx:", "size line"});
  expect_error([&] { read_matrix_market(mm("l.mtx", header + "3 3 x\n")); }, {"l.mtx:2:", "'x'"});
  expect_error([&] { read_matrix_market(mm("m.mtx", "")); }, {"m.mtx:", "empty"});
}

TEST(GapSgReader, MalformedFilesNameTheOffset) {
  ScratchDir dir;
  auto sg = [&](const std::string& name, const SgBytes& b) { return dir.write(name, b.bytes); };
  // Header: flag at 0, m at 1, n at 9; out-offsets at 17; out-ids at 17 + (n+1)*8.
  expect_error([&] { read_gap_sg(sg("a.sg", SgBytes().flag(1).i64(0))); }, {"a.sg: byte offset 9", "header"});
  expect_error([&] { read_gap_sg(sg("b.sg", SgBytes().flag(2).i64(0).i64(0).i64(0))); }, {"byte offset 0", "flag is 2"});
  expect_error([&] { read_gap_sg(sg("c.sg", SgBytes().flag(0).i64(-5).i64(0).i64(0))); }, {"byte offset 1", "-5"});
  expect_error([&] { read_gap_sg(sg("d.sg", SgBytes().flag(0).i64(0).i64(-1))); }, {"byte offset 9", "-1"});
  SgBytes truncated = tiny_sg();
  truncated.bytes.resize(truncated.bytes.size() - 3);
  expect_error([&] { read_gap_sg(sg("e.sg", truncated)); }, {"truncated", "n = 6 and m = 7"});
  SgBytes trailing = tiny_sg();
  trailing.i32(0);
  const std::size_t end = tiny_sg().bytes.size();
  expect_error([&] { read_gap_sg(sg("f.sg", trailing)); }, {("byte offset " + std::to_string(end)).c_str(), "4 bytes follow"});
  // A decreasing out-offset: vertex 2's offset (byte 17 + 2*8 = 33) below vertex 1's.
  SgBytes down;
  down.flag(0).i64(2).i64(3).i64s({0, 2, 1, 2}).i32s({1, 2});
  expect_error([&] { read_gap_sg(sg("g.sg", down)); }, {"byte offset 33", "vertex 2"});
  SgBytes first;
  first.flag(0).i64(2).i64(3).i64s({1, 2, 2, 2}).i32s({1, 2});
  expect_error([&] { read_gap_sg(sg("h.sg", first)); }, {"byte offset 17", "expected 0"});
  SgBytes last;
  last.flag(0).i64(2).i64(2).i64s({0, 1, 1}).i32s({1, 0});
  expect_error([&] { read_gap_sg(sg("i.sg", last)); }, {"byte offset 33", "header says 2"});
  // An id out of range: second id at byte 17 + 4*8 + 4 = 53.
  SgBytes id;
  id.flag(0).i64(2).i64(3).i64s({0, 1, 2, 2}).i32s({1, 3});
  expect_error([&] { read_gap_sg(sg("j.sg", id)); }, {"byte offset 53", "id 3"});
  SgBytes negative;
  negative.flag(0).i64(2).i64(3).i64s({0, 1, 2, 2}).i32s({-7, 0});
  expect_error([&] { read_gap_sg(sg("k.sg", negative)); }, {"byte offset 49", "-7"});
  // In-edges that are not the transpose of the out-edges (0 -> 1 stored as 1 <- 2): the message
  // names the out-edge 0 -> 1 (the first id of vertex 1's lists that differs), at byte 17 + 4*8.
  SgBytes wrong;
  wrong.flag(1).i64(1).i64(3).i64s({0, 1, 1, 1}).i32s({1}).i64s({0, 0, 1, 1}).i32s({2});
  expect_error([&] { read_gap_sg(sg("l.sg", wrong)); },
               {"byte offset 49", "transpose", "first difference at vertex 1", "in-edges hold 0 -> 1 0 times",
                "out-edges 1 time"});
  expect_error([&] { read_gap_sg(dir.file("none.sg")); }, {"cannot open"});
}

// One header parser: the whole-file reader, the loader every surface takes, the header reader and
// the part reader of distributed runs say the same of a bad header, in the same words.
TEST(GapSgReader, EveryReaderRefusesABadHeaderInTheSameWords) {
  ScratchDir dir;
  SgBytes truncated = tiny_sg();
  truncated.bytes.resize(truncated.bytes.size() - 3);
  SgBytes trailing = tiny_sg();
  trailing.i32(0);
  const struct {
    const char* name;
    std::string bytes;
    std::string message;
  } cases[] = {
      {"short.sg", "ab", "short.sg: byte offset 2: the file has 2 bytes, fewer than its 17-byte header"},
      {"flag.sg", SgBytes().flag(2).i64(0).i64(0).i64(0).bytes, "flag.sg: byte offset 0: directed flag is 2 (expected 0 or 1)"},
      {"m.sg", SgBytes().flag(0).i64(-5).i64(0).i64(0).bytes, "m.sg: byte offset 1: edge count -5 is negative"},
      {"n.sg", SgBytes().flag(0).i64(0).i64(-1).bytes, "n.sg: byte offset 9: vertex count -1 is negative"},
      {"wide.sg", SgBytes().flag(0).i64(0).i64(std::int64_t{1} << 31 | 1).bytes,
       "wide.sg: byte offset 9: vertex count 2147483649 does not fit GAP's int32 vertex ids"},
      {"cut.sg", truncated.bytes,
       "cut.sg: byte offset 182: the file is truncated: n = 6 and m = 7 (directed: out- and in-edges) need 185 bytes, it has 182"},
      {"tail.sg", trailing.bytes, "tail.sg: byte offset 185: 4 bytes follow the end of the graph (n = 6 and m = 7 (directed: out- and in-edges))"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir.write(c.name, c.bytes);
    const std::string expected = dir.file(c.message);
    auto message_of = [&](auto&& read) {
      try {
        read();
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        return std::string(e.what());
      }
      return std::string("no error");
    };
    EXPECT_EQ(message_of([&] { read_gap_sg(path); }), expected);
    EXPECT_EQ(message_of([&] { load_graph(path, GraphFormat::gap_sg); }), expected);
    EXPECT_EQ(message_of([&] { read_sg_header(path); }), expected);
    EXPECT_EQ(message_of([&] { read_sg_pull_part(path, 0, 0); }), expected);
  }
}

}  // namespace
}  // namespace smartarrays::graph
