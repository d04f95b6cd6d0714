// Tests `smartarrays bench adaptivity` as a user runs it: a whole small evaluation from a machine
// profile file, with its table and JSON, and Ctrl-C stopping one cleanly with no JSON written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <set>
#include <string>

#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/adapt/machine_profile.hpp"
#include "support/graph_fixtures.hpp"
#include "support/run_cli.hpp"

namespace smartarrays {
namespace {

using test::has;

// A machine profile file the commands decide with, so that nothing calibrates.
std::string machine_file(const test::ScratchDir& dir) {
  const std::string path = dir.file("machine.json");
  adapt::write_machine_profile(adapt::estimated_profile(), path);
  return path;
}

TEST(AdaptivityCli, ASmallEvaluationPrintsEveryCaseAndItsJson) {
  const test::ScratchDir dir;
  const std::string json_path = dir.file("adaptivity.json");
  const test::CliRun run = test::run_cli(
      "bench adaptivity --machine " + machine_file(dir) +
          " --size 64K --widths 10,64 --vertices 4K --degree 4 --iterations 1 --threads 1 --repetitions 1"
          " --min-seconds 0 --derived --quiet --json " + json_path,
      dir.file("stderr.txt"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(has(run.out, "cases: ")) << run.out;
  EXPECT_TRUE(has(run.out, "mean gain over the best static")) << run.out;
  EXPECT_TRUE(has(run.out, "results: " + json_path)) << run.out;
  EXPECT_EQ(run.err, "");

  const nlohmann::json doc = nlohmann::json::parse(test::read_file(json_path));
  EXPECT_EQ(doc["format"], "smartarrays.bench.adaptivity/1");
  // Aggregation at two widths, degree centrality and PageRank, on one thread, in three scenarios.
  ASSERT_EQ(doc["cases"].size(), 12u);
  std::set<std::string> workloads;
  std::size_t feasible = 0;
  for (const nlohmann::json& c : doc["cases"]) {
    workloads.insert(c["workload"].get<std::string>());
    EXPECT_EQ(c["threads"], 1);
    if (c["feasible"].get<bool>()) {
      ++feasible;
      EXPECT_FALSE(c["choice"].get<std::string>().empty()) << c.dump();
      EXPECT_GT(c["adaptive_s"].get<double>(), 0) << c.dump();
    }
  }
  EXPECT_EQ(workloads, (std::set<std::string>{"aggregate/10", "aggregate/64", "degree", "pagerank"}));
  EXPECT_EQ(doc["summary"]["cases"].get<std::size_t>(), feasible);
  EXPECT_EQ(doc["summary"]["cases"].get<std::size_t>() + doc["summary"]["not_applicable"].get<std::size_t>(), 12u);
}

TEST(AdaptivityCli, CtrlCStopsAnEvaluationCleanly) {
  const test::ScratchDir dir;
  const std::string err = dir.file("stderr.txt"), json_path = dir.file("adaptivity.json");
  // An hour per configuration: only the signal ends it. Once the log shows it at work (measuring
  // the first profile), interrupt it.
  const test::InterruptedRun run = test::interrupt_cli(
      {"bench", "adaptivity", "--machine", machine_file(dir), "--workloads", "aggregate", "--widths", "64", "--size",
       "1M", "--threads", "1", "--min-seconds", "3600", "--json", json_path},
      err, [&] { return has(test::read_file(err), "bench adaptivity: "); });
  EXPECT_TRUE(run.started) << run.err;
  ASSERT_TRUE(run.status) << "still running a minute after SIGINT";
  ASSERT_TRUE(WIFEXITED(*run.status)) << "killed by signal " << WTERMSIG(*run.status);
  EXPECT_EQ(WEXITSTATUS(*run.status), 130) << run.err;
  EXPECT_TRUE(has(run.err, "smartarrays: bench adaptivity: interrupted")) << run.err;
  EXPECT_FALSE(std::filesystem::exists(json_path));
}

}  // namespace
}  // namespace smartarrays
