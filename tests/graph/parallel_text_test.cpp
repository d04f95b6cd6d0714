// Tests the parallel edge-list reader: on files of plain lines, comments and blank lines it gives
// exactly the serial reader's edge list whatever the thread count and however the ranges fall; on
// anything else it declines, so the serial reader names the problem; GraphSource uses it for large
// files.
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

void expect_same(const EdgeList& a, const EdgeList& b) {
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
      dir.write("undirected.el", "# Nodes: 5000 Edges: 2\n" + plain_lines(4000, "\n") + "# Undirected graph: x\n"),
      dir.write("empty.el", "# nothing but comments\n\n")};
  for (const std::string& path : files) {
    const EdgeList serial = read_edge_list(path);
    for (std::size_t threads : {1u, 2u, 3u}) {
      SCOPED_TRACE(path + ", " + std::to_string(threads) + " threads");
      runtime::ThreadPool pool(runtime::PoolOptions{.threads = threads});
      const std::optional<EdgeList> parallel = detail::read_edge_list_parallel(path, {}, pool, 0);
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
                                 "# Nodes: 99999999999\n" + good}) {
    const std::string path = dir.write("bad.el", bad);
    EXPECT_FALSE(detail::read_edge_list_parallel(path, {}, pool, 0).has_value()) << bad.substr(bad.size() - 40);
    EXPECT_THROW(GraphSource::open(path), Error);
  }
  // Small files are left to the serial reader.
  EXPECT_FALSE(detail::read_edge_list_parallel(dir.write("small.el", good), {}, pool).has_value());
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

}  // namespace
}  // namespace smartarrays::graph
