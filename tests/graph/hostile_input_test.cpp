// Regression tests of hostile inputs, each a file or call that once crashed, lost data
// or allocated memory by a number it held (the same inputs are in fuzz/corpus/): vertex counts of
// 2^64 - 1 and ids of 2^64 - 2 from files and API arguments (class 1), an asymmetric undirected
// .sg and the undirected edge-list convention (class 2), declared counts beyond what the file
// justifies, lines without end and /dev/zero (class 3), input bytes in messages (class 6), and
// reading and generating stopped by the thread's interrupt check (Ctrl-C from Python).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "graph/text_reader.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "support/file_size_limit.hpp"
#include "support/graph_fixtures.hpp"
#include "support/run_cli.hpp"
#include "support/sanitizers.hpp"

namespace smartarrays::graph {
namespace {

using test::decode;
using test::expect_error;
using test::ScratchDir;
using test::SgBytes;

constexpr std::uint64_t max_u64 = ~std::uint64_t{0};
const std::string mtx_header = "%%MatrixMarket matrix coordinate pattern general\n";

// The process's peak resident memory in bytes (monotonic: it only grows).
std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

// Expects f to fail with code, naming every needle, without the process's peak memory growing by
// more than 64 MiB: the input was refused before anything was sized by the number it holds.
template <typename F>
void expect_refused_cheaply(F&& f, ErrorCode code, std::initializer_list<const char*> needles) {
  const std::uint64_t before = peak_rss_bytes();
  EXPECT_EQ(expect_error(f, needles), code);
  EXPECT_LT(peak_rss_bytes() - before, std::uint64_t{64} << 20);
}

CsrGraph open_and_build(const std::string& path) { return GraphSource::open(path).build(); }

// Class 1: counts near 2^64 are refused where the size is formed, never wrapped.

TEST(HostileInput, EdgeListIdOf2Pow64Minus2IsRefusedNamingTheLine) {
  ScratchDir dir;
  const std::string path = dir.write("big-id.el", "0 1\n0 18446744073709551614\n");
  expect_refused_cheaply([&] { open_and_build(path); }, ErrorCode::out_of_memory,
                         {"big-id.el:2:", "18446744073709551615 vertices", "does not fit in 64 bits"});
  expect_error([&] { open_and_build(dir.write("max-id.el", "18446744073709551615 0\n")); },
               {"max-id.el:1:", "vertex id 18446744073709551615 is too large"});
}

TEST(HostileInput, NodesHeaderOf2Pow64Minus1IsRefusedNamingTheLine) {
  ScratchDir dir;
  const std::string path = dir.write("nodes.el", "# Nodes: 18446744073709551615\n0 1\n");
  expect_refused_cheaply([&] { open_and_build(path); }, ErrorCode::invalid_argument,
                         {"nodes.el:1:", "18446744073709551615 vertices declared"});
}

TEST(HostileInput, MatrixMarketSizeOf2Pow64Minus1IsRefusedNamingTheSizeLine) {
  ScratchDir dir;
  const std::string path = dir.write("size.mtx", mtx_header + "18446744073709551615 18446744073709551615 1\n1 1\n");
  expect_refused_cheaply([&] { open_and_build(path); }, ErrorCode::out_of_memory,
                         {"size.mtx:2:", "18446744073709551615 vertices", "does not fit in 64 bits"});
}

TEST(HostileInput, ApiVertexCountsNear2Pow64AreErrorsNotCrashes) {
  const std::vector<std::uint64_t> src{0}, dst{1};
  expect_refused_cheaply([&] { GraphSource::from_edges(src, dst, max_u64).build(); }, ErrorCode::out_of_memory,
                         {"18446744073709551615 + 1 does not fit in 64 bits"});
  expect_refused_cheaply([&] { build_csr(EdgeList{max_u64, {}, true}); }, ErrorCode::out_of_memory, {"18446744073709551615"});
  // The largest id + 1 would wrap to 0.
  const std::vector<std::uint64_t> top{max_u64};
  expect_refused_cheaply([&] { GraphSource::from_edges(top, src); }, ErrorCode::out_of_memory,
                         {"the vertex count (the largest id + 1)"});
  UniformOptions empty;
  empty.vertices = max_u64;
  empty.average_degree = 0;
  expect_refused_cheaply([&] { GraphSource::uniform(empty).build(); }, ErrorCode::out_of_memory, {"18446744073709551615"});
  // A count that fits in 64 bits but not in this machine is refused before it is allocated.
  expect_refused_cheaply([&] { GraphSource::from_edges(src, dst, std::uint64_t{1} << 56).build(); },
                         ErrorCode::out_of_memory, {"needs at least 1 EiB to build; the memory limit is"});
}

TEST(HostileInput, BuildMemoryNamesTheCountsAndTheLimit) {
  EXPECT_EQ(stored_edge_count(5, 2, true), 5u);
  EXPECT_EQ(stored_edge_count(5, 2, false), 8u) << "both directions, loops once";
  expect_error([] { stored_edge_count(max_u64, 0, false); }, {"does not fit in 64 bits"});
  EXPECT_EQ(csr_build_bytes(0, 0), 16u);
  EXPECT_EQ(csr_build_bytes(9, 3), 16u * 10 + 16u * 3);
  expect_error([] { csr_build_bytes(max_u64 / 16, 0); }, {"does not fit in 64 bits"});
  expect_error([] { check_build_memory(1, max_u64 / 8, "here: "); }, {"here: ", "does not fit in 64 bits"});
  check_build_memory(1000, 1000);
}

// Class 2: what a file says is kept exactly, or the file is refused.

TEST(HostileInput, AsymmetricUndirectedSgIsRefusedNamingTheFirstEdge) {
  ScratchDir dir;
  // Undirected, 3 vertices, edges 0 -> 1, 1 -> 0 and 1 -> 2 without 2 -> 1: ids start at byte 17 + 4*8.
  SgBytes b;
  b.flag(0).i64(3).i64(3).i64s({0, 1, 3, 3}).i32s({1, 0, 2});
  const std::string path = dir.write("asymmetric.sg", b.bytes);
  expect_error([&] { read_gap_sg(path); }, {"asymmetric.sg: byte offset 57", "not symmetric",
                                            "first difference at vertex 1", "1 -> 2 is stored 1 time, 2 -> 1 0 times"});
  // A missing reverse of a repeated edge counts too: 0 -> 1 twice, 1 -> 0 once.
  SgBytes twice;
  twice.flag(0).i64(3).i64(2).i64s({0, 2, 3}).i32s({1, 1, 0});
  expect_error([&] { read_gap_sg(dir.write("twice.sg", twice.bytes)); },
               {"first difference at vertex 0", "0 -> 1 is stored 2 times, 1 -> 0 1 time"});
  // Symmetric with a repeated edge and a self-loop: accepted as stored.
  SgBytes ok;
  ok.flag(0).i64(5).i64(2).i64s({0, 3, 5}).i32s({1, 1, 0, 0, 0});
  const CsrGraph g = load_graph(dir.write("ok.sg", ok.bytes), GraphFormat::gap_sg);
  EXPECT_EQ(g.out_neighbours(0), (std::vector<std::uint64_t>{0, 1, 1}));
  EXPECT_EQ(g.out_neighbours(1), (std::vector<std::uint64_t>{0, 0}));
  g.validate();
}

TEST(HostileInput, AnUndirectedCsrMustBeSymmetric) {
  CsrParts parts{{0, 1, 1}, {1}};
  expect_error([&] { build_csr(parts, false); },
               {"undirected CSR must be symmetric", "first difference at vertex 0", "0 -> 1 is stored 1 time, 1 -> 0 0 times"});
  EXPECT_EQ(build_csr(CsrParts{{0, 1, 2}, {1, 0}}, false).edges(), 2u);
}

TEST(HostileInput, EdgeListUndirectedHeaderIsHonoured) {
  ScratchDir dir;
  const std::string path = dir.write("u.el", "# Undirected graph: com-example.ungraph.txt\n# Nodes: 4 Edges: 3\n0 1\n1 2\n3 3\n");
  const EdgeList list = read_edge_list(path);
  EXPECT_FALSE(list.directed);
  EXPECT_EQ(list.vertices, 4u);
  const CsrGraph g = open_and_build(path);
  EXPECT_FALSE(g.directed());
  EXPECT_EQ(g.edges(), 5u);  // two edges both ways, the self-loop once
  SourceOptions undirected;
  undirected.undirected = true;
  EXPECT_EQ(decode(GraphSource::open(path, undirected).build()), decode(g)) << "asking again does not double";
  EXPECT_TRUE(read_edge_list(dir.write("d.el", "# Directed graph: x\n0 1\n")).directed);
}

// A file cut short (a full disk, a download that stopped) reads as a smaller graph unless its header
// says how many edges follow: an edge list must hold every edge its "# Nodes: N Edges: M" declares.
TEST(HostileInput, AnEdgeListHoldingOtherThanTheEdgesItsHeaderDeclaresIsRefused) {
  ScratchDir dir;
  RmatOptions rmat;
  rmat.scale = 8;
  const CsrGraph g = GraphSource::rmat(rmat).build();
  const std::string whole = dir.file("whole.el");
  write_edge_list(g, whole);
  EXPECT_EQ(decode(load_graph(whole, GraphFormat::edge_list)), decode(g));
  const std::string text = test::read_file(whole);
  const std::string declared = "the header declares " + std::to_string(g.edges()) + " edges";
  // Cut at a line end, and in a line after its source and a digit of its destination (still an edge).
  const std::size_t cut = text.find('\n', text.size() / 2) + 1;
  for (const std::size_t size : {cut, text.find('\t', cut) + 2}) {
    const std::string part = text.substr(0, size);
    const std::string lines = std::to_string(std::count(part.begin(), part.end(), '\n') - 2 + (part.back() == '\n' ? 0 : 1));
    const std::string path = dir.write("cut.el", part);
    EXPECT_EQ(expect_error([&] { open_and_build(path); },
                           {"cut.el:2: ", declared.c_str(), ("holds " + lines + " edge lines").c_str(), "was it cut short?"}),
              ErrorCode::invalid_argument);
  }
  expect_error([&] { read_edge_list(dir.write("more.el", text + "0 1\n")); },
               {"more.el:2: ", declared.c_str(), ("holds " + std::to_string(g.edges() + 1) + " edge lines").c_str()});
  // Every declaration must hold, the first and the last.
  expect_error([&] { read_edge_list(dir.write("two.el", "# Nodes: 3 Edges: 2\n# Nodes: 3 Edges: 3\n0 1\n1 2\n")); },
               {"two.el:2: the header declares 3 edges, but the file holds 2 edge lines"});
  expect_error([&] { read_edge_list(dir.write("two.el", "# Nodes: 3 Edges: 1\n# Nodes: 3 Edges: 2\n0 1\n1 2\n")); },
               {"two.el:1: the header declares 1 edges, but the file holds 2 edge lines"});
  // A count with no "Edges:" word, or no number after it, declares nothing.
  EXPECT_EQ(read_edge_list(dir.write("loose.el", "# Nodes: 3 Arcs: 9\n# Nodes: 3 Edges: many\n0 1\n")).edges.size(), 1u);
}

// Every writer's output reads back to the same CSR arrays, in every format from every format.
TEST(HostileInput, EveryFormatRoundTripsThroughEveryFormat) {
  ScratchDir dir;
  const std::vector<GraphFormat> formats{GraphFormat::edge_list, GraphFormat::matrix_market, GraphFormat::gap_sg};
  // Repeated edges, self-loops, isolated vertices in the middle and at the end.
  const std::vector<std::uint64_t> src{0, 0, 2, 2, 5, 5, 7, 0}, dst{1, 1, 2, 5, 0, 7, 7, 0};
  for (bool directed : {true, false}) {
    const CsrGraph original = GraphSource::from_edges(src, dst, 11, directed).build();
    for (GraphFormat first : formats) {
      for (GraphFormat second : formats) {
        SCOPED_TRACE(::testing::Message() << (directed ? "directed " : "undirected ") << to_string(first) << " -> "
                                          << to_string(second));
        const std::string a = dir.file(std::string("a.") + to_string(first));
        const std::string b = dir.file(std::string("b.") + to_string(second));
        save_graph(original, a, first);
        save_graph(load_graph(a, first), b, second);
        const CsrGraph back = load_graph(b, second);
        EXPECT_EQ(decode(back), decode(original));
        back.validate();
      }
    }
  }
}

TEST(HostileInput, TextWritersRefuseAnIsolatedTailTheirReaderWouldRefuse) {
  ScratchDir dir;
  const std::vector<std::uint64_t> src{0}, dst{1};
  const CsrGraph wide = GraphSource::from_edges(src, dst, declared_vertices_floor + 1000).build();
  expect_error([&] { write_edge_list(wide, dir.file("wide.el")); }, {"edge list", "isolated", ".sg"});
  expect_error([&] { write_matrix_market(wide, dir.file("wide.mtx")); }, {"Matrix Market", "isolated", ".sg"});
  write_gap_sg(wide, dir.file("wide.sg"));
  EXPECT_EQ(decode(load_graph(dir.file("wide.sg"), GraphFormat::gap_sg)), decode(wide));
  // At the floor, a text file holds any isolated tail.
  const CsrGraph floor = GraphSource::from_edges(src, dst, declared_vertices_floor).build();
  write_edge_list(floor, dir.file("floor.el"));
  EXPECT_EQ(decode(load_graph(dir.file("floor.el"), GraphFormat::edge_list)), decode(floor));
}

// Class 3: memory follows the file, not a number in it.

TEST(HostileInput, ABillionVerticesDeclaredInThirtyBytesAreRefused) {
  ScratchDir dir;
  const std::string el = dir.write("billion.el", "# Nodes: 1000000000\n0 1\n1 2\n");
  EXPECT_LE(std::filesystem::file_size(el), 30u);
  expect_refused_cheaply([&] { open_and_build(el); }, ErrorCode::invalid_argument,
                         {"billion.el:1:", "1000000000 vertices declared", "at most 1048576"});
  const std::string mtx = dir.write("billion.mtx", mtx_header + "1000000000 1000000000 1\n1 2\n");
  expect_refused_cheaply([&] { open_and_build(mtx); }, ErrorCode::invalid_argument,
                         {"billion.mtx:2:", "1000000000 vertices declared"});
  // The largest id justifies its vertices (the memory check bounds them).
  EXPECT_EQ(read_edge_list(dir.write("id.el", "0 2000000\n")).vertices, 2000001u);
  // Declared counts within the rule are kept: isolated vertices are legal.
  EXPECT_EQ(read_edge_list(dir.write("iso.el", "# Nodes: 1048576\n0 1\n")).vertices, declared_vertices_floor);
  EXPECT_EQ(declared_vertex_limit(1 << 20, 5), std::uint64_t{8} << 20);
  EXPECT_EQ(declared_vertex_limit(10, 1 << 30), std::uint64_t{1} << 30);
  EXPECT_EQ(declared_vertex_limit(max_u64, 0), max_u64);
}

TEST(HostileInput, MatrixMarketEntryCountBeyondTheFileIsRefused) {
  ScratchDir dir;
  const std::string path = dir.write("entries.mtx", mtx_header + "3 3 1000000000\n1 2\n");
  expect_refused_cheaply([&] { read_matrix_market(path); }, ErrorCode::invalid_argument,
                         {"entries.mtx:2:", "1000000000 entries declared", "more than a file of"});
}

TEST(HostileInput, LinesLongerThanTheCapAreRefusedNamingTheLine) {
  ScratchDir dir;
  // A line of exactly max_line_bytes is accepted ("0", spaces, "1"); one byte more is not.
  const std::string longest = "0" + std::string(max_line_bytes - 2, ' ') + "1";
  EXPECT_EQ(read_edge_list(dir.write("ok.el", "# c\n" + longest + "\r\n")).edges.size(), 1u);
  expect_error([&] { read_edge_list(dir.write("long.el", "# c\n" + longest + " \n")); },
               {"long.el:2:", "longer than 1048576 bytes"});
  // Without any newline, the reader stops at the cap instead of growing its buffer.
  expect_refused_cheaply([&] { read_edge_list(dir.write("none.el", std::string(3 * max_line_bytes, '7'))); },
                         ErrorCode::invalid_argument, {"none.el:1:", "longer than 1048576 bytes"});
  expect_error([&] { read_matrix_market(dir.write("long.mtx", mtx_header + std::string(max_line_bytes + 1, '%'))); },
               {"long.mtx:2:", "longer than"});
}

// A large file of one long line (a sparse file of zeros) is one range for the parallel reader: it is
// found in one pass, not one per range, scanned a slice at a time so it is never resident whole,
// and refused at the line cap.
TEST(HostileInput, AFileWithoutNewlinesIsRefusedAtTheLineCapWithoutBeingResident) {
  const auto refused = [](auto&& f, std::initializer_list<const char*> needles) {
#if defined(SMARTARRAYS_TEST_TSAN)
    // ThreadSanitizer's shadow of every byte read makes resident memory another measure.
    EXPECT_EQ(expect_error(f, needles), ErrorCode::invalid_argument);
#else
    expect_refused_cheaply(f, ErrorCode::invalid_argument, needles);
#endif
  };
  ScratchDir dir;
  const std::uint64_t size = std::uint64_t{128} << 20;
  const std::string el = dir.write("flat.el", "");
  std::filesystem::resize_file(el, size);
  refused([&] { open_and_build(el); }, {"flat.el:1:", "longer than 1048576 bytes"});
  const std::string mtx = dir.write("flat.mtx", mtx_header + "2 2 1\n");
  std::filesystem::resize_file(mtx, size);
  refused([&] { open_and_build(mtx); }, {"flat.mtx:3:", "longer than 1048576 bytes"});
}

// The serial edge-list reader holds room for one edge per data line before it parses one: blank
// lines (spaces, "\r\n") and comments, even indented, are not counted, a last line without a newline
// is, and the count reads the file afresh, across its 8 MiB blocks, leaving the reader at the start.
TEST(HostileInput, DataLinesAreCountedAcrossBlocksWithoutMovingTheReader) {
  ScratchDir dir;
  const ReadOptions options;
  detail::LineReader small(dir.write("small.el", "# c\n\n   \n\t% x\n1 2\r\n \t3 4\n\r\n5 6"), options);
  EXPECT_EQ(small.count_data_lines("#%"), 3u);
  EXPECT_EQ(small.count_data_lines(""), 5u) << "the comments are data when nothing starts one";
  std::string_view line;
  ASSERT_TRUE(small.next(line));
  EXPECT_EQ(line, "# c");
  EXPECT_EQ(small.count_data_lines("#%"), 3u) << "counted from the start, wherever next() stands";
  EXPECT_EQ(detail::LineReader(dir.write("empty.el", ""), options).count_data_lines("#%"), 0u);
  // 8 MiB of "1 2\n", then a line whose leading spaces straddle the block end, or a comment starting the next block.
  std::string edges;
  edges.reserve((std::size_t{8} << 20) + 16);
  for (std::size_t k = 0; k < (std::size_t{2} << 20); ++k) edges += "1 2\n";
  const std::string straddle = edges.substr(0, edges.size() - 4) + "      7 8\n";
  EXPECT_EQ(detail::LineReader(dir.write("straddle.el", straddle), options).count_data_lines("#%"), std::uint64_t{2} << 20);
  const std::string comment = edges + "# c\n5 6";
  EXPECT_EQ(detail::LineReader(dir.write("comment.el", comment), options).count_data_lines("#%"),
            (std::uint64_t{2} << 20) + 1);
  EXPECT_EQ(read_edge_list(dir.file("comment.el")).edges.size(), (std::size_t{2} << 20) + 1);
}

TEST(HostileInput, DevZeroIsRefusedAtTheLineCap) {
  SourceOptions el;
  el.format = GraphFormat::edge_list;
  expect_refused_cheaply([&] { GraphSource::open("/dev/zero", el); }, ErrorCode::invalid_argument,
                         {"/dev/zero:1:", "longer than 1048576 bytes"});
  SourceOptions mtx;
  mtx.format = GraphFormat::matrix_market;
  expect_refused_cheaply([&] { GraphSource::open("/dev/zero", mtx); }, ErrorCode::invalid_argument, {"/dev/zero:1:"});
}

TEST(HostileInput, OutOfMemoryWhileReadingNamesTheFile) {
  const std::string where = "g.el:7: ";
  const auto code = expect_error(
      [&] { detail::out_of_memory_naming([&] { return where; }, []() -> int { throw std::bad_alloc(); }); },
      {"g.el:7: out of memory"});
  EXPECT_EQ(code, ErrorCode::out_of_memory);
}

// Ctrl-C: reading and generating stop between steps when the thread's interrupt check says so.
TEST(HostileInput, LoadingAndGeneratingStopWhenTheThreadIsInterrupted) {
  ScratchDir dir;
  const CsrGraph tiny = load_graph(test::graph_data("tiny.el"), GraphFormat::edge_list);
  write_gap_sg(tiny, dir.file("tiny.sg"));
  runtime::InterruptScope scope([] { return true; });
  for (const std::string& path : {test::graph_data("tiny.el"), test::graph_data("tiny.mtx"), dir.file("tiny.sg")}) {
    EXPECT_EQ(expect_error([&] { GraphSource::open(path); }, {"interrupted"}), ErrorCode::cancelled) << path;
  }
  RmatOptions rmat;
  rmat.scale = 10;
  EXPECT_EQ(expect_error([&] { GraphSource::rmat(rmat); }, {"interrupted"}), ErrorCode::cancelled);
  EXPECT_EQ(expect_error([&] { build_csr(EdgeList{2, {{0, 1}}, true}); }, {"interrupted"}), ErrorCode::cancelled);
}

// The writers stage their file: Ctrl-C (the thread's interrupt) or a full disk mid-write leaves the
// old file, or none, and nothing beside it.
TEST(HostileInput, AnInterruptedOrFailedWriteLeavesTheOldFileOrNone) {
  ScratchDir dir;
  RmatOptions rmat;
  rmat.scale = 14;
  const CsrGraph g = GraphSource::rmat(rmat).build();  // every format's file is over 1 MiB
  for (const GraphFormat format : {GraphFormat::edge_list, GraphFormat::matrix_market, GraphFormat::gap_sg}) {
    SCOPED_TRACE(to_string(format));
    const std::string fresh = dir.file(std::string("fresh.") + to_string(format));
    const std::string kept = dir.write(std::string("kept.") + to_string(format), "old");
    {
      runtime::InterruptScope scope([] { return true; });
      EXPECT_EQ(expect_error([&] { save_graph(g, fresh, format); }, {"interrupted"}), ErrorCode::cancelled);
      EXPECT_EQ(expect_error([&] { save_graph(g, kept, format); }, {"interrupted"}), ErrorCode::cancelled);
    }
    {
      const test::FileSizeLimit full(256 << 10);
      EXPECT_EQ(expect_error([&] { save_graph(g, fresh, format); }, {"cannot write", fresh.c_str()}), ErrorCode::os_error);
      EXPECT_EQ(expect_error([&] { save_graph(g, kept, format); }, {"cannot write", kept.c_str()}), ErrorCode::os_error);
    }
    EXPECT_FALSE(std::filesystem::exists(fresh));
    EXPECT_EQ(test::read_file(kept), "old");
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.file(""))) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kept.el", "kept.mtx", "kept.sg"})) << "no staged file remains";
}

// Class 6: input bytes reach messages escaped.

TEST(HostileInput, NulAndEscapeBytesAreQuotedInMessages) {
  ScratchDir dir;
  const std::string nul = dir.write("nul.el", std::string("0 1\n2 3\0x\n", 10));
  const std::optional<ErrorCode> code = expect_error([&] { read_edge_list(nul); }, {"nul.el:2:", "'3\\x00x'"});
  EXPECT_EQ(code, ErrorCode::invalid_argument);
  const std::string esc = dir.write("esc.el", "\x1b[2J\x1b[31m 1\n");
  try {
    read_edge_list(esc);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'\\x1b[2J\\x1b[31m'"), std::string::npos) << message;
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << "no raw escape byte reaches the terminal";
  }
  expect_error([&] { read_matrix_market(dir.write("h.mtx", "%%MatrixMarket matrix coordinate \x07pattern general\n")); },
               {"'\\x07pattern'"});
}

TEST(HostileInput, AHugeSgEdgeCountPrintsTheExactByteFigure) {
  ScratchDir dir;
  // m = 2^62, n = 0: 17 + 8 + 2^64 bytes, beyond 64 bits.
  SgBytes b;
  b.flag(0).i64(std::int64_t{1} << 62).i64(0);
  expect_error([&] { read_gap_sg(dir.write("huge.sg", b.bytes)); }, {"need 18446744073709551641 bytes, it has 17"});
}

}  // namespace
}  // namespace smartarrays::graph
