// Tests of `smartarrays tune` as a user runs it: a small grid over a quick command, its table, JSON
// and ready `smartarrays run` line; a command that crashes, hangs past --timeout or prints no metric
// is reported and never hangs the tool; progress in a log; Ctrl-C exits 130; bad flags exit 2
// naming the flag.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/run_cli.hpp"

namespace {

using smartarrays::test::CliRun;

std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("smartarrays-tune-test-" + std::to_string(::getpid()) + name)).string();
}

CliRun run(const std::string& args) { return smartarrays::test::run_cli(args, temp(".err")); }

const std::string small_grid = "tune --quiet --repetitions 2 --allocators glibc,jemalloc --policies first-touch "
                               "--pinnings dense --thp off ";

TEST(TuneCommand, RanksTheGridAndEndsWithAReadyRunLine) {
  const std::string json = temp(".json");
  const CliRun r = run(small_grid + "--json " + json + " -- sh -c 'echo ok'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("system: THP "), std::string::npos);
  EXPECT_NE(r.out.find("default (glibc, nothing changed)"), std::string::npos);
  EXPECT_NE(r.out.find("jemalloc first-touch dense thp=off"), std::string::npos);
  EXPECT_NE(r.out.find("best: smartarrays run "), std::string::npos);
  EXPECT_NE(r.out.find("-- sh -c 'echo ok'"), std::string::npos);
  const std::string doc = smartarrays::test::read_file(json);
  EXPECT_NE(doc.find("\"format\": \"smartarrays.tune/1\""), std::string::npos);
  EXPECT_NE(doc.find("\"run_flags\": \"--allocator jemalloc --policy first-touch --pinning dense --thp off\""),
            std::string::npos);
  std::filesystem::remove(json);
}

TEST(TuneCommand, APlotIsDrawnOrSkippedWithTheReasonNeverAFailure) {
  const std::string figure = temp(".png");
  const CliRun r = run(small_grid + "--plot " + figure + " -- true");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const bool drawn = r.out.find("figure: " + figure) != std::string::npos && std::filesystem::exists(figure);
  const bool skipped = r.out.find("plot skipped: ") != std::string::npos;
  EXPECT_TRUE(drawn != skipped) << r.out;
  EXPECT_TRUE(std::filesystem::exists(figure + ".json"));
  std::filesystem::remove(figure);
  std::filesystem::remove(figure + ".json");
}

TEST(TuneCommand, AMetricFromStdoutReplacesTheWallTime) {
  const CliRun r = run(small_grid + "--metric 'rate ([0-9]+)' --maximize -- sh -c 'echo rate 42'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("42.0000"), std::string::npos) << r.out;
}

TEST(TuneCommand, CpuTimeReplacesTheWallTimeOfACommandThatWaits) {
  // sleep waits 0.3 s of wall time and uses almost no CPU: the values are its CPU seconds.
  const std::string json = temp("-cpu.json");
  const CliRun r = run(small_grid + "--cpu-time --json " + json + " -- sleep 0.3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("median cpu_seconds"), std::string::npos) << r.out;
  const std::string doc = smartarrays::test::read_file(json);
  EXPECT_NE(doc.find("\"value\": \"cpu_seconds\""), std::string::npos) << doc;
  const auto median = doc.find("\"median_s\": ");
  ASSERT_NE(median, std::string::npos) << doc;
  EXPECT_LT(std::stod(doc.substr(median + 12)), 0.2) << doc;
  std::filesystem::remove(json);
  const CliRun both = run(small_grid + "--cpu-time --metric 'x' -- true");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--cpu-time and --metric exclude each other"), std::string::npos) << both.err;
  const CliRun larger_time = run(small_grid + "--maximize -- true");
  EXPECT_EQ(larger_time.exit_code, 2);
  EXPECT_NE(larger_time.err.find("--maximize applies only with --metric"), std::string::npos) << larger_time.err;
}

TEST(TuneCommand, CrashesHangsAndMissingMetricsAreReportedNotWaitedFor) {
  // The warm-up runs the default; a command that fails bare stops the tool (exit 1) with the reason.
  CliRun r = run(small_grid + "-- sh -c 'kill -SEGV $$'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the command fails without any knob (warm-up): signal 11"), std::string::npos) << r.err;
  r = run(small_grid + "--timeout 0.3 -- sleep 30");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("timed out after 0.3 s"), std::string::npos) << r.err;
  r = run(small_grid + "--metric 'rate ([0-9]+)' -- true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no metric"), std::string::npos) << r.err;
  // Without a warm-up, failures are rows of the table; when every configuration failed there is no
  // answer, and the command fails (it exited 0).
  r = run(small_grid + "--warmup 0 --timeout 0.3 -- sleep 30");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("timed out after"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no configuration ran without a failure"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("smartarrays: tune: every configuration failed (the table's status column says how)"),
            std::string::npos)
      << r.err;
}

// The child is measured, not its descendants: a process it leaves running with its stdout (a
// daemon) kept the command reading until that process ended, for ever without --timeout.
TEST(TuneCommand, ADescendantHoldingStdoutIsNotWaitedFor) {
  const std::string daemons = temp("-daemons.pid");
  const CliRun r = smartarrays::test::run_cli(
      "tune --quiet --warmup 0 --repetitions 1 --allocators glibc --policies first-touch --pinnings none --thp on "
      "--metric 'rate ([0-9]+)' -- sh -c 'sleep 300 & echo $! >> " + daemons + "; echo rate 7'",
      temp(".err"), "timeout 120");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("best: smartarrays run"), std::string::npos) << r.out;
  std::ifstream pids(daemons);
  int started = 0;
  for (pid_t pid = 0; pids >> pid; ++started) ::kill(pid, SIGKILL);
  EXPECT_EQ(started, 2) << "each run starts its daemon";
  std::filesystem::remove(daemons);
}

