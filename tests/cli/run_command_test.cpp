// Tests of `smartarrays run` as a user runs it: each knob checked from inside the launched program
// (the knob probe prints its memory policy, affinity, THP flag, allocator symbols and thread
// variables), on the real topology and a fake 2-node one; exit statuses and signals pass through;
// bad flags exit 2 naming the flag.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "smartarrays/tune/launch.hpp"
#include "support/run_cli.hpp"

namespace {

using smartarrays::test::CliRun;
namespace tune = smartarrays::tune;

CliRun run(const std::string& args, const std::string& env = "") {
  const std::string err = (std::filesystem::temp_directory_path() /
                           ("smartarrays-run-test-" + std::to_string(::getpid()) + ".err")).string();
  return smartarrays::test::run_cli(args, err, env);
}

// The probe's key=value lines under `smartarrays run KNOBS --`.
std::map<std::string, std::string> probe(const std::string& knobs, const std::string& env = "") {
  const CliRun r = run("run " + knobs + " -- " + SMARTARRAYS_KNOB_PROBE_PATH, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> values;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t equals = line.find('=');
    if (equals != std::string::npos) values[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return values;
}

TEST(RunCommand, WithoutKnobsTheProgramInheritsEverything) {
  const auto v = probe("");
  EXPECT_EQ(v.at("mempolicy"), "default");
  EXPECT_EQ(v.at("thp_disabled"), "0");
  EXPECT_EQ(v.at("allocator_symbols"), "");
  EXPECT_EQ(v.at("malloc_ok"), "1");
}

TEST(RunCommand, MemoryPoliciesReachTheProgram) {
  EXPECT_EQ(probe("--policy interleave").at("mempolicy"), "interleave");
  EXPECT_EQ(probe("--policy interleave").at("mempolicy_nodes"), "0");
  EXPECT_EQ(probe("--policy bind=0").at("mempolicy"), "bind");
  EXPECT_EQ(probe("--policy preferred=0").at("mempolicy"), "preferred");
  EXPECT_EQ(probe("--policy localalloc").at("mempolicy"), "local");
  EXPECT_EQ(probe("--policy first-touch").at("mempolicy"), "default");
}

TEST(RunCommand, OnAFakeTwoNodeTopologyInterleaveCoversTheKernelNodeBehindBoth) {
  const auto v = probe("--policy interleave=0-1 --pinning sparse --threads 1", "SMARTARRAYS_TOPOLOGY=nodes=2");
  EXPECT_EQ(v.at("mempolicy"), "interleave");
  EXPECT_EQ(v.at("mempolicy_nodes"), "0");
  EXPECT_EQ(v.at("cpus"), "0");
}

TEST(RunCommand, CpuSetsAndThreadCountsReachTheProgram) {
  auto v = probe("--cpus 0");
  EXPECT_EQ(v.at("cpus"), "0");
  v = probe("--pinning dense --threads 1");
  EXPECT_EQ(v.at("cpus"), "0");
  EXPECT_EQ(v.at("SMARTARRAYS_THREADS"), "1");
  EXPECT_EQ(v.at("OMP_NUM_THREADS"), "1");
  EXPECT_EQ(v.at("OMP_PROC_BIND"), "close");
}

TEST(RunCommand, TransparentHugePagesSwitchOffAndOn) {
  EXPECT_EQ(probe("--thp off").at("thp_disabled"), "1");
  EXPECT_EQ(probe("--thp on").at("thp_disabled"), "0");
}

TEST(RunCommand, EachAllocatorIsLoadedIntoTheProgram) {
  for (const char* name : {"jemalloc", "tcmalloc", "mimalloc", "tbbmalloc"}) {
    const tune::Allocator allocator = tune::parse_allocator(name);
    const auto v = probe(std::string("--allocator ") + name);
    EXPECT_EQ(v.at("allocator_symbols"), tune::allocator_library(allocator).symbol) << name;
    EXPECT_EQ(v.at("malloc_ok"), "1") << name;
  }
}

TEST(RunCommand, ExitStatusesAndSignalsPassThrough) {
  EXPECT_EQ(run("run -- sh -c 'exit 7'").exit_code, 7);
  // The launcher is replaced by the program, so its parent sees the program's own signal.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(SMARTARRAYS_CLI_PATH, "smartarrays", "run", "--thp", "off", "--", "sh", "-c", "kill -TERM $$", nullptr);
    ::_exit(99);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  const CliRun missing = run("run -- /nonexistent/program");
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("cannot run '/nonexistent/program': No such file or directory"), std::string::npos);
  EXPECT_EQ(run("run -- /").exit_code, 126);
}

TEST(RunCommand, BadFlagsExitTwoNamingTheFlag) {
  const std::map<std::string, std::string> cases = {
      {"run -- ", "no command to run"},
      {"run --allocator hoard -- true", "--allocator: unknown allocator 'hoard'"},
      {"run --policy bind=9 -- true", "--policy: node 9 does not exist"},
      {"run --policy spread -- true", "--policy: unknown memory policy 'spread'"},
      {"run --cpus 4096 -- true", "--cpus: cpu 4096 is not usable"},
      {"run --cpus 0 --pinning dense -- true", "--cpus and --pinning exclude each other"},
      {"run --pinning wide -- true", "--pinning: unknown pinning policy 'wide'"},
      {"run --threads 0 -- true", "--threads: expected a whole number from 1 to 4096"},
      {"run --threads 99999999999999999999 -- true", "--threads: expected a whole number"},
      {"run --thp maybe -- true", "--thp: unknown setting 'maybe' (expected one of: on, off)"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

TEST(RunCommand, ReadsOnlyTheSettingsItsKnobsUse) {
  // A launcher leaves the program's settings to the program (and its start light): a setting no knob
  // reads does not stop it, the topology a --policy needs does, naming the variable.
  for (const char* env : {"SMARTARRAYS_ISA=junk", "SMARTARRAYS_THREADS=lots", "SMARTARRAYS_TOPOLOGY=nodes=lots"}) {
    const CliRun r = run("run --thp off --allocator glibc --policy localalloc -- true", env);
    EXPECT_EQ(r.exit_code, 0) << env << ": " << r.err;
  }
  for (const char* knobs : {"--policy interleave", "--pinning sparse", "--cpus 0"}) {
    const CliRun r = run(std::string("run ") + knobs + " -- true", "SMARTARRAYS_TOPOLOGY=nodes=lots");
    EXPECT_EQ(r.exit_code, 2) << knobs;
    EXPECT_NE(r.err.find("SMARTARRAYS_TOPOLOGY='nodes=lots'"), std::string::npos) << knobs << ": " << r.err;
  }
}

}  // namespace
