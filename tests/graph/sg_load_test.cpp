// Tests the one .sg loading path (GraphSource: the header and offsets at open, each build reading the
// ids straight into the arrays, the first checking them in the same pass; load_graph is a source used
// once): it builds exactly the graph of the general reader for every variant, directed and
// undirected, whatever the thread count, built once or several times; files it cannot stream
// (unsorted lists, options that drop edges) take the general path; options that replicate an id
// array or name too narrow a width, malformed ids, a file changed between builds and progress behave
// as documented; and a load runs in a child process whose address space is limited to a little above
// the final arrays; a text load (the command, in a fresh process) peaks at its narrow edge blocks
// and narrow forward CSR, not at 64-bit pairs.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/graph/source.hpp"
#include "support/fake_topology.hpp"
#include "support/graph_fixtures.hpp"
#include "support/sanitizers.hpp"

namespace smartarrays::graph {
namespace {

using test::decode;
using test::ScratchDir;

CsrGraph rmat_graph(unsigned scale, bool undirected) {
  RmatOptions r;
  r.scale = scale;
  r.edge_factor = 8;
  r.seed = 9;
  EdgeList list = generate_rmat(r);
  list.directed = !undirected;
  BuildOptions clean;
  clean.dedup = true;
  clean.drop_self_loops = true;
  return build_csr(list, clean);
}

// The graph the general path builds: the file read whole into vectors, then build_csr.
CsrGraph general(const std::string& path, const BuildOptions& options) {
  SgContents contents = read_gap_sg(path);
  return build_csr(std::move(contents.out), contents.directed, options);
}

void expect_same(const CsrGraph& a, const CsrGraph& b) {
  EXPECT_EQ(a.directed(), b.directed());
  EXPECT_EQ(a.shares_reverse(), b.shares_reverse());
  EXPECT_EQ(decode(a), decode(b));
  for (std::size_t k = 0; k < graph_array_count; ++k) {
    const auto which = static_cast<GraphArray>(k);
    EXPECT_EQ(a.array(which).bits(), b.array(which).bits()) << to_string(which);
  }
}

TEST(SgLoad, BuildsTheGeneralReadersGraphForEveryVariantAndThreadCount) {
  const ScratchDir dir;
  for (bool undirected : {false, true}) {
    const std::string path = dir.file(undirected ? "u.sg" : "d.sg");
    write_gap_sg(rmat_graph(10, undirected), path);
    for (std::size_t threads : {1u, 3u}) {
      runtime::ThreadPool pool(runtime::PoolOptions{.threads = threads});
      const GraphSource source = GraphSource::open(path, {}, pool);
      for (Variant v : {Variant::U, Variant::V, Variant::VE}) {
        SCOPED_TRACE(::testing::Message() << (undirected ? "undirected " : "directed ") << to_string(v) << ", "
                                          << threads << " threads");
        BuildOptions options;
        options.layout = GraphLayout::for_variant(v);
        const CsrGraph streamed = source.build(options, pool);
        streamed.validate();
        expect_same(streamed, general(path, options));
        // load_graph reads the file once, straight into the arrays.
        const CsrGraph loaded = load_graph(path, GraphFormat::gap_sg, options, {}, pool);
        loaded.validate();
        expect_same(loaded, general(path, options));
      }
    }
  }
}

TEST(SgLoad, ListsToSortAndEdgesToDropTakeTheGeneralPath) {
  const ScratchDir dir;
  // 0 -> {2, 1} unsorted, 1 -> {1, 1} a duplicated self-loop; written by hand as GAP's layout.
  const std::string path = dir.file("raw.sg");
  {
    std::ofstream out(path, std::ios::binary);
    const std::uint8_t flag = 1;
    const std::int64_t m = 4, n = 3;
    const std::int64_t out_offsets[] = {0, 2, 4, 4};
    const std::int32_t out_ids[] = {2, 1, 1, 1};
    const std::int64_t in_offsets[] = {0, 0, 3, 4};
    const std::int32_t in_ids[] = {0, 1, 1, 0};
    out.write(reinterpret_cast<const char*>(&flag), 1);
    out.write(reinterpret_cast<const char*>(&m), 8);
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(reinterpret_cast<const char*>(out_offsets), sizeof out_offsets);
    out.write(reinterpret_cast<const char*>(out_ids), sizeof out_ids);
    out.write(reinterpret_cast<const char*>(in_offsets), sizeof in_offsets);
    out.write(reinterpret_cast<const char*>(in_ids), sizeof in_ids);
  }
  const GraphSource source = GraphSource::open(path);
  BuildOptions options;
  expect_same(source.build(options), general(path, options));
  expect_same(load_graph(path, GraphFormat::gap_sg, options), general(path, options));
  EXPECT_EQ(source.build(options).out_neighbours(0), (std::vector<std::uint64_t>{1, 2}));
  options.dedup = true;
  options.drop_self_loops = true;
  const CsrGraph cleaned = source.build(options);
  EXPECT_EQ(cleaned.edges(), 2u);
  expect_same(cleaned, general(path, options));
}

TEST(SgLoad, SortedFilesWithDuplicatesStreamUnlessAskedToDropThem) {
  const ScratchDir dir;
  const std::string path = dir.file("dup.sg");
  write_gap_sg(build_csr(EdgeList{3, {{0, 1}, {0, 1}, {1, 1}, {2, 0}}, true}), path);
  const GraphSource source = GraphSource::open(path);
  for (bool drop : {false, true}) {
    BuildOptions options;
    options.dedup = drop;
    options.drop_self_loops = drop;
    expect_same(source.build(options), general(path, options));
    expect_same(load_graph(path, GraphFormat::gap_sg, options), general(path, options));
  }
}

TEST(SgLoad, ReplicatedIdArraysAndNamedWidthsAreCheckedBeforeTheyAreBuilt) {
  const test::ScopedFakeTopology fake("nodes=2");  // two replicas, each filled from the file
  const ScratchDir dir;
  for (bool undirected : {false, true}) {
    SCOPED_TRACE(undirected ? "undirected" : "directed");
    const std::string path = dir.file(undirected ? "u.sg" : "d.sg");
    write_gap_sg(rmat_graph(8, undirected), path);
    BuildOptions replicated;
    replicated.layout = GraphLayout::for_variant(Variant::VE);
    replicated.layout[GraphArray::edge].placement = Placement::replicated;
    replicated.layout[GraphArray::redge].placement = Placement::replicated;
    // First build (a pass of its own checks the ids, then they are read into every replica), then a second.
    const GraphSource source = GraphSource::open(path);
    expect_same(source.build(replicated), general(path, replicated));
    expect_same(source.build(replicated), general(path, replicated));
    expect_same(load_graph(path, GraphFormat::gap_sg, replicated), general(path, replicated));
    // A width the ids do not fit is the options' error, naming the array, first build or later.
    BuildOptions narrow;
    narrow.layout = GraphLayout::for_variant(Variant::VE);
    narrow.layout[GraphArray::edge].bits = 3;
    test::expect_error([&] { load_graph(path, GraphFormat::gap_sg, narrow); }, {"graph array edge of ", ": value 254 needs 8 bits", "array has 3"});
    test::expect_error([&] { source.build(narrow); }, {"graph array edge of ", ": value 254 needs 8 bits", "array has 3"});
  }
}

TEST(SgLoad, MalformedIdsAreTheFirstBuildsErrorNamingTheByteOffset) {
  const ScratchDir dir;
  // Header and offsets are sound; the second id (byte 17 + 4*8 + 4 = 53) is beyond n.
  const std::string path = dir.write("id.sg", test::SgBytes().flag(0).i64(2).i64(3).i64s({0, 1, 2, 2}).i32s({1, 3}).bytes);
  const GraphSource source = GraphSource::open(path);
  EXPECT_EQ(source.vertices(), 3u);
  for (int build = 0; build < 2; ++build) {
    test::expect_error([&] { source.build(); }, {"id.sg: byte offset 53", "id 3"});
  }
  // Offsets are read at open: a decreasing one (vertex 2's, byte 33) is open's error.
  const std::string offsets = dir.write("off.sg", test::SgBytes().flag(0).i64(2).i64(3).i64s({0, 2, 1, 2}).i32s({1, 2}).bytes);
  test::expect_error([&] { GraphSource::open(offsets); }, {"off.sg: byte offset 33", "vertex 2"});
}

TEST(SgLoad, AFileChangedSinceOpenIsRefusedNamingIt) {
  const ScratchDir dir;
  const std::string path = dir.file("g.sg");
  write_gap_sg(rmat_graph(8, false), path);
  for (bool built_before : {false, true}) {
    SCOPED_TRACE(built_before ? "after a build" : "before any build");
    const GraphSource source = GraphSource::open(path);
    if (built_before) source.build();
    // Rewritten in place, same size: the modification time tells.
    const std::filesystem::file_time_type written = std::filesystem::last_write_time(path);
    std::filesystem::last_write_time(path, written + std::chrono::seconds(2));
    test::expect_error([&] { source.build(); }, {(path + ": the file changed since it was read").c_str()});
  }
}

TEST(SgLoad, TheFirstBuildReportsTheReadsProgress) {
  const ScratchDir dir;
  const std::string path = dir.file("g.sg");
  write_gap_sg(rmat_graph(10, false), path);
  const auto size = static_cast<std::uint64_t>(std::filesystem::file_size(path));
  std::vector<std::uint64_t> reports;
  SourceOptions options;
  options.read.progress_step = 4096;
  options.read.progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, size);
    reports.push_back(done);
  };
  const GraphSource source = GraphSource::open(path, options);
  EXPECT_TRUE(reports.empty()) << "open reads the header and offsets only";
  source.build();
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back(), size);
  EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
  const std::size_t first = reports.size();
  source.build();
  EXPECT_EQ(reports.size(), first) << "a later build trusts what the first read";
}

