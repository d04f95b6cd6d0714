// Tests the compact form on the command line as a user runs it: graph convert to and from .sa,
// graph info|degree|pagerank on a store mapped (the default) and loaded, a loaded graph whose ids
// lie past its vertex count, the flags that only fit compact files, and store
// list|info|verify|append with their JSON, exit codes and messages.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "smartarrays/graph/formats.hpp"
#include "smartarrays/store/store.hpp"
#include "support/graph_fixtures.hpp"
#include "support/run_cli.hpp"

namespace smartarrays {
namespace {

using test::cli;
using test::CliRun;
using test::has;

// A store holding tiny.el as "graph", written by graph convert.
std::string tiny_store(const test::ScratchDir& dir) {
  const std::string sa = dir.file("tiny.sa");
  const CliRun run = cli(dir, "graph convert " + test::graph_data("tiny.el") + " " + sa);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(has(run.out, "(compact)")) << run.out;
  return sa;
}

TEST(StoreCli, ConvertToAndFromTheCompactForm) {
  const test::ScratchDir dir;
  const std::string sa = tiny_store(dir);
  EXPECT_EQ(test::decode(graph::load_graph(sa, graph::GraphFormat::compact)), test::tiny_graph());
  const std::string sg = dir.file("back.sg"), other = dir.file("named.store");
  ASSERT_EQ(cli(dir, "graph convert " + sa + " " + sg).exit_code, 0);
  EXPECT_EQ(test::decode(graph::load_graph(sg, graph::GraphFormat::gap_sg)), test::tiny_graph());
  const CliRun to = cli(dir, "graph convert " + sg + " " + other + " --to compact");
  ASSERT_EQ(to.exit_code, 0) << to.err;
  EXPECT_EQ(test::decode(graph::load_graph(other, graph::GraphFormat::compact)), test::tiny_graph());
  const std::string gen = dir.file("gen.sa");
  ASSERT_EQ(cli(dir, "graph generate --scale 6 --quiet --output " + gen).exit_code, 0);
  EXPECT_EQ(graph::load_graph(gen, graph::GraphFormat::compact).vertices(), 64u);
}

TEST(StoreCli, GraphCommandsOpenAStoreMappedOrLoaded) {
  const test::ScratchDir dir;
  const std::string sa = tiny_store(dir);
  const CliRun mapped = cli(dir, "graph info " + sa + " --json -");
  ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
  const auto info = nlohmann::json::parse(mapped.out);
  EXPECT_EQ(info["vertices"], 6);
  ASSERT_EQ(info["variants"].size(), 1u);
  EXPECT_EQ(info["variants"][0]["variant"], "V+E");  // as stored: convert wrote minimum widths
  EXPECT_EQ(info["variants"][0]["memory"]["arrays"][0]["placement"], "os_default");
  const CliRun loaded = cli(dir, "graph info " + sa + " --load --placement interleaved --json -");
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_EQ(nlohmann::json::parse(loaded.out)["variants"][0]["memory"]["arrays"][0]["placement"], "interleaved");
  const CliRun rebuilt = cli(dir, "graph info " + sa + " --variant U,V --json -");
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_EQ(nlohmann::json::parse(rebuilt.out)["variants"].size(), 2u);
  const std::string ranks_el = dir.file("el.txt"), ranks_sa = dir.file("sa.txt"), ranks_load = dir.file("load.txt");
  ASSERT_EQ(cli(dir, "graph pagerank " + test::graph_data("tiny.el") + " --variant V+E --quiet --output " + ranks_el).exit_code, 0);
  ASSERT_EQ(cli(dir, "graph pagerank " + sa + " --quiet --output " + ranks_sa).exit_code, 0);
  ASSERT_EQ(cli(dir, "graph pagerank " + sa + " --mode load --quiet --output " + ranks_load).exit_code, 0);
  EXPECT_EQ(test::read_file(ranks_el), test::read_file(ranks_sa));
  EXPECT_EQ(test::read_file(ranks_el), test::read_file(ranks_load));
  const CliRun degree = cli(dir, "graph degree " + sa + " --quiet --top 1");
  ASSERT_EQ(degree.exit_code, 0) << degree.err;
  EXPECT_TRUE(has(degree.out, "V+E")) << degree.out;
}

// Its checksums are right, its ids are not (as a corrupt store's can be): mapped or loaded, it is
// refused before PageRank reads past its rank array (mapped, PageRank died with SIGSEGV); verify
// --deep names it too.
TEST(StoreCli, AGraphWithIdsPastItsVertexCountIsRefused) {
  const test::ScratchDir dir;
  const std::string sa = dir.file("bad.sa");
  auto values = [](std::vector<std::uint64_t> v, unsigned bits) {
    ArrayOptions options;
    options.bits = bits;
    return SmartArray::from_values(v, options);
  };
  store::Store::write(sa, {{"graph", graph::CsrGraph({values({0, 1, 2, 3}, 64), values({4294967295u, 2147483648u, 3000000000u}, 32),
                                                      values({0, 1, 2, 3}, 64), values({2, 0, 1}, 32)},
                                                     true)}});
  const std::string problem = "CSR bounds: neighbour id edge[0] = 4294967295 is not below the vertex count 3";
  for (const char* mode : {"load", "map"}) {
    const CliRun opened = cli(dir, "graph pagerank " + sa + " --mode " + mode + " --quiet");
    EXPECT_EQ(opened.exit_code, 1) << mode << "\n" << opened.err;
    EXPECT_TRUE(has(opened.err, "graph 'graph'") && has(opened.err, problem)) << mode << "\n" << opened.err;
  }
  const CliRun verified = cli(dir, "store verify " + sa + " --deep");
  EXPECT_EQ(verified.exit_code, 1) << verified.out << verified.err;
  EXPECT_TRUE(has(verified.out + verified.err, "4294967295")) << verified.out << verified.err;
}

TEST(StoreCli, CompactOnlyFlagsAreCheckedBeforeAnyWork) {
  const test::ScratchDir dir;
  const std::string sa = tiny_store(dir);
  const CliRun placement = cli(dir, "graph info " + sa + " --placement interleaved");
  EXPECT_EQ(placement.exit_code, 2);
  EXPECT_TRUE(has(placement.err, "--placement: a mapped compact graph stays in the file's pages")) << placement.err;
  const CliRun load_el = cli(dir, "graph info " + test::graph_data("tiny.el") + " --load");
  EXPECT_EQ(load_el.exit_code, 2);
  EXPECT_TRUE(has(load_el.err, "--mode/--load: only compact files")) << load_el.err;
  const CliRun object_el = cli(dir, "graph info " + test::graph_data("tiny.el") + " --object g");
  EXPECT_EQ(object_el.exit_code, 2);
  EXPECT_TRUE(has(object_el.err, "--object")) << object_el.err;
  const CliRun contradiction = cli(dir, "graph info " + sa + " --load --mode map");
  EXPECT_EQ(contradiction.exit_code, 2);
  EXPECT_TRUE(has(contradiction.err, "--load contradicts --mode map")) << contradiction.err;
  const CliRun bad_mode = cli(dir, "graph info " + sa + " --mode mmap");
  EXPECT_EQ(bad_mode.exit_code, 2);
  EXPECT_TRUE(has(bad_mode.err, "--mode")) << bad_mode.err;
  const CliRun undirected = cli(dir, "graph info " + sa + " --undirected");
  EXPECT_EQ(undirected.exit_code, 2);
  const CliRun missing = cli(dir, "graph info " + sa + " --object nothing");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(has(missing.err, "no object named 'nothing'")) << missing.err;
}

TEST(StoreCli, ListInfoVerifyAndAppend) {
  const test::ScratchDir dir;
  const std::string sa = tiny_store(dir);
  const CliRun appended = cli(dir, "store append " + sa + " " + test::graph_data("tiny.el") + " --name copy --variant U");
  ASSERT_EQ(appended.exit_code, 0) << appended.err;
  EXPECT_TRUE(has(appended.out, "appended copy")) << appended.out;
  const CliRun list = cli(dir, "store list " + sa);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(has(list.out, "graph: 6 vertices, 7 edges, directed, V+E")) << list.out;
  EXPECT_TRUE(has(list.out, "graph: 6 vertices, 7 edges, directed, U")) << list.out;
  const auto json = nlohmann::json::parse(cli(dir, "store list " + sa + " --json").out);
  EXPECT_EQ(json["format"], "smartarrays.store.list/1");
  ASSERT_EQ(json["objects"].size(), 2u);
  EXPECT_EQ(json["objects"][1]["name"], "copy");
  const auto info = nlohmann::json::parse(cli(dir, "store info " + sa + " --json").out);
  EXPECT_EQ(info["version"], 2);
  EXPECT_EQ(info["objects"][0]["blocks"].size(), 4u) << "begin, edge, rbegin, redge: out-degrees are derived";
  EXPECT_EQ(info["objects"][0]["blocks"][0]["offset"].get<std::uint64_t>() % 4096, 0u);
  const CliRun text_info = cli(dir, "store info " + sa);
  EXPECT_TRUE(has(text_info.out, "store format version 2")) << text_info.out;
  const CliRun verify = cli(dir, "store verify " + sa + " --deep");
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_TRUE(has(verify.out, ": ok (2 objects, 8 blocks")) << verify.out;
  // A second graph makes the name necessary.
  const CliRun ambiguous = cli(dir, "graph info " + sa);
  EXPECT_EQ(ambiguous.exit_code, 1);
  EXPECT_TRUE(has(ambiguous.err, "holds 2 graphs")) << ambiguous.err;
  EXPECT_EQ(cli(dir, "graph info " + sa + " --object copy").exit_code, 0);
  const CliRun again = cli(dir, "store append " + sa + " " + test::graph_data("tiny.el") + " --name copy");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(has(again.err, "--name: '" + sa + "' already holds an object named 'copy'; give another")) << again.err;
  // An empty name is a bad command line, not the default name in disguise.
  const CliRun empty = cli(dir, "store append " + sa + " " + test::graph_data("tiny.el") + " --name ''");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_TRUE(has(empty.err, "--name: expected a name, got ''")) << empty.err;
}

// What append would refuse once INPUT is read and built is refused first, naming the flag: INPUT
// here is /dev/zero, whose reading would fail on its own ("the line is longer than ...").
TEST(StoreCli, AppendChecksTheStoreAndTheNameBeforeReadingInput) {
  const test::ScratchDir dir;
  const std::string sa = tiny_store(dir);
  const auto append = [&](const std::string& store, const std::string& flags) {
    return cli(dir, "store append " + store + " /dev/zero --format el --quiet " + flags);
  };
  const CliRun control = append(sa, "--name \"$(printf 'a\\033b')\"");
  EXPECT_EQ(control.exit_code, 2);
  EXPECT_TRUE(has(control.err, "--name: 'a\\x1bb', which cannot name a store object (1..1024 bytes, no control byte)"))
      << control.err;
  const CliRun long_name = append(sa, "--name " + std::string(1025, 'n'));
  EXPECT_EQ(long_name.exit_code, 2);
  EXPECT_TRUE(has(long_name.err, "which cannot name a store object")) << long_name.err;
  EXPECT_EQ(append(sa, "--name " + std::string(1024, 'n')).exit_code, 1) << "a name at the limit passes; /dev/zero fails";
  const CliRun taken = append(sa, "--name graph");
  EXPECT_EQ(taken.exit_code, 2);
  EXPECT_TRUE(has(taken.err, "--name: '" + sa + "' already holds an object named 'graph'")) << taken.err;
  const CliRun missing = append(dir.file("none.sa"), "--name n");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(has(missing.err, "STORE: cannot open '" + dir.file("none.sa") + "': No such file or directory")) << missing.err;
  std::filesystem::copy_file(test::graph_data("tiny.el"), dir.file("text.el"));
  const CliRun not_store = append(dir.file("text.el"), "--name n");
  EXPECT_EQ(not_store.exit_code, 2);
  EXPECT_TRUE(has(not_store.err, "STORE: store: not a smartarrays store")) << not_store.err;
  // The default name, INPUT's stem, is held to the same rule.
  std::filesystem::copy_file(test::graph_data("tiny.el"), dir.file("x\001y.el"));
  const CliRun stem = cli(dir, "store append " + sa + " \"$(printf '" + dir.file("x\\001y.el") + "')\" --quiet");
  EXPECT_EQ(stem.exit_code, 2);
  EXPECT_TRUE(has(stem.err, "gives the name 'x\\x01y', which cannot name a store object")) << stem.err;
  // With everything right, /dev/zero is read and refused as before.
  const CliRun read = append(sa, "--name fresh");
  EXPECT_EQ(read.exit_code, 1);
  EXPECT_TRUE(has(read.err, "the line is longer than")) << read.err;
}

TEST(StoreCli, VerifyFindsACorruptBlock) {
  const test::ScratchDir dir;
  const std::string sa = tiny_store(dir);
  std::string bytes = test::read_file(sa);
  bytes[4096 + 3] = static_cast<char>(bytes[4096 + 3] ^ 0x10);  // inside the first block
  {
    std::ofstream out(sa, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  const CliRun verify = cli(dir, "store verify " + sa);
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_TRUE(has(verify.out, "problem: graph 'graph' array begin: checksum")) << verify.out;
  EXPECT_TRUE(has(verify.out, "CORRUPT")) << verify.out;
  const auto json = nlohmann::json::parse(cli(dir, "store verify " + sa + " --json").out);
  EXPECT_EQ(json["ok"], false);
  EXPECT_EQ(json["problems"].size(), 1u);
  const CliRun load = cli(dir, "graph info " + sa + " --load");
  EXPECT_EQ(load.exit_code, 1);
  EXPECT_TRUE(has(load.err, "the file is corrupt")) << load.err;
}

TEST(StoreCli, BadStoreCommandLines) {
  const test::ScratchDir dir;
  const CliRun none = cli(dir, "store list");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(has(none.err, "missing the store FILE")) << none.err;
  EXPECT_EQ(cli(dir, "store verify a.sa b.sa").exit_code, 2);
  EXPECT_EQ(cli(dir, "store").exit_code, 2);
  const CliRun append = cli(dir, "store append only.sa");
  EXPECT_EQ(append.exit_code, 2);
  EXPECT_TRUE(has(append.err, "expected the STORE file and the INPUT graph file")) << append.err;
  const CliRun not_store = cli(dir, "store info " + test::graph_data("tiny.el"));
  EXPECT_EQ(not_store.exit_code, 1);
  EXPECT_TRUE(has(not_store.err, "store")) << not_store.err;
  const CliRun help = cli(dir, "store --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(has(help.out, "verify")) << help.out;
}

}  // namespace
}  // namespace smartarrays
