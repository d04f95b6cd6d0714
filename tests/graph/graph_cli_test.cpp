// Tests of `smartarrays graph` as a user runs it: generate is deterministic whatever the thread
// count, convert round-trips, pagerank/degree --output hold one value per vertex that matches the
// library, --json carries its format and runs, and bad command lines or files give exit codes 2/1
// with messages naming the problem.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/graph/formats.hpp"
#include "support/graph_fixtures.hpp"
#include "support/run_cli.hpp"
#include "support/sanitizers.hpp"

namespace smartarrays::graph {
namespace {

using test::cli;
using test::CliRun;
using test::read_file;

std::vector<double> numbers_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<double> values;
  for (double v; in >> v;) values.push_back(v);
  return values;
}

std::vector<double> numbers(const std::string& path) { return numbers_of(read_file(path)); }

TEST(GraphCli, GenerateIsTheSameForAnyThreadCount) {
  const test::ScratchDir dir;
  const std::string common = " graph generate --scale 10 --edge-factor 4 --seed 7 --quiet --output ";
  ASSERT_EQ(cli(dir, "--help").exit_code, 0);
  const CliRun one = cli(dir, common + dir.file("one.sg") + " --threads 1");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("1024 vertices"), std::string::npos) << one.out;
  ASSERT_EQ(cli(dir, common + dir.file("two.sg") + " --threads 2").exit_code, 0);
  EXPECT_EQ(read_file(dir.file("one.sg")), read_file(dir.file("two.sg")));
  ASSERT_EQ(cli(dir, " graph generate --kind uniform --vertices 1K --degree 3 --quiet --output " + dir.file("u.el")).exit_code, 0);
  EXPECT_EQ(load_graph(dir.file("u.el"), GraphFormat::edge_list).edges(), 3072u);  // 1K = 1024 vertices
}

TEST(GraphCli, ConvertRoundTrips) {
  const test::ScratchDir dir;
  const std::string sg = dir.file("g.sg"), mtx = dir.file("g.mtx"), el = dir.file("g.el");
  ASSERT_EQ(cli(dir, "graph convert " + test::graph_data("tiny.el") + " " + sg).exit_code, 0);
  ASSERT_EQ(cli(dir, "graph convert " + sg + " " + mtx).exit_code, 0);
  ASSERT_EQ(cli(dir, "graph convert " + mtx + " " + el + " --dedup").exit_code, 0);
  EXPECT_EQ(test::decode(load_graph(sg, GraphFormat::gap_sg)), test::tiny_graph());
  EXPECT_EQ(test::decode(load_graph(mtx, GraphFormat::matrix_market)), test::tiny_graph());
  EXPECT_EQ(load_graph(el, GraphFormat::edge_list).edges(), 6u);
  // A flag's value is honoured: --undirected=no keeps the edge list directed.
  const std::string directed = dir.file("d.sg"), undirected = dir.file("u.sg");
  ASSERT_EQ(cli(dir, "graph convert " + test::graph_data("tiny.el") + " " + directed + " --undirected=no").exit_code, 0);
  ASSERT_EQ(cli(dir, "graph convert " + test::graph_data("tiny.el") + " " + undirected + " --undirected").exit_code, 0);
  EXPECT_TRUE(load_graph(directed, GraphFormat::gap_sg).directed());
  EXPECT_FALSE(load_graph(undirected, GraphFormat::gap_sg).directed());
}