// The bytes of a /proc/self/status line ("VmSize:"), 0 when absent.
std::uint64_t status_bytes(const std::string& key) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(key, 0) == 0) return std::stoull(line.substr(key.size())) * 1024;
  }
  return 0;
}

// Runs load_graph(path, format, options) in a forked child whose address space may grow by at most
// allowed bytes; true when it loaded a graph of final_bytes there (failures are printed on stderr).
bool loads_within(const std::string& path, GraphFormat format, const BuildOptions& options, std::uint64_t final_bytes,
                  std::uint64_t allowed) {
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    int code = 3;
    try {
      runtime::ThreadPool pool(runtime::PoolOptions{.threads = 2});
      // Workers' malloc arenas are reserved before the limit, as a running program's are.
      pool.parallel_for(0, 1024, [](std::uint64_t, std::uint64_t) { delete[] new char[1 << 20]; });
      const rlimit limit{status_bytes("VmSize:") + allowed, RLIM_INFINITY};
      if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(4);
      const CsrGraph loaded = load_graph(path, format, options, {}, pool);
      code = loaded.memory_report().total_bytes == final_bytes ? 0 : 5;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "load failed in the child: %s\n", e.what());
      code = 6;
    }
    ::_exit(code);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return false;
  if (WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "child exit %d: 3 setup, 4 setrlimit, 5 wrong size, 6 the load failed\n", WEXITSTATUS(status));
  }
  return WEXITSTATUS(status) == 0;
}