TEST(TuneCommand, ABudgetKeepsTheDefaultAndTheMostPromisingConfigurations) {
  // The warm-up run takes about 0.1 s, so a 0.25 s budget over 2 repetitions keeps one point: the default.
  const CliRun r = run("tune --quiet --repetitions 2 --allocators glibc,tbbmalloc --policies first-touch "
                       "--pinnings dense --thp on,off --budget 0.25 -- sleep 0.1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(cut by --budget, most promising first)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("grid: 1 of 5 configurations"), std::string::npos) << r.out;
}

TEST(TuneCommand, ProgressInALogIsOneLinePerFinishedRunWithTheTimeLeft) {
  // stderr is a file here, not a terminal: 3 configurations x 2 runs give 6 lines.
  const CliRun r = run("tune --repetitions 2 --allocators glibc,jemalloc --policies first-touch --pinnings dense "
                       "--thp off -- true");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tune: warm-up\n"), std::string::npos) << r.err;
  for (int k = 1; k <= 6; ++k) {
    EXPECT_NE(r.err.find("tune: run " + std::to_string(k) + "/6 done  "), std::string::npos) << r.err;
  }
  EXPECT_EQ(r.err.find("tune: run 7/6"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" left\ntune: 6 runs in "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

TEST(TuneCommand, CtrlCKillsTheRunningChildAndExits130) {
  const std::string err = temp("-int.err"), marker = temp("-int.started");
  // Once the grid's child runs (it made the marker), interrupt the command; the child has its own
  // process group, so only the command gets the signal.
  const smartarrays::test::InterruptedRun run = smartarrays::test::interrupt_cli(
      {"tune", "--warmup", "0", "--repetitions", "1", "--allocators", "glibc", "--policies", "first-touch", "--pinnings",
       "none", "--thp", "on", "--", "sh", "-c", "touch " + marker + "; exec sleep 60"},
      err, [&] { return std::filesystem::exists(marker); });
  EXPECT_TRUE(run.started) << run.err;
  ASSERT_TRUE(run.status) << "still running a minute after SIGINT";
  ASSERT_TRUE(WIFEXITED(*run.status)) << "killed by signal " << WTERMSIG(*run.status);
  EXPECT_EQ(WEXITSTATUS(*run.status), 130) << run.err;
  EXPECT_NE(run.err.find("smartarrays: tune: interrupted"), std::string::npos) << run.err;
  std::filesystem::remove(err);
  std::filesystem::remove(marker);
}

TEST(TuneCommand, BadFlagsExitTwoNamingTheFlag) {
  const std::map<std::string, std::string> cases = {
      {"tune -- ", "no command to run"},
      {"tune --allocators hoard -- true", "--allocators: unknown allocator 'hoard'"},
      {"tune --policies first-touch,bind=7 -- true", "--policies: node 7 does not exist"},
      {"tune --pinnings wide -- true", "--pinnings: unknown pinning policy 'wide'"},
      {"tune --thp on,maybe -- true", "--thp: unknown setting 'maybe'"},
      {"tune --repetitions 0 -- true", "--repetitions: expected a whole number from 1 to 1000"},
      {"tune --metric '(' -- true", "--metric: '(' is not a regular expression"},
      {"tune --timeout -1 -- true", "--timeout: expected 0 (no limit) to 10000000 seconds"},
      {"tune --timeout 1e300 -- true", "--timeout: expected 0 (no limit) to 10000000 seconds"},
      {"tune --budget x -- true", "--budget: expected a finite number"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