TEST(GraphCli, PagerankAndDegreeOutputsMatchTheLibrary) {
  const test::ScratchDir dir;
  const std::string graph = dir.file("g.sg");
  ASSERT_EQ(cli(dir, "graph generate --scale 9 --quiet --output " + graph).exit_code, 0);
  const CsrGraph g = load_graph(graph, GraphFormat::gap_sg);

  const CliRun pr = cli(dir, "graph pagerank " + graph + " --variant U,V,V+E --dangling uniform --tolerance 1e-9 --output " +
                              dir.file("ranks.txt") + " --json " + dir.file("pr.json"));
  ASSERT_EQ(pr.exit_code, 0) << pr.err;
  EXPECT_NE(pr.out.find("V+E"), std::string::npos) << pr.out;
  algo::PageRankOptions options;
  options.dangling = algo::DanglingRule::uniform;
  options.tolerance = 1e-9;
  const algo::PageRankResult expected = algo::pagerank(g.rbegin(), g.redge(), g.begin(), options);
  const std::vector<double> ranks = numbers(dir.file("ranks.txt"));
  ASSERT_EQ(ranks.size(), g.vertices());
  for (std::uint64_t v = 0; v < g.vertices(); ++v) ASSERT_NEAR(ranks[v], algo::rank_at(expected.ranks, v), 1e-12) << v;
  const std::string json = read_file(dir.file("pr.json"));
  EXPECT_NE(json.find("\"format\": \"smartarrays.graph.pagerank/1\""), std::string::npos);
  EXPECT_NE(json.find("\"variant\": \"V+E\""), std::string::npos);
  EXPECT_NE(json.find("\"iterations\": " + std::to_string(expected.iterations)), std::string::npos) << json;

  const CliRun f32 = cli(dir, "graph pagerank " + graph + " --scores f32 --json -");
  ASSERT_EQ(f32.exit_code, 0) << f32.err;
  EXPECT_NE(f32.out.find("\"scores\": \"f32\""), std::string::npos) << f32.out;
  // The ranks and contributions arrays show their 32-bit width in the memory report.
  EXPECT_NE(f32.out.find("\"name\": \"ranks\",\n            \"length\": " + std::to_string(g.vertices()) +
                         ",\n            \"bits\": 32,"),
            std::string::npos)
      << f32.out;

  const CliRun deg = cli(dir, "graph degree " + graph + " --json - --output " + dir.file("deg.txt"));
  ASSERT_EQ(deg.exit_code, 0) << deg.err;
  EXPECT_EQ(deg.out.rfind("{", 0), 0u) << "--json - prints only JSON";
  EXPECT_NE(deg.out.find("smartarrays.graph.degree/1"), std::string::npos);
  const SmartArray degrees = algo::degree_centrality(g.begin(), g.rbegin(), ArrayOptions{});
  const std::vector<double> got = numbers(dir.file("deg.txt"));
  ASSERT_EQ(got.size(), g.vertices());
  for (std::uint64_t v = 0; v < g.vertices(); ++v) ASSERT_EQ(got[v], static_cast<double>(degrees.get(v))) << v;

  const CliRun info = cli(dir, "graph info " + graph + " --variant U,V+E");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find(std::to_string(g.edges()) + " edges"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("paper formula"), std::string::npos);
}

TEST(GraphCli, PlacementAndBitsFlagsReachTheArrays) {
  const test::ScratchDir dir;
  const CliRun run = cli(dir, "graph info " + test::graph_data("tiny.el") +
                               " --variant V+E --placement interleaved,redge=os_default --bits edge=9 --json -");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"name\": \"edge\",\n"), std::string::npos);
  EXPECT_NE(run.out.find("\"bits\": 9"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"placement\": \"interleaved\""), std::string::npos);
  EXPECT_NE(run.out.find("\"placement\": \"os_default\""), std::string::npos);
  // A placement for every array leaves PageRank's output interleaved (it cannot be replicated).
  const CliRun pr = cli(dir, "graph pagerank " + test::graph_data("tiny.el") + " --placement replicated --json -");
  ASSERT_EQ(pr.exit_code, 0) << pr.err;
  const std::size_t ranks = pr.out.find("\"name\": \"ranks\"");
  ASSERT_NE(ranks, std::string::npos) << pr.out;
  EXPECT_EQ(pr.out.find("\"placement\": \"interleaved\"", ranks), pr.out.find("\"placement\"", ranks)) << pr.out;
  EXPECT_NE(pr.out.find("\"placement\": \"replicated\""), std::string::npos);
}

