// Tests CommandTree::applies_only: a flag given where the chosen mode would ignore it is a bad
// command line (exit 2, the flag named), for the mechanism on a small tree and for every command
// that has such flags; the same flag where it applies still parses. Parse only: nothing runs.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"

namespace smartarrays::cli {
namespace {

struct Parsed {
  std::optional<int> exit_code;  // empty: the command line is good and the command would run
  std::string err;
};

// Parses "smartarrays " + words (split at spaces) with tree, whose output is captured.
Parsed parse(CommandTree& tree, const std::string& words) {
  std::vector<std::string> args{"smartarrays"};
  std::istringstream split(words);
  for (std::string word; split >> word;) args.push_back(word);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  tree.streams(out, err);
  Parsed parsed;
  parsed.exit_code = tree.parse(static_cast<int>(argv.size()), argv.data());
  parsed.err = err.str();
  return parsed;
}

struct Shape {
  std::string kind = "a";
  int size = 0;
};

// A command `make` with --kind a|b and --size, which applies only to --kind b.
std::unique_ptr<CommandTree> small_tree(const std::shared_ptr<Shape>& shape) {
  auto tree = std::make_unique<CommandTree>("usage: smartarrays COMMAND\n", "");
  CLI::App& make = tree->add(tree->root(), "make", "usage: smartarrays make [options]\n", [] { return 0; });
  tree->define(make, [shape](CLI::App& app) {
    add_value<std::string>(app, "--kind", "K", shape->kind, [](const std::string& s) { return s; }, "a or b");
    add_value(app, "--size", "N", shape->size, whole_number<int>(0, 100), "b: the size");
  });
  tree->applies_only(make, {"--size"}, "to --kind b", [shape] { return shape->kind == "b"; });
  return tree;
}

TEST(FlagScopes, AFlagOutsideItsScopeIsABadCommandLineNamingIt) {
  const auto shape = std::make_shared<Shape>();
  const auto tree = small_tree(shape);
  const Parsed outside = parse(*tree, "make --kind a --size 3");
  EXPECT_EQ(outside.exit_code, exit_usage);
  EXPECT_EQ(outside.err, "smartarrays: make: --size applies only to --kind b (see 'smartarrays make --help')\n");
}

TEST(FlagScopes, TheFlagParsesInsideItsScopeAndTheScopeIsJudgedAfterTheWholeLine) {
  const auto shape = std::make_shared<Shape>();
  const auto tree = small_tree(shape);
  // --kind after --size: the condition reads the parsed line, not the flags seen so far.
  const Parsed inside = parse(*tree, "make --size 3 --kind b");
  EXPECT_EQ(inside.exit_code, std::nullopt) << inside.err;
  EXPECT_EQ(shape->size, 3);
}

TEST(FlagScopes, AScopeWithoutItsFlagsGivenIsNoError) {
  const auto shape = std::make_shared<Shape>();
  const auto tree = small_tree(shape);
  const Parsed without = parse(*tree, "make --kind a");
  EXPECT_EQ(without.exit_code, std::nullopt) << without.err;
}

// Each command line gives a flag its mode ignores; the message names the flag and the condition.
TEST(FlagScopes, EveryCommandRefusesTheFlagsItsModeWouldIgnore) {
  const struct {
    const char* line;
    const char* message;
  } cases[] = {
      {"graph generate --output x.sg --kind uniform --scale 5", "--scale applies only to --kind rmat"},
      {"graph generate --output x.sg --kind uniform --edge-factor 4", "--edge-factor applies only to --kind rmat"},
      {"graph generate --output x.sg --kind uniform --no-scramble", "--no-scramble applies only to --kind rmat"},
      {"graph generate --output x.sg --vertices 1K", "--vertices applies only to --kind uniform"},
      {"graph generate --output x.sg --kind rmat --degree 3", "--degree applies only to --kind uniform"},
      {"advise --workload aggregate --length 1M --edges 5M", "--edges applies only to --workload degree and pagerank"},
      {"advise --workload degree --length 1M --edges 5M --iterations 3", "--iterations applies only to --workload pagerank"},
      {"advise --profile w.json --length 1M", "--length applies only without --profile"},
      {"advise --profile w.json --hints passes=2", "--hints applies only without --profile"},
      {"bench workload w3 --records 1K --groups 5", "--groups applies only to w1 and w2"},
      {"bench workload map --records 1K --dataset zipf", "--dataset applies only to w1 and w2"},
      {"bench workload w2 --records 1K --groups 5 --join-ratio 3", "--join-ratio applies only to w3, w4 and map"},
      {"bench workload w1 --records 1K --groups 5 --write-npy d --repetitions 2",
       "--repetitions applies only without --write-npy"},
      {"bench adaptivity --workloads degree --widths 10", "--widths applies only when --workloads includes aggregate"},
      {"bench adaptivity --workloads aggregate --vertices 1K",
       "--vertices applies only when --workloads includes degree or pagerank"},
      {"bench adaptivity --workloads degree --iterations 4", "--iterations applies only when --workloads includes pagerank"},
      {"bench aggregate --size 1K --placement interleaved --node 0", "--node applies only when --placement includes single_node"},
      // --placement auto decides every array's node and huge pages: before, these were dropped without a word.
      {"bench aggregate --size 1K --placement auto --node 0", "--node applies only when --placement includes single_node"},
      {"bench aggregate --size 1K --placement auto --huge-pages 2M",
       "--huge-pages applies only without --placement auto (the adaptive choice picks huge pages)"},
      {"bench aggregate --size 1K --placement auto,single_node --node 0",
       "auto is the adaptive choice of every array's placement; it cannot be listed with 'single_node'"},
      {"graph pagerank x.el --node 0", "--node applies only to single_node placements"},
      {"graph degree x.el --placement interleaved --node 0", "--node applies only to single_node placements"},
      {"graph info x.el --placement auto --node 0", "--node applies only to single_node placements"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    const auto tree = make_command_tree();
    const Parsed parsed = parse(*tree, c.line);
    EXPECT_EQ(parsed.exit_code, exit_usage) << parsed.err;
    EXPECT_NE(parsed.err.find(c.message), std::string::npos) << parsed.err;
  }
}

// The same flags where they apply: the command line is good.
TEST(FlagScopes, TheSameFlagsParseWhereTheyApply) {
  const char* const lines[] = {
      "graph generate --output x.sg --kind rmat --scale 5 --edge-factor 4 --no-scramble",
      "graph generate --output x.sg --kind uniform --vertices 1K --degree 3",
      "advise --workload pagerank --length 1M --edges 5M --iterations 3",
      "advise --workload degree --length 1M --edges 5M --hints passes=2",
      "bench workload w2 --records 1K --groups 5 --dataset zipf",
      "bench workload w4 --records 1K --join-ratio 3",
      "bench workload w1 --records 1K --groups 5 --write-npy d --seed 3",
      "bench adaptivity --workloads aggregate,pagerank --widths 10 --size 1K --vertices 1K --degree 2 --iterations 4",
      "bench aggregate --size 1K --placement interleaved,single_node --node 0",
      "bench aggregate --size 1K --placement interleaved --huge-pages 2M",
      "bench aggregate --size 1K --placement auto --bits auto,10",
      "graph pagerank x.el --placement single_node --node 0",
      "graph degree x.el --placement interleaved,edge=single_node --node 0",
  };
  for (const char* line : lines) {
    SCOPED_TRACE(line);
    const auto tree = make_command_tree();
    const Parsed parsed = parse(*tree, line);
    EXPECT_EQ(parsed.exit_code, std::nullopt) << parsed.err;
  }
}

}  // namespace
}  // namespace smartarrays::cli
