// Tests `smartarrays advise` and `smartarrays calibrate` on the command line: the JSON keys tools
// rely on, the text sections, and bad flags exiting 2 naming the flag.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "adapt/profiles.hpp"
#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/adapt/machine_profile.hpp"
#include "smartarrays/adapt/workload.hpp"
#include "support/graph_fixtures.hpp"
#include "support/run_cli.hpp"

namespace smartarrays::adapt {
namespace {

// Per-test file names: ctest runs the tests of this file in parallel processes.
std::string test_file(const char* suffix) {
  return ::testing::TempDir() + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + suffix;
}

std::string machine_file() {
  const std::string path = test_file("-two-node.json");
  write_machine_profile(test::machine(2, 4, 40, 10, 4e9), path);
  return path;
}

TEST(AdviseCli, JsonHasTheChoiceCandidatesAndExplanation) {
  const test::CliRun r = test::run_cli(
      "advise --workload aggregate --length 64M --bits 33 --threads 8 --hints passes=20 --machine " + machine_file() +
          " --json -",
      test_file(".err"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "smartarrays.advice/1");
  EXPECT_EQ(j["choice"]["placement"], "replicated");
  EXPECT_EQ(j["choice"]["bits"], 33);
  ASSERT_FALSE(j["candidates"].empty());
  for (const auto& c : j["candidates"]) {
    EXPECT_TRUE(c.contains("placement") && c.contains("bits") && c.contains("predicted_s")) << c;
  }
  ASSERT_FALSE(j["explanation"].empty());
  EXPECT_EQ(j["explanation"][0]["rule"], "read_only");
  EXPECT_EQ(j["workload"]["format"], "smartarrays.workload/1");
}

TEST(AdviseCli, TextNamesTheChoiceAndEveryRule) {
  const test::CliRun r = test::run_cli(
      "advise --workload pagerank --length 1M --edges 16M --machine " + machine_file(), test_file(".err"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"choice:", "candidates (predicted):", "explanation:", "redge [compressed] compression_possible",
                           "ranks [uncompressed] fixed", "decided in"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
}

TEST(AdviseCli, BadFlagsExitTwoNamingTheFlag) {
  const std::string err = test_file(".err");
  test::CliRun r = test::run_cli("advise --length 10", err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--workload"), std::string::npos) << r.err;
  r = test::run_cli("advise --workload sort --length 10", err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown workload 'sort'"), std::string::npos) << r.err;
  r = test::run_cli("advise --workload pagerank --length 10", err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--edges"), std::string::npos) << r.err;
  r = test::run_cli("advise --workload aggregate --length 10 --hints passes=-1", err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--hints"), std::string::npos) << r.err;
  r = test::run_cli("advise --workload aggregate --length 10 --machine /nonexistent.json", err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent.json"), std::string::npos) << r.err;
}

// --measure builds the workload's arrays: more than the machine's memory is refused before
// anything is built, naming where the sizes came from; a pagerank profile's passes must be an
// iteration count.
TEST(AdviseCli, MeasureChecksTheWorkloadBeforeRunningIt) {
  const std::string err = test_file(".err");
  test::CliRun r = test::run_cli("advise --workload aggregate --length 1024G --measure", err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--length: measuring the workload holds its arrays at their natural widths: at least 17592186044416 bytes, "
                       "more than the machine's"),
            std::string::npos)
      << r.err;
  const std::string big = test_file("-big.json");
  adapt::write_workload_profile(adapt::aggregate_workload(std::uint64_t{1} << 44, 64, 1), big);
  r = test::run_cli("advise --profile " + big + " --measure", err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--profile: measuring the workload"), std::string::npos) << r.err;
  adapt::WorkloadProfile pagerank = adapt::pagerank_workload(1024, 16384, 1, 15);
  for (adapt::ArrayUse& a : pagerank.arrays) a.hints.passes = 1e20;
  const std::string forever = test_file("-forever.json");
  adapt::write_workload_profile(pagerank, forever);
  r = test::run_cli("advise --profile " + forever + " --measure", err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("arrays[0].passes: a pagerank workload runs its passes as iterations"), std::string::npos) << r.err;
  r = test::run_cli("advise --workload aggregate --length 1M --hints passes=1e305", err);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("1e+305 passes over 1048576 values are more accesses than the model can time"), std::string::npos)
      << r.err;
}

TEST(AdviseCli, AMachineFileWithABadFieldIsRefusedNamingIt) {
  const std::string path = test_file("-bad.json");
  std::string text = to_json(test::machine(1, 2, 10, 10));
  text.replace(text.find("\"read_gbs\""), 10, "\"read_gbz\"");
  {
    std::ofstream out(path);
    out << text;
  }
  const test::CliRun r =
      test::run_cli("advise --workload aggregate --length 10 --machine " + path, test_file(".err"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("model.read_gbs: missing"), std::string::npos) << r.err;
}

// Profiles the model cannot answer with are refused naming the field, where advise printed
// "fits in 0.00 MiB free", -nan ms, 0.000 ms for every candidate or times of 300 digits.
TEST(AdviseCli, ADegenerateMachineFileIsRefusedNamingTheField) {
  const nlohmann::json good = nlohmann::json::parse(to_json(test::machine(2, 4, 40, 10)));
  const std::string path = test_file("-degenerate.json");
  const std::pair<std::function<void(nlohmann::json&)>, std::string> cases[] = {
      {[](nlohmann::json& j) {
         for (auto& n : j["model"]["nodes"]) n["memory_bytes"] = n["memory_free_bytes"] = 0;
       },
       "model.nodes: expected a node with memory_bytes > 0"},
      {[](nlohmann::json& j) { j["model"]["copy_gbs"][0] = 5e-324; },
       "model.copy_gbs[0]: expected a number in 0.001..100000, got '5e-324'"},
      {[](nlohmann::json& j) { j["model"]["read_gbs"] = {{1e308, 1e308}, {1e308, 1e308}}; },
       "model.read_gbs[0][0]: expected a number in 0.001..100000, got '1e+308'"},
      {[](nlohmann::json& j) { j["model"]["read_gbs_1t"] = {{1e-300, 1e-300}, {1e-300, 1e-300}}; },
       "model.read_gbs_1t[0][0]: expected a number in 0.001..100000, got '1e-300'"},
  };
  for (const auto& [edit, why] : cases) {
    nlohmann::json bad = good;
    edit(bad);
    {
      std::ofstream out(path);
      out << bad.dump();
    }
    const test::CliRun r = test::run_cli(
        "advise --workload aggregate --length 64M --bits 33 --hints read_only=true,passes=20 --machine " + path,
        test_file(".err"));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find(path + ": " + why), std::string::npos) << r.err;
  }
  std::filesystem::remove(path);
}

// A machine file of the size cap is parsed to its end and refused by what it holds: 16 MiB of empty
// objects took over 12 minutes and ignored SIGTERM, the parser being quadratic in them.
TEST(AdviseCli, AMachineFileOfTheSizeCapIsParsedAndRefused) {
  const std::string path = test_file("-objects.json");
  {
    std::ofstream out(path);
    out << "[{}";
    for (std::size_t size = 3; size + 4 <= std::size_t{16} << 20; size += 3) out << ",{}";
    out << "]";
  }
  const test::CliRun r = test::run_cli("advise --workload aggregate --length 10 --machine " + path, test_file(".err"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(path + ": document: expected an object, got '[{...},{...},"), std::string::npos) << r.err;
  std::filesystem::remove(path);
}

// Profiles are read through the one open of every path: the reason a file cannot be opened is
// named (it said only "cannot read"), a FIFO given as --profile is waited on until Ctrl-C, which
// exits 130 (it was exit 1, "cannot read"), and a FIFO in the cache's place is refused at once
// (every auto choice waited on it for a writer).
TEST(AdviseCli, ProfilesAreOpenedAsEveryPathIs) {
  const test::CliRun missing = test::run_cli("advise --profile " + test_file("-missing.json"), test_file(".err"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("-missing.json': No such file or directory"), std::string::npos) << missing.err;

  const std::string fifo = test_file("-profile.fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto begun = std::chrono::steady_clock::now();
  const test::InterruptedRun waited = test::interrupt_cli({"advise", "--profile", fifo}, test_file(".fifo.err"), [&] {
    return std::chrono::steady_clock::now() - begun > std::chrono::seconds(1);  // the open is waiting by then
  });
  ASSERT_TRUE(waited.status.has_value()) << "still waiting a minute after SIGINT";
  EXPECT_TRUE(WIFEXITED(*waited.status) && WEXITSTATUS(*waited.status) == 130) << *waited.status << " " << waited.err;
  EXPECT_NE(waited.err.find("smartarrays: advise: interrupted"), std::string::npos) << waited.err;

  const std::string cache = test_file("-fifo-cache");
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  const std::string cached = cached_profile_path();
  ::unsetenv("XDG_CACHE_HOME");
  std::filesystem::create_directories(std::filesystem::path(cached).parent_path());
  std::filesystem::remove(cached);
  ASSERT_EQ(::mkfifo(cached.c_str(), 0600), 0);
  const test::CliRun refused = test::run_cli("advise --workload aggregate --length 10", test_file(".cache.err"),
                                             "XDG_CACHE_HOME=" + cache + " timeout 60");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("the cached machine profile is damaged: '" + cached + "' is not a regular file"),
            std::string::npos)
      << refused.err;
  std::filesystem::remove_all(cache);
  std::filesystem::remove(fifo);
}

// The placements "adaptive choice (...): a=p,b=q; bits ..." names on stderr, by array.
std::map<std::string, std::string> decided_placements(const std::string& err) {
  const std::string marker = "adaptive choice (";
  const std::size_t line = err.find(marker);
  std::map<std::string, std::string> decided;
  if (line == std::string::npos) return decided;
  std::size_t at = err.find("): ", line) + 3;
  const std::size_t end = err.find(';', at);
  while (at < end) {
    const std::size_t eq = err.find('=', at);
    const std::size_t next = std::min(err.find(',', eq), end);
    decided[err.substr(at, eq - at)] = err.substr(eq + 1, next - eq - 1);
    at = next + 1;
  }
  return decided;
}

// graph pagerank --variant auto --placement auto: every array the decision names is placed as decided,
// the contributions PageRank allocates too, and the run takes the decided threads and pinning unless
// --threads / --pinning name them. Two fake nodes and no cached profile (an empty cache
// directory): the estimated profile binds small arrays to one node, where the default would not.
TEST(AdviseCli, AdaptivePageRankPlacesEveryDecidedArrayAndRunsOnTheDecidedThreads) {
  const std::string cache = test_file("-cache");
  const test::CliRun r = test::run_cli(
      "graph pagerank " + test::graph_data("tiny.el") + " --variant auto --placement auto --max-iterations 2 --json -",
      test_file(".err"), "SMARTARRAYS_TOPOLOGY=nodes=2 XDG_CACHE_HOME=" + cache);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), 1u);
  std::map<std::string, std::string> placed;
  for (const auto& a : j["runs"][0]["memory"]["arrays"]) placed[a["name"]] = a["placement"];
  const std::map<std::string, std::string> decided = decided_placements(r.err);
  ASSERT_TRUE(decided.count("contributions")) << "the decision names the contributions PageRank allocates: " << r.err;
  bool bound = false;
  for (const auto& [name, placement] : decided) {
    EXPECT_EQ(placed[name], placement) << name << "\n" << r.err;
    bound = bound || placement == "single_node";
  }
  EXPECT_TRUE(bound) << "some array is bound to one node, where the default would interleave it: " << r.err;
  EXPECT_EQ(placed["ranks"], "interleaved") << "an output array keeps its fixed placement";
  // No --threads and no --pinning: both are decided, and the run uses them.
  EXPECT_NE(r.err.find("[threads] fewest_threads_near_fastest"), std::string::npos) << r.err;
  EXPECT_EQ(j["threads"], 2) << "the fewest within 2% on two fake nodes of one CPU each";
  EXPECT_NE(r.err.find("[threads] pinning"), std::string::npos) << r.err;
  const test::CliRun given = test::run_cli(
      "graph pagerank " + test::graph_data("tiny.el") +
          " --variant auto --placement auto --max-iterations 2 --threads 1 --pinning sparse --json -",
      test_file(".err"), "SMARTARRAYS_TOPOLOGY=nodes=2 XDG_CACHE_HOME=" + cache);
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_EQ(nlohmann::json::parse(given.out)["threads"], 1);
  EXPECT_NE(given.err.find("[threads] threads_given"), std::string::npos) << given.err;
  EXPECT_NE(given.err.find("1 threads, sparse pinning"), std::string::npos) << "--pinning wins: " << given.err;
}

// bench aggregate --placement auto runs each width on the threads and pinning the decision picks
// unless --threads names them.
TEST(AdviseCli, AdaptiveAggregationRunsOnTheDecidedThreadsUnlessGiven) {
  const std::string cache = test_file("-agg-cache");
  const std::string env = "SMARTARRAYS_TOPOLOGY=nodes=2 XDG_CACHE_HOME=" + cache;
  const std::string args = "bench aggregate --size 64K --bits 10,64 --placement auto --repetitions 1 --warmup 0 --json -";
  const test::CliRun r = test::run_cli(args, test_file(".agg.err"), env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["results"].size(), 2u) << r.out;
  for (const auto& cell : j["results"]) {
    EXPECT_TRUE(cell["decision"]["threads_decided"].get<bool>()) << cell.dump();
    EXPECT_EQ(cell["threads"], cell["decision"]["threads"]) << cell.dump();
  }
  const test::CliRun given = test::run_cli(args + " --threads 1", test_file(".agg.err"), env);
  ASSERT_EQ(given.exit_code, 0) << given.err;
  const nlohmann::json given_json = nlohmann::json::parse(given.out);
  for (const auto& cell : given_json["results"]) {
    EXPECT_EQ(cell["threads"], 1) << cell.dump();
    EXPECT_FALSE(cell["decision"]["threads_decided"].get<bool>()) << cell.dump();
  }
}

}  // namespace
}  // namespace smartarrays::adapt