TEST(GraphCli, BadCommandLinesAndFiles) {
  const test::ScratchDir dir;
  struct Case {
    std::string args;
    int code;
    std::string message;
  };
  const std::string bad = dir.write("bad.el", "0 1\n1 two\n");
  const std::vector<Case> cases{
      {"graph", 2, "subcommand"},
      {"graph frob", 2, "unknown subcommand 'frob'"},
      {"graph pagerank", 2, "missing the input"},
      {"graph pagerank x.el --variant W", 2, "unknown variant 'W'"},
      {"graph pagerank x.el --placement begin=everywhere", 2, "everywhere"},
      {"graph pagerank x.el --placement nodes=interleaved", 2, "unknown array 'nodes'"},
      {"graph pagerank x.el --bits edge=65", 2, "--bits"},
      {"graph pagerank x.el --dangling networkx", 2, "dangling"},
      {"graph pagerank x.el --scores f16", 2, "--scores"},
      {"graph pagerank x.el --frob", 2, "unknown flag '--frob'"},
      {"graph pagerank x.el y.el", 2, "more than one input file ('x.el' and 'y.el')"},
      {"graph pagerank x.el --dedup=perhaps", 2, "--dedup"},
      {"graph convert x.el", 2, "expected INPUT and OUTPUT"},
      {"graph pagerank x.unknown", 2, "extension"},
      {"graph generate", 2, "--output"},
      {"graph generate --kind star --output a.el", 2, "--kind"},
      // Every flag is checked before the graph is read: x.el does not exist, and the message names the flag.
      {"graph pagerank x.el --damping 2", 2, "--damping: pagerank: damping must be a number in (0, 1], got 2"},
      {"graph pagerank x.el --damping 0", 2, "--damping"},
      {"graph pagerank x.el --tolerance -1", 2, "--tolerance: pagerank: tolerance must be a finite number >= 0"},
      {"graph pagerank x.el --tolerance nan", 2, "--tolerance"},
      {"graph pagerank x.el --tolerance 1e999", 2, "--tolerance"},
      {"graph pagerank x.el --max-iterations 0", 2, "--max-iterations: pagerank: max_iterations must be at least 1"},
      {"graph pagerank x.el --placement ranks=replicated", 2, "--placement: pagerank: the rank array"},
      {"graph generate --output a.el --kind uniform --degree -1", 2, "--degree"},
      {"graph generate --output a.el --scale 40 --edge-factor 1048576", 2,
       "--scale and --edge-factor: an edge list of 1152921504606846976 edges needs at least 1.845e+19 bytes"},
      {"graph generate --output a.el --kind uniform --vertices 1G --degree 1e300 --undirected", 2,
       "--vertices and --degree: an edge list of more than 1.8e+308 edges, both directions, needs at least more than"},
      {"graph generate --output a.unknown", 2, "--format"},
      {"graph convert x.el y.unknown", 2, "--to"},
      {"graph pagerank x.el --variant \"$(printf '\\033[31m')\"", 2, "'\\x1b[31m'"},
      {"graph pagerank " + dir.file("missing.el"), 1, "cannot open"},
      {"graph pagerank " + bad, 1, "bad.el:2: bad destination vertex id 'two'"},
      {"graph info " + test::graph_data("tiny.el") + " --variant U --bits edge=1", 1, "graph array edge"},
  };
  for (const Case& c : cases) {
    const CliRun run = cli(dir, c.args);
    EXPECT_EQ(run.exit_code, c.code) << c.args << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << c.args << "\n" << run.err;
  }
}

TEST(GraphCli, SubnormalToleranceIsANumber) {
  const CliRun run = test::run_cli("graph pagerank " + test::graph_data("tiny.el") + " --tolerance 1e-320 --quiet --json -",
                                   test::ScratchDir().file("stderr.txt"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"tolerance\": 1e-320"), std::string::npos) << run.out;
}

