// Tests the parallel text readers: on edge lists of plain lines, comments and blank lines, and
// Matrix Market files of every field and symmetry, they give exactly the serial reader's edges (in
// narrow blocks, in file order) whatever the thread count and however the ranges fall; on anything
// else they decline, so the serial reader names the problem; GraphSource uses them for large files;
// the blocks widen for large ids and build the edge list's graph.
#include <gtest/gtest.h>

#include <string>

#include "graph/parallel_text.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/graph/source.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::graph {
namespace {

using test::ScratchDir;

// The blocks' edges in file order, as an edge list.
EdgeList joined(const detail::EdgeBlocks& blocks) {
  EdgeList list{blocks.vertices, {}, blocks.directed};
  for (const detail::EdgeBlock& block : blocks.blocks) {
    block.visit([&](auto edges) {
      for (const auto& e : edges) list.edges.push_back({e.src, e.dst});
    });
  }
  return list;
}

void expect_same(const detail::EdgeBlocks& blocks, const EdgeList& b) {
  const EdgeList a = joined(blocks);
  EXPECT_EQ(a.vertices, b.vertices);
  EXPECT_EQ(a.directed, b.directed);
  EXPECT_EQ(a.edges, b.edges);
}

std::string plain_lines(int count, const std::string& newline) {
  std::string text = "# Directed graph\n% a comment\n\n";
  for (int i = 0; i < count; ++i) {
    text += std::to_string(i * 7 % 1000) + (i % 3 ? "\t" : "  ") + std::to_string(i * 13 % 997) + newline;
    if (i % 500 == 0) text += "   \n# a comment in the middle\n";
  }
  return text;
}

TEST(ParallelEdgeList, GivesTheSerialReadersListForEveryThreadCount) {
  const ScratchDir dir;
  const std::vector<std::string> files{
      dir.write("plain.el", plain_lines(20000, "\n")),
      dir.write("crlf.el", plain_lines(20000, "\r\n")),
      dir.write("last.el", plain_lines(3000, "\n") + "5 6"),  // no newline at the end
      dir.write("undirected.el", "# Nodes: 5000 Edges: 4000\n" + plain_lines(4000, "\n") + "# Undirected graph: x\n"),
      dir.write("empty.el", "# nothing but comments\n\n"),
      // Comment lines longer than a range: several nominal range starts fall in one line.
      dir.write("long-lines.el", "# " + std::string(900000, 'x') + "\n" + plain_lines(3000, "\n") + "%" +
                                     std::string(1000000, ' ') + "\n" + plain_lines(100, "\n") + "#" + std::string(800000, '#'))};
  for (const std::string& path : files) {
    const EdgeList serial = read_edge_list(path);
    for (std::size_t threads : {1u, 2u, 3u}) {
      SCOPED_TRACE(path + ", " + std::to_string(threads) + " threads");
      runtime::ThreadPool pool(runtime::PoolOptions{.threads = threads});
      const std::optional<detail::EdgeBlocks> parallel = detail::read_text_parallel(path, GraphFormat::edge_list, {}, pool, 0);
      ASSERT_TRUE(parallel.has_value());
      expect_same(*parallel, serial);
    }
  }
}

TEST(ParallelEdgeList, DeclinesAnythingTheSerialReaderMustName) {
  const ScratchDir dir;
  runtime::ThreadPool pool(runtime::PoolOptions{.threads = 2});
  const std::string good = plain_lines(2000, "\n");
  for (const std::string& bad : {good + "1 x\n", good + "-1 2\n", good + "5\n", good + "1 2 0.5\n",
                                 good + "99999999999999999999 1\n", good + "18446744073709551615 1\n",
                                 good + std::string(max_line_bytes + 1, ' ') + "\n",
                                 "# Nodes: 99999999999\n" + good, "# Nodes: 10 Edges: 1999\n" + good,
                                 "# Nodes: 10 Edges: 2001\n" + good}) {
    const std::string path = dir.write("bad.el", bad);
    EXPECT_FALSE(detail::read_text_parallel(path, GraphFormat::edge_list, {}, pool, 0).has_value()) << bad.substr(bad.size() - 40);
    EXPECT_THROW(GraphSource::open(path), Error);
  }
  // A header declaring the edges the file holds is read.
  EXPECT_TRUE(detail::read_text_parallel(dir.write("declared.el", "# Nodes: 10 Edges: 2000\n" + good), GraphFormat::edge_list, {},
                                         pool, 0)
                  .has_value());
  // Small files are left to the serial reader.
  EXPECT_FALSE(detail::read_text_parallel(dir.write("small.el", good), GraphFormat::edge_list, {}, pool).has_value());
}

std::string matrix_market(const std::string& field, const std::string& symmetry, int count) {
  std::string body;
  for (int i = 0; i < count; ++i) {
    const int row = i * 7 % 1000 + 1;
    const int col = symmetry == "general" ? i * 13 % 1000 + 1 : (i * 13 % row) + 1;  // lower triangle
    body += std::to_string(row) + " " + std::to_string(col);
    if (field == "real") body += " 0.5";
    if (field == "integer") body += "\t-3";
    if (field == "complex") body += " 1e-3 2";
    body += i % 2 ? "\n" : "\r\n";
    if (i % 700 == 0) body += "% a comment\n\n";
  }
  return "%%MatrixMarket matrix coordinate " + field + " " + symmetry + "\n% c\n\n1000 1000 " + std::to_string(count) +
         "\n" + body;
}

TEST(ParallelMatrixMarket, GivesTheSerialReadersListAndDeclinesWhatItMustName) {
  const ScratchDir dir;
  runtime::ThreadPool pool(runtime::PoolOptions{.threads = 3});
  for (const char* field : {"pattern", "real", "integer", "complex"}) {
    for (const char* symmetry : {"general", "symmetric", "skew-symmetric"}) {
      SCOPED_TRACE(std::string(field) + " " + symmetry);
      const std::string path = dir.write("m.mtx", matrix_market(field, symmetry, 6000));
      const std::optional<detail::EdgeBlocks> parallel = detail::read_text_parallel(path, GraphFormat::matrix_market, {}, pool, 0);
      ASSERT_TRUE(parallel.has_value());
      expect_same(*parallel, read_matrix_market(path));
    }
  }
  const std::string good = matrix_market("real", "general", 3000);
  const std::vector<std::string> bad_files{good + "1 2 x\n",
                                           good + "0 1 0.5\n",
                                           good + "1001 1 0.5\n",
                                           good + "1 2\n",
                                           good + "1 2 0.5 7\n",
                                           good + "1 2 0.5\n",  // more entries than declared
                                           good.substr(0, good.size() - 20),
                                           "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
                                           "%%MatrixMarket matrix coordinate real general\n2 3 0\n",
                                           "%%MatrixMarket matrix coordinate real general\n"};
  for (const std::string& bad : bad_files) {
    const std::string path = dir.write("bad.mtx", bad);
    EXPECT_FALSE(detail::read_text_parallel(path, GraphFormat::matrix_market, {}, pool, 0).has_value())
        << bad.substr(0, 60);
    EXPECT_THROW(GraphSource::open(path), Error);
  }
}

TEST(ParallelEdgeList, LargeFilesLoadThroughGraphSourceWithProgress) {
  const ScratchDir dir;
  std::string text;
  while (text.size() < detail::parallel_text_min_bytes) text += plain_lines(20000, "\n");
  const std::string path = dir.write("large.el", text);
  SourceOptions options;
  std::uint64_t reported = 0;
  options.read.progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, text.size());
    reported = done;
  };
  const CsrGraph g = GraphSource::open(path, options).build();
  EXPECT_EQ(reported, text.size());
  const CsrGraph expected = build_csr(read_edge_list(path));
  EXPECT_EQ(test::decode(g), test::decode(expected));
}

