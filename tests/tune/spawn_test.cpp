// Tests of one child run (spawn.hpp) for what it measures: the child itself, not the process that
// starts it (its resident memory) nor the processes the child starts (their hold on its stdout).
#include <gtest/gtest.h>
#include <signal.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "smartarrays/tune/launch.hpp"
#include "smartarrays/tune/spawn.hpp"

namespace {

using namespace smartarrays;

// A child's peak RSS is its own: forked from this process, `true` read as much as this process
// held (Linux counts the caller's resident memory at the fork into the child's ru_maxrss), which
// from a Python process holding 800 MB was 796 MB.
TEST(RunChild, ThePeakRssIsTheChildsOwnNotTheCallers) {
  const std::size_t held = std::size_t{512} << 20;
  const std::unique_ptr<char[]> memory(new char[held]);
  std::memset(memory.get(), 1, held);  // resident, every page touched
  const tune::ChildRun run = tune::run_child(tune::prepare_launch({}), {"true"}, 60, true);
  ASSERT_TRUE(run.succeeded()) << tune::describe_end(run, 60);
  EXPECT_GT(run.max_rss_kib, 0);
  EXPECT_LT(run.max_rss_kib, 32 * 1024) << "KiB; this process holds " << (held >> 10) << " KiB";
  EXPECT_EQ(memory[held - 1], 1);
}

// The child is measured, not its descendants: once it exits, what it wrote is read and a process it
// left running with its stdout open (a daemon) is not waited for; it was, until that process ended.
TEST(RunChild, ADescendantHoldingStdoutIsNotWaitedFor) {
  const std::string pid_file =
      (std::filesystem::temp_directory_path() / ("smartarrays-spawn-test-" + std::to_string(::getpid()))).string();
  const tune::ChildRun run = tune::run_child(
      tune::prepare_launch({}), {"sh", "-c", "sleep 300 & echo $! > " + pid_file + "; echo started; exit 3"}, 60, true);
  EXPECT_FALSE(run.timed_out) << "waited for the daemon";
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.output, "started\n");
  std::ifstream pids(pid_file);
  pid_t daemon = 0;
  ASSERT_TRUE(pids >> daemon);
  EXPECT_EQ(::kill(daemon, SIGKILL), 0) << "the daemon is left running";
  std::filesystem::remove(pid_file);
}

// A program that cannot be started is reported as before, through the launcher.
TEST(RunChild, AProgramThatCannotStartIsNamed) {
  const tune::ChildRun missing = tune::run_child(tune::prepare_launch({}), {"/nonexistent/program"}, 60, true);
  EXPECT_TRUE(missing.exec_failed);
  EXPECT_EQ(missing.output, "cannot run '/nonexistent/program': No such file or directory");
  const tune::ChildRun directory = tune::run_child(tune::prepare_launch({}), {"/"}, 60, true);
  EXPECT_TRUE(directory.exec_failed);
  EXPECT_EQ(directory.output, "cannot run '/': Permission denied");
}

// A program named through /proc/self is the caller's file, not the launcher's: the emulated-NUMA
// placement check runs itself as /proc/self/exe, and through the launcher it ran the launcher.
TEST(RunChild, AProgramNamedThroughProcSelfIsTheCallersOwn) {
  const tune::ChildRun run = tune::run_child(
      tune::prepare_launch({}), {"/proc/self/exe", "--gtest_list_tests", "--gtest_filter=RunChild.AProgramNamed*"}, 60, true);
  ASSERT_TRUE(run.succeeded()) << tune::describe_end(run, 60) << run.output;
  EXPECT_NE(run.output.find("AProgramNamedThroughProcSelfIsTheCallersOwn"), std::string::npos) << run.output;
}

}  // namespace