TEST(SgLoad, LoadsInAChildWhoseAddressSpaceIsALittleAboveTheFinalArrays) {
#if defined(SMARTARRAYS_TEST_TSAN)
  // ThreadSanitizer cannot start threads in a child forked from a threaded process, and its
  // shadow memory makes an address-space limit meaningless; the plain and ASan runs check this.
  GTEST_SKIP() << "the forked memory-limit check does not run under ThreadSanitizer";
#endif
  const ScratchDir dir;
  const std::string path = dir.file("limit.sg");
  const CsrGraph graph = rmat_graph(17, true);
  write_gap_sg(graph, path);
  BuildOptions options;
  options.layout = GraphLayout::for_variant(Variant::U);
  const std::uint64_t final_bytes = general(path, options).memory_report().total_bytes;
  // What the loader may hold besides the arrays: 30% of them, plus a few MiB of batch buffers.
  const std::uint64_t headroom = final_bytes * 3 / 10 + (std::uint64_t{8} << 20);
  // The general path holds far more: the forward and reverse CSR in 64-bit vectors.
  ASSERT_GT(csr_build_bytes(graph.vertices(), graph.edges()), final_bytes + headroom);
  EXPECT_TRUE(loads_within(path, GraphFormat::gap_sg, options, final_bytes, final_bytes + headroom));
}

