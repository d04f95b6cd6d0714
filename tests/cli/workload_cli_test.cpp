// Tests `smartarrays bench workload` as a user runs it: every workload on small data with its JSON
// (both implementations agreeing, counts checked), the .npy dataset writer, Ctrl-C stopping a run
// cleanly, and the bad command lines that exit 2 naming the flag.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include "support/graph_fixtures.hpp"
#include "support/run_cli.hpp"

namespace smartarrays {
namespace {

using test::cli;
using test::CliRun;
using test::has;

TEST(WorkloadCli, EveryWorkloadRunsBothImplementations) {
  const test::ScratchDir dir;
  for (const std::string w : {"w1", "w2", "w3", "w4", "map"}) {
    const std::string json = dir.file(w + ".json");
    const bool join = w == "w3" || w == "w4" || w == "map";
    const std::string keys = join ? "" : " --groups 1K --dataset zipf";  // the group-by's flags
    const CliRun run =
        cli(dir, "bench workload " + w + " --records 64K" + keys + " --threads 2 --repetitions 1 --warmup 0 --quiet --json " + json);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(has(run.out, "classic") && has(run.out, "smart")) << run.out;
    const nlohmann::json doc = nlohmann::json::parse(test::read_file(json));
    EXPECT_EQ(doc["format"], "smartarrays.bench.workload/1");
    ASSERT_EQ(doc["results"].size(), 2u);
    EXPECT_EQ(doc["results"][0]["checksum"], doc["results"][1]["checksum"]);
    // Joins count |S| matches; the map's lookups sum R's rows of S's keys (both sides agree, above).
    if (w == "w3" || w == "w4") {
      EXPECT_EQ(doc["results"][1]["checksum"].get<std::uint64_t>(), 65536u);
    }
    if (w == "w4" || w == "map") {
      EXPECT_GT(doc["results"][1]["structure_bytes"].get<std::uint64_t>(), 0u);
    }
    EXPECT_EQ(doc["results"][1]["groups"].get<std::uint64_t>() > 0, !join);
  }
}

TEST(WorkloadCli, WritesTheDatasetAsNpy) {
  const test::ScratchDir dir;
  const std::string out = dir.file("data");
  const CliRun run = cli(dir, "bench workload w3 --records 1K --write-npy " + out);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(std::filesystem::file_size(out + "/probe.npy"), 128u + 8u * 1024u);
  EXPECT_EQ(std::filesystem::file_size(out + "/build.npy"), 128u + 8u * 64u);
  EXPECT_EQ(cli(dir, "bench workload w1 --records 1K --groups 10 --write-npy /proc/no/such/dir").exit_code, 1);
}

TEST(WorkloadCli, CtrlCStopsARunCleanly) {
  const test::ScratchDir dir;
  const std::string err = dir.file("stderr.txt");
  // Far more timed runs than could finish: only the signal ends it. Once it is past generating the
  // data (the progress log says so), interrupt it.
  const test::InterruptedRun run = test::interrupt_cli(
      {"bench", "workload", "w1", "--records", "1M", "--groups", "1K", "--threads", "2", "--warmup", "0",
       "--repetitions", "100000"},
      err, [&] { return has(test::read_file(err), "preparing"); });
  EXPECT_TRUE(run.started) << run.err;
  ASSERT_TRUE(run.status) << "still running a minute after SIGINT";
  ASSERT_TRUE(WIFEXITED(*run.status)) << "killed by signal " << WTERMSIG(*run.status);
  EXPECT_EQ(WEXITSTATUS(*run.status), 130);
  EXPECT_TRUE(has(run.err, "smartarrays: bench workload: interrupted")) << run.err;
}

TEST(WorkloadCli, BadCommandLinesNameTheFlag) {
  const test::ScratchDir dir;
  const struct {
    std::string args, message;
  } cases[] = {
      {"", "which workload?"},
      {"w9", "WORKLOAD: unknown workload 'w9'"},
      {"w1 --groups 0", "--groups"},
      {"w1 --records 10 --groups 11", "--groups: must be 1..records (10), got 11"},
      {"w3 --records 8", "--records: a join needs at least join_ratio (16) probe rows, got 8"},
      {"w1 --impl fast", "--impl"},
      {"w1 --dataset uniform", "--dataset"},
      {"w1 --placement everywhere", "--placement"},
      {"w1 --threads 0", "--threads"},
      {"w2 --records 1024G --groups 1K", "--records: 1099511627776 records need at least"},
  };
  for (const auto& c : cases) {
    const CliRun run = cli(dir, "bench workload " + c.args);
    EXPECT_EQ(run.exit_code, 2) << c.args;
    EXPECT_TRUE(has(run.err, c.message)) << c.args << ": " << run.err;
  }
}

}  // namespace
}  // namespace smartarrays