// /dev/stdout as the output file: the graph goes through the descriptor itself (a redirected file
// keeps what it held with >>), and the command's own lines go to stderr, so the data is exact.
TEST(GraphCli, DevStdoutCarriesExactlyTheGraph) {
  const test::ScratchDir dir;
  const std::string sg = dir.file("tiny.sg");
  write_gap_sg(load_graph(test::graph_data("tiny.el"), GraphFormat::edge_list), sg);
  write_edge_list(load_graph(sg, GraphFormat::gap_sg), dir.file("expected.el"));
  const std::string expected = read_file(dir.file("expected.el"));
  const CliRun piped = cli(dir, "graph convert " + sg + " /dev/stdout --to el");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, expected);
  EXPECT_NE(piped.err.find("wrote /dev/stdout (el)"), std::string::npos) << piped.err;
  const std::string appended = dir.write("appended.el", "# kept\n");
  const CliRun redirected = cli(dir, "graph convert " + sg + " /dev/stdout --to el >> " + appended);
  ASSERT_EQ(redirected.exit_code, 0) << redirected.err;
  EXPECT_EQ(read_file(appended), "# kept\n" + expected);
  const CliRun degrees = cli(dir, "graph degree " + sg + " --output /dev/stdout --quiet");
  ASSERT_EQ(degrees.exit_code, 0) << degrees.err;
  EXPECT_EQ(numbers_of(degrees.out).size(), 6u) << degrees.out;
  // "-" is standard output for the vertex values, as for --json; the table goes to stderr.
  const CliRun dash = cli(dir, "graph degree " + sg + " --output - --quiet");
  ASSERT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_EQ(dash.out, degrees.out);
  EXPECT_NE(dash.err.find("degree centrality"), std::string::npos) << dash.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("-")));
}

// Standard output carries one output at most, and "-" never silently becomes a file named "-".
TEST(GraphCli, DashIsStandardOutputOrRefused) {
  const test::ScratchDir dir;
  const std::string el = test::graph_data("tiny.el");
  const struct {
    std::string args;
    const char* message;
  } refused[] = {
      {"graph degree " + el + " --json - --output -", "--output: standard output already takes --json's output"},
      {"graph pagerank " + el + " --json /dev/stdout --output -", "--output: standard output already takes --json's output"},
      {"graph generate --scale 4 --output -",
       "--output: '-' names no file here: give /dev/stdout for standard output, or ./- for a file named '-'"},
      {"graph convert " + el + " - --to el", "OUTPUT: '-' names no file here"},
      {"store append - " + el, "STORE: '-' names no file here"},
  };
  for (const auto& c : refused) {
    SCOPED_TRACE(c.args);
    const CliRun r = test::run_cli(c.args, dir.file("stderr.txt"), "cd " + dir.file("") + " &&");  // where '-' would land
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("-")));
}

TEST(GraphCli, CtrlCStopsGenerateLeavingNoFile) {
  const test::ScratchDir dir;
  const std::string err = dir.file("stderr.txt");
  const std::string out = dir.file("big.el");
  // Far more graph than a second makes: interrupted once it reports generating.
  const test::InterruptedRun run = test::interrupt_cli({"graph", "generate", "--scale", "22", "--output", out}, err, [&] {
    return read_file(err).find("generating") != std::string::npos;
  });
  EXPECT_TRUE(run.started) << run.err;
  ASSERT_TRUE(run.status) << "still running a minute after SIGINT";
  ASSERT_TRUE(WIFEXITED(*run.status)) << "killed by signal " << WTERMSIG(*run.status);
  EXPECT_EQ(WEXITSTATUS(*run.status), 130);
  EXPECT_NE(run.err.find("smartarrays: graph generate: interrupted"), std::string::npos) << run.err;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.file(""))) names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"stderr.txt"}) << "no output and no staged file";
}