// Set by TextLoad's test in a process it starts from this binary: that process loads the file the
// variable names (as U, on two workers) before any test runs, writes "VmRSS-before VmHWM-after" in
// bytes on stdout and exits, so the peak is the load's own in a fresh address space (a forked
// child's heap, freed into by the tests before it, would hide allocations; a worker's reserved
// malloc arena hides them from an address-space limit).
constexpr const char* text_load_variable = "SMARTARRAYS_TEST_TEXT_LOAD";

const bool text_load_child = [] {
  const char* path = std::getenv(text_load_variable);
  if (path == nullptr) return false;
  int code = 0;
  try {
    runtime::ThreadPool pool(runtime::PoolOptions{.threads = 2});
    BuildOptions options;
    options.layout = GraphLayout::for_variant(Variant::U);
    const std::uint64_t before = status_bytes("VmRSS:");
    const CsrGraph loaded = load_graph(path, GraphFormat::edge_list, options, {}, pool);
    std::printf("%llu %llu\n", static_cast<unsigned long long>(before),
                static_cast<unsigned long long>(status_bytes("VmHWM:")));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "the text load failed: %s\n", e.what());
    code = 1;
  }
  std::fflush(stdout);
  std::_Exit(code);
}();

// How far a fresh process's resident memory rises while it loads the edge list at path (see
// text_load_variable), or none when the load fails.
std::optional<std::uint64_t> text_load_growth(const std::string& path) {
  const std::string command = std::string(text_load_variable) + "=" + path + " /proc/" + std::to_string(::getpid()) + "/exe";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  unsigned long long before = 0, peak = 0;
  const bool read = std::fscanf(pipe, "%llu %llu", &before, &peak) == 2;
  if (::pclose(pipe) != 0 || !read || peak < before) return std::nullopt;
  return peak - before;
}

TEST(TextLoad, PeaksAtNarrowBlocksAndANarrowForwardCsrNotAt64BitPairs) {
#if defined(SMARTARRAYS_TEST_TSAN) || defined(SMARTARRAYS_TEST_ASAN)
  // A sanitizer's shadow memory and quarantine of freed blocks make resident memory another measure.
  GTEST_SKIP() << "resident memory is not the load's under a sanitizer";
#endif
  ASSERT_FALSE(text_load_child);
  const ScratchDir dir;
  const std::string path = dir.file("limit.el");
  const CsrGraph graph = rmat_graph(18, true);
  write_edge_list(graph, path);
  std::ifstream file(path, std::ios::ate | std::ios::binary);
  const auto file_bytes = static_cast<std::uint64_t>(file.tellg());
  ASSERT_GE(file_bytes, std::uint64_t{4} << 20) << "the parallel reader's path";
  BuildOptions options;
  options.layout = GraphLayout::for_variant(Variant::U);
  const std::uint64_t final_bytes = build_csr(to_edge_list(graph), options).memory_report().total_bytes;
  const std::optional<std::uint64_t> growth = text_load_growth(path);
  ASSERT_TRUE(growth.has_value());
  // One line per undirected edge (the graph has no self-loops), each stored both ways.
  const std::uint64_t lines = graph.edges() / 2;
  const std::uint64_t offsets = 8 * (graph.vertices() + 1);
  // The read holds per-range blocks of 32-bit ids (8 bytes a line) and the ranges being parsed (a
  // range's file pages are dropped once parsed); the build holds the blocks, the offsets and their
  // cursors and the forward CSR's 32-bit ids while it places the edges, then those ids and the
  // arrays while it encodes.
  const std::uint64_t parse = 8 * lines + file_bytes / 2;
  const std::uint64_t place = 8 * lines + 2 * offsets + 4 * graph.edges();
  const std::uint64_t encode = 4 * graph.edges() + offsets + final_bytes;
  const std::uint64_t slack = std::uint64_t{4} << 20;
  // 64-bit pairs (16 bytes a line) or 64-bit staged ids (8 bytes a stored edge) need more than this.
  ASSERT_GT(std::min(8 * lines, 4 * graph.edges()), 2 * slack);
  EXPECT_LE(*growth, std::max({parse, place, encode}) + slack)
      << "file " << file_bytes << ", parse " << parse << ", place " << place << ", encode " << encode;
}

}  // namespace
}  // namespace smartarrays::graph