TEST(EdgeBlocks, WidenAtTheFirstIdBeyond32BitsAndBuildTheEdgeListsGraph) {
  detail::EdgeBlock block;
  block.reserve(3);
  block.add(1, 2);
  block.visit([](auto edges) { EXPECT_EQ(sizeof(edges[0]), sizeof(detail::NarrowEdge)); });
  block.add(std::uint64_t{1} << 32, 3);
  block.add(4, 0);
  block.visit([](auto edges) {
    ASSERT_EQ(sizeof(edges[0]), sizeof(Edge));
    ASSERT_EQ(edges.size(), 3u);
    EXPECT_EQ(edges[0].src, 1u);
    EXPECT_EQ(edges[0].dst, 2u);
    EXPECT_EQ(edges[1].src, std::uint64_t{1} << 32);
    EXPECT_EQ(edges[2].dst, 0u);
  });
  // Blocks give build_csr's graph of the same list in the same order, for every option, directed or
  // not, however the edges are cut into blocks, whether the build consumes the blocks or not.
  const EdgeList list{6, {{0, 1}, {1, 1}, {5, 0}, {0, 1}, {2, 3}, {3, 2}, {4, 4}, {1, 5}}, true};
  for (bool directed : {true, false}) {
    for (bool drop : {false, true}) {
      for (bool consume : {false, true}) {
        SCOPED_TRACE(std::to_string(directed) + std::to_string(drop) + std::to_string(consume));
        detail::EdgeBlocks blocks{6, std::vector<detail::EdgeBlock>(3), directed};
        for (std::size_t i = 0; i < list.edges.size(); ++i) blocks.blocks[i % 3].add(list.edges[i].src, list.edges[i].dst);
        detail::EdgeBlocks ordered{6, std::vector<detail::EdgeBlock>(2), directed};
        for (std::size_t i = 0; i < list.edges.size(); ++i) ordered.blocks[i < 3 ? 0 : 1].add(list.edges[i].src, list.edges[i].dst);
        BuildOptions options;
        options.dedup = drop;
        options.drop_self_loops = drop;
        EdgeList same = list;
        same.directed = directed;
        EXPECT_EQ(test::decode(detail::build_csr(ordered, options, runtime::default_pool(), consume)),
                  test::decode(build_csr(same, options)));
        EXPECT_EQ(test::decode(detail::build_csr(blocks, options, runtime::default_pool(), consume)),
                  test::decode(build_csr(same, options)));
        EXPECT_EQ(blocks.edges(), consume ? 0u : list.edges.size());
      }
    }
  }
}

TEST(EdgeBlocks, AnIdNotBelowTheVertexCountIsNamedByItsPlaceInFileOrder) {
  detail::EdgeBlocks blocks{3, std::vector<detail::EdgeBlock>(2), true};
  blocks.blocks[0].add(0, 1);
  blocks.blocks[1].add(1, 2);
  blocks.blocks[1].add(2, 5);
  try {
    detail::build_csr(blocks, {}, runtime::default_pool(), true);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "edge 2 (2 -> 5) has a vertex id not below the vertex count 3");
  }
}

}  // namespace
}  // namespace smartarrays::graph