TEST(GraphCli, AWriteToAFifoWhoseReaderStoppedReadingEndsOnTheFirstCtrlC) {
  const test::ScratchDir dir;
  const std::string graph = dir.file("g.sg");
  ASSERT_EQ(cli(dir, "graph generate --scale 12 --output " + graph + " --quiet").exit_code, 0);
  const std::string fifo = dir.file("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader that never reads: the 600 KB edge list fills the pipe and the write waits.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const test::InterruptedRun run =
      test::interrupt_cli({"graph", "convert", graph, fifo, "--to", "el"}, dir.file("stderr.txt"), [&] {
        int queued = 0;
        return ::ioctl(reader, FIONREAD, &queued) == 0 && queued >= 65536;
      });
  ::close(reader);
  EXPECT_TRUE(run.started) << run.err;
  ASSERT_TRUE(run.status) << "still running a minute after SIGINT";
  ASSERT_TRUE(WIFEXITED(*run.status)) << "killed by signal " << WTERMSIG(*run.status);
  EXPECT_EQ(WEXITSTATUS(*run.status), 130);
  EXPECT_NE(run.err.find("smartarrays: graph convert: interrupted"), std::string::npos) << run.err;
}

// Memory that runs out after the graph is built names the file and the array: an edge list naming
// one vertex id among millions said only "cannot map 762.9 MiB: Cannot allocate memory". Here the
// contributions replicated over 64 fake nodes (64 x 30.5 MiB) pass a 1 GB address-space limit
// that the graph itself fits in.
TEST(GraphCli, MemoryRunningOutNamesTheFileAndTheArray) {
#if defined(SMARTARRAYS_TEST_ASAN) || defined(SMARTARRAYS_TEST_TSAN)
  GTEST_SKIP() << "a sanitizer's shadow memory does not fit in the address-space limit this test sets";
#endif
  const test::ScratchDir dir;
  const std::string file = dir.write("big-id.el", "0 3999999\n");
  const CliRun run = test::run_cli(
      "graph pagerank " + file + " --placement contributions=replicated --threads 2 --max-iterations 1 --quiet",
      dir.file("stderr.txt"), "ulimit -v 1000000; SMARTARRAYS_TOPOLOGY=nodes=64");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("smartarrays: error: graph '" + file +
                         "': pagerank array contributions of 4000000 values: cannot map 30.5 MiB"),
            std::string::npos)
      << run.err;
}

TEST(GraphCli, AnEndlessPipeIsRefusedEarlyNamingTheLine) {
  const test::ScratchDir dir;
  // `yes` never ends: the read must stop at the memory limit, naming the file and the line it reached.
  const CliRun run = test::run_cli("graph info /dev/stdin --format el --quiet", dir.file("stderr.txt"),
                                   "yes '1 2' | SMARTARRAYS_MEMORY_LIMIT_MB=64");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("/dev/stdin:"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("to load; the memory limit is 64 MiB (SMARTARRAYS_MEMORY_LIMIT_MB)"), std::string::npos)
      << run.err;
}

// Whether a file's edges fit in memory does not depend on the order of its lines: a file that loads
// within the limit loads again when its largest id comes first (as in the sorted .el the reader's
// own writer makes), and a file whose lines alone do not fit is refused before one is parsed.
TEST(GraphCli, TheMemoryCheckOfAnEdgeListDoesNotDependOnTheOrderOfItsLines) {
  const test::ScratchDir dir;
  // 600 directed edges and 130334 vertices: the graph needs 2,094,960 bytes of the 2 MiB limit, but
  // a growing list held while it is copied, with a CSR sized by the largest id, needs more.
  std::string small_ids;
  for (int k = 0; k < 599; ++k) small_ids += std::to_string(k % 97) + " " + std::to_string((k * 7) % 89) + "\n";
  const std::string largest = "130333 5\n";
  std::ofstream(dir.file("late.el")) << small_ids << largest;
  std::ofstream(dir.file("early.el")) << largest << small_ids;
  const std::string limit = "SMARTARRAYS_MEMORY_LIMIT_MB=2";
  for (const char* name : {"late.el", "early.el"}) {
    const CliRun run = test::run_cli("graph info " + dir.file(name) + " --quiet", dir.file("stderr.txt"), limit);
    EXPECT_EQ(run.exit_code, 0) << name << ": " << run.err;
    EXPECT_NE(run.out.find("130334 vertices, 600 edges, directed"), std::string::npos) << name << ": " << run.out;
  }
  // Blank lines and comments need no room: only the 140000 lines of edges are counted.
  std::string many = "# a comment\n\n  \t\r\n";
  for (int k = 0; k < 140000; ++k) many += k % 1000 == 0 ? " % another\n\n1 2\n" : "1 2\n";
  std::ofstream(dir.file("many.el")) << many;
  const CliRun run = test::run_cli("graph info " + dir.file("many.el") + " --quiet", dir.file("stderr.txt"), limit);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("many.el: 140000 lines of edges need at least 2.1 MiB to read (room for an edge on each); "
                         "the memory limit is 2 MiB (SMARTARRAYS_MEMORY_LIMIT_MB)"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace smartarrays::graph
