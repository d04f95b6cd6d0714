// Tests of the `smartarrays` command as a user runs it: help texts, exit codes and messages for bad
// command lines, and JSON output that parses (a small strict JSON checker lives here).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "smartarrays/util/settings.hpp"
#include "support/run_cli.hpp"

namespace {

using smartarrays::test::CliRun;
using smartarrays::test::read_file;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("smartarrays-cli-test-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// Runs the command with args and an optional environment prefix.
CliRun run(const std::string& args, const std::string& env = "") {
  return smartarrays::test::run_cli(args, temp_path("stderr"), env);
}

// A strict recursive-descent check of RFC 8259 JSON: true when text is exactly one JSON value.
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& text) : s_(text) {}
  bool valid() {
    skip();
    if (!value()) return false;
    skip();
    return pos_ == s_.size();
  }

 private:
  bool value() {
    if (pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    return literal("true") || literal("false") || literal("null");
  }
  bool object() {
    ++pos_;
    skip();
    if (peek('}')) return ++pos_, true;
    while (true) {
      skip();
      if (!string()) return false;
      skip();
      if (!peek(':')) return false;
      ++pos_;
      skip();
      if (!value()) return false;
      skip();
      if (peek('}')) return ++pos_, true;
      if (!peek(',')) return false;
      ++pos_;
    }
  }
  bool array() {
    ++pos_;
    skip();
    if (peek(']')) return ++pos_, true;
    while (true) {
      skip();
      if (!value()) return false;
      skip();
      if (peek(']')) return ++pos_, true;
      if (!peek(',')) return false;
      ++pos_;
    }
  }
  bool string() {
    if (!peek('"')) return false;
    for (++pos_; pos_ < s_.size(); ++pos_) {
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') return ++pos_, true;
      if (c < 0x20) return false;
      if (c == '\\') {
        ++pos_;
        if (pos_ >= s_.size() || std::string("\"\\/bfnrtu").find(s_[pos_]) == std::string::npos) return false;
        if (s_[pos_] == 'u') {
          for (int k = 0; k < 4; ++k) {
            if (++pos_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos_]))) return false;
          }
        }
      }
    }
    return false;
  }
  bool number() {
    const std::size_t start = pos_;
    if (peek('-')) ++pos_;
    if (peek('0')) {
      ++pos_;
    } else if (!digits()) {
      return false;
    }
    if (peek('.')) {
      ++pos_;
      if (!digits()) return false;
    }
    if (peek('e') || peek('E')) {
      ++pos_;
      if (peek('+') || peek('-')) ++pos_;
      if (!digits()) return false;
    }
    return pos_ > start;
  }
  bool digits() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }
  bool literal(const char* word) {
    const std::string w(word);
    if (s_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }
  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  const std::string& s_;
  std::size_t pos_ = 0;
};

bool is_json(const std::string& text) { return JsonChecker(text).valid(); }

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(JsonChecker, AcceptsJsonAndRejectsNearMisses) {
  EXPECT_TRUE(is_json(R"({"a": [1, -2.5e3, true, null, "x\"y"], "b": {}})"));
  EXPECT_FALSE(is_json(R"({"a": [1, 2,]})"));
  EXPECT_FALSE(is_json(R"({"a": nan})"));
  EXPECT_FALSE(is_json(R"({"a": 1} {"b": 2})"));
  EXPECT_FALSE(is_json("{\"a\": \"tab\there\"}"));
}

TEST(Cli, HelpReadsWellAndExitsZero) {
  const CliRun main_help = run("--help");
  EXPECT_EQ(main_help.exit_code, 0);
  EXPECT_NE(main_help.out.find("usage: smartarrays <command>"), std::string::npos);
  EXPECT_NE(main_help.out.find("topology"), std::string::npos);
  EXPECT_NE(main_help.out.find("bench aggregate"), std::string::npos);
  EXPECT_NE(main_help.out.find("SMARTARRAYS_THREADS"), std::string::npos);
  for (const char* args : {"topology --help", "help topology"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_NE(r.out.find("usage: smartarrays topology"), std::string::npos) << args;
    EXPECT_NE(r.out.find("--json"), std::string::npos) << args;
  }
  for (const char* args : {"bench aggregate --help", "bench aggregate -h", "help bench aggregate"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_NE(r.out.find("usage: smartarrays bench aggregate"), std::string::npos) << args;
    for (const char* flag : {"--size", "--bits", "--placements", "--threads", "--repetitions", "--json"}) {
      EXPECT_NE(r.out.find(flag), std::string::npos) << args << " lacks " << flag;
    }
  }
  const CliRun bench = run("bench --help");
  EXPECT_EQ(bench.exit_code, 0);
  EXPECT_NE(bench.out.find("aggregate"), std::string::npos);
  const CliRun version = run("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("smartarrays ", 0), 0u) << version.out;
}

TEST(Cli, BadCommandLinesExitTwoWithAClearMessage) {
  struct Case {
    const char* args;
    const char* names;  // the text the message must point at
  };
  const Case cases[] = {
      {"", "usage"},
      {"frobnicate", "frobnicate"},
      {"--frobnicate", "--frobnicate"},
      {"help nosuch", "nosuch"},
      {"topology --frob", "--frob"},
      {"topology extra", "extra"},
      {"bench", "which benchmark"},
      {"bench nosuch", "nosuch"},
      {"bench aggregate --size 0", "'0'"},
      {"bench aggregate --size 12Q", "12Q"},
      {"bench aggregate --size", "--size needs a value"},
      {"bench aggregate --bits 0", "'0'"},
      {"bench aggregate --bits 65", "65"},
      {"bench aggregate --bits 10,,20", "10,,20"},
      {"bench aggregate --placements nowhere", "nowhere"},
      {"bench aggregate --threads 0", "'0'"},
      {"bench aggregate --repetitions 0", "--repetitions"},
      {"bench aggregate --pinning wild", "wild"},
      {"bench aggregate --size=7x", "7x"},
      {"bench aggregate stray", "stray"},
      {"bench adaptivity --min-seconds -1", "--min-seconds"},
      {"bench adaptivity --degree -1", "--degree: expected an average degree >= 0"},
      {"bench adaptivity --min-seconds 3601", "3601"},
      {"bench adaptivity --min-seconds nan", "nan"},
      // A list names each value once: a repeat would only run again.
      {"bench aggregate --bits 8,9,8", "--bits: lists one value twice: '8' and '8'"},
      {"bench aggregate --placements interleaved,auto,interleaved", "lists one value twice: 'interleaved' and 'interleaved'"},
      {"bench aggregate --threads 2,1,2", "--threads: lists one value twice: '2' and '2'"},
      {"graph pagerank tiny.el --variant U,V+E,u", "--variant: lists one value twice: 'U' and 'u'"},
      {"tune --policies interleave=0,1,bind=0,interleave=0,1 -- true", "lists one value twice: 'interleave=0,1' and 'interleave=0,1'"},
      {"tune --thp on,off,on -- true", "--thp: lists one value twice: 'on' and 'on'"},
  };
  for (const Case& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << c.args << "\nstderr: " << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

TEST(Cli, AFlagTakesNoValueOrABooleanAndALaterValueWins) {
  const CliRun no = run("bench aggregate --size 1K --bits 3 --threads 1 --repetitions 1 --quiet=no --json -");
  EXPECT_EQ(no.exit_code, 0) << no.err;
  EXPECT_NE(no.err.find("done"), std::string::npos) << "--quiet=no shows the progress: " << no.err;
  const CliRun maybe = run("bench aggregate --quiet=maybe");
  EXPECT_EQ(maybe.exit_code, 2);
  EXPECT_NE(maybe.err.find("--quiet takes no value, or true/false"), std::string::npos) << maybe.err;
  EXPECT_NE(maybe.err.find("'maybe'"), std::string::npos) << maybe.err;
  const CliRun twice = run("bench aggregate --size 1K --bits 3 --bits 5 --threads 1 --repetitions 1 --quiet --json -");
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_EQ(count(twice.out, "\"bits\": 5"), 4u) << twice.out;
  EXPECT_EQ(count(twice.out, "\"bits\": 3"), 0u);
}

TEST(Cli, HelpOfAnyCommandThroughHelp) {
  const CliRun r = run("help graph pagerank");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: smartarrays graph pagerank INPUT [options]", 0), 0u) << r.out;
  for (const char* part : {"--damping D", "graph flags:", "--placement LIST", "-h, --help"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part;
  }
  EXPECT_EQ(run("graph pagerank --help").out, r.out);
}

// A command's flags are defined when a command line names it: `help WORDS` (which defines the
// commands it walks through) and `WORDS --help` (which the parse defines) show the same whole help,
// at every depth of the tree.
TEST(Cli, EveryCommandShowsTheSameHelpThroughHelpAndDashDashHelp) {
  const char* const commands[] = {
      "topology",       "bench",          "bench aggregate", "bench adaptivity", "bench workload",
      "graph",          "graph generate", "graph convert",   "graph info",       "graph degree",
      "graph pagerank", "store",          "store list",      "store info",       "store verify",
      "store append",   "calibrate",      "advise",          "run",              "tune",
      "help"};
  for (const char* words : commands) {
    const CliRun through_help = run(std::string("help ") + words);
    EXPECT_EQ(through_help.exit_code, 0) << words << ": " << through_help.err;
    EXPECT_EQ(through_help.out.rfind(std::string("usage: smartarrays ") + words, 0), 0u) << through_help.out;
    EXPECT_NE(through_help.out.find("  -h, --help"), std::string::npos) << words;
    const CliRun dash_help = run(std::string(words) + " --help");
    EXPECT_EQ(dash_help.exit_code, 0) << words << ": " << dash_help.err;
    EXPECT_EQ(dash_help.out, through_help.out) << words;
  }
}

TEST(Cli, FlagsAreCheckedAgainstTheMachineBeforeAnyWork) {
  // A node the machine lacks and arrays larger than its memory: exit 2 at once, naming the flag
  // (before, 1024G spent hours computing the expected sums before failing to map the arrays).
  const CliRun bad_node = run("bench aggregate --size 1K --placements single_node --node 5 --quiet");
  EXPECT_EQ(bad_node.exit_code, 2) << bad_node.err;
  EXPECT_NE(bad_node.err.find("--node: node 5 does not exist"), std::string::npos) << bad_node.err;
  const CliRun huge = run("bench aggregate --size 1024G --quiet");
  EXPECT_EQ(huge.exit_code, 2) << huge.err;
  EXPECT_NE(huge.err.find("--size: 2 arrays of 1099511627776 values"), std::string::npos) << huge.err;
  EXPECT_NE(huge.err.find("memory"), std::string::npos) << huge.err;
  EXPECT_EQ(huge.out, "");
  // bench adaptivity checks its sizes before it calibrates or builds anything.
  const CliRun wide = run("bench adaptivity --size 512G --quiet");
  EXPECT_EQ(wide.exit_code, 2) << wide.err;
  EXPECT_NE(wide.err.find("--size: aggregation's 64-bit pair of 549755813888-value arrays"), std::string::npos) << wide.err;
  const CliRun dense = run("bench adaptivity --workloads degree --degree 1e300 --quiet");
  EXPECT_EQ(dense.exit_code, 2) << dense.err;
  EXPECT_NE(dense.err.find("--vertices and --degree: an edge list of 1.049e+306 edges needs at least 1.678e+307 bytes"),
            std::string::npos)
      << dense.err;
  EXPECT_EQ(dense.out, "");
}

TEST(Cli, OutputFilesAreCheckedBeforeAnyWork) {
  // Each would have run (a benchmark for minutes) and then failed to save its result.
  const std::string tiny = std::string(SMARTARRAYS_TEST_DATA_DIR) + "/graph/tiny.el";
  const std::string dir = temp_path("outdir");
  std::filesystem::create_directories(dir);
  struct Case {
    std::string args, names;
  };
  const std::vector<Case> cases = {
      {"bench aggregate --size 1K --quiet --json /nonexistent-dir/x.json",
       "--json: cannot write '/nonexistent-dir/x.json': no directory '/nonexistent-dir'"},
      {"bench aggregate --size 1K --quiet --json " + dir, "--json: cannot write '" + dir + "': it is a directory"},
      {"bench workload w1 --records 1K --quiet --json /nonexistent-dir/x.json", "--json: cannot write"},
      {"bench adaptivity --quiet --json /nonexistent-dir/x.json", "--json: cannot write"},
      {"graph pagerank " + tiny + " --json /nonexistent-dir/x.json", "--json: cannot write"},
      {"graph pagerank " + tiny + " --output " + dir, "--output: cannot write"},
      {"graph degree " + tiny + " --output /nonexistent-dir/d.txt", "--output: cannot write"},
      {"graph generate --scale 4 --quiet --output /nonexistent-dir/g.el", "--output: cannot write"},
      {"graph convert " + tiny + " /nonexistent-dir/g.sg", "OUTPUT: cannot write"},
      {"advise --workload aggregate --length 1K --json /nonexistent-dir/a.json", "--json: cannot write"},
      {"advise --workload aggregate --length 1K --write-profile " + dir, "--write-profile: cannot write"},
      {"calibrate --quick --quiet --output " + dir, "--output: cannot write"},
      {"tune --plot /nonexistent-dir/p.png -- true", "--plot: cannot write"},
      {"store append /nonexistent-dir/s.sa " + tiny, "STORE: cannot write"},
  };
  for (const Case& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << c.args << "\nstderr: " << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
  // A writer that creates its parent directories is checked at the nearest existing one, and '-' is
  // standard output.
  const CliRun nested = run("advise --workload aggregate --length 1K --write-profile " + dir + "/a/b/w.json --json -");
  EXPECT_EQ(nested.exit_code, 0) << nested.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/a/b/w.json"));
  std::filesystem::remove_all(dir);
}

TEST(Cli, HugePagesTakeAModeName) {
  const CliRun bad = run("bench aggregate --size 1K --huge-pages=yes --quiet");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--huge-pages: unknown huge_pages mode 'yes' (expected one of: off, on, auto, 2M, 1G)"),
            std::string::npos)
      << bad.err;
  const CliRun off = run("bench aggregate --size 1K --bits 10 --placements os_default --threads 1 --repetitions 1 "
                         "--warmup 0 --huge-pages OFF --json - --quiet");
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(off.out.find("\"huge_pages\": \"off\""), std::string::npos) << off.out;
}

TEST(Cli, TopologyShowsTheHugetlbPools) {
  const CliRun r = run("topology");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hugetlb pools:"), std::string::npos) << r.out;
}

TEST(Cli, BadEnvironmentVariablesExitTwoNamingTheVariable) {
  // Exit 2 (it was 1 until every setting was checked at start): a bad setting is bad input, like a flag.
  struct Case {
    const char* env;
    const char* names;
  };
  const Case cases[] = {
      {"SMARTARRAYS_THREADS=lots", "SMARTARRAYS_THREADS='lots'"},
      {"SMARTARRAYS_THREADS=0", "SMARTARRAYS_THREADS='0'"},
      {"SMARTARRAYS_ISA=junk", "SMARTARRAYS_ISA='junk'"},
      {"SMARTARRAYS_TOPOLOGY=nodes=lots", "SMARTARRAYS_TOPOLOGY='nodes=lots'"},
      {"SMARTARRAYS_MEMORY_LIMIT_MB=0", "SMARTARRAYS_MEMORY_LIMIT_MB='0'"},
  };
  for (const Case& c : cases) {
    const CliRun r = run("bench aggregate --size 1K --quiet", c.env);
    EXPECT_EQ(r.exit_code, 2) << c.env << "\n" << r.err;
    EXPECT_NE(r.err.find(c.names), std::string::npos) << c.env << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.env;
  }
}

// Every variable of the one table, even for a command that never needs it: SMARTARRAYS_MEMORY_LIMIT_MB
// was read only when a graph was sized, so `topology` passed it and `graph info` failed with exit 1.
TEST(Cli, EverySettingIsCheckedAtStart) {
  for (const smartarrays::util::Setting& s : smartarrays::util::settings) {
    const std::string env = std::string(s.name) + "=junk";
    const CliRun r = run("topology", env);
    EXPECT_EQ(r.exit_code, 2) << env << "\n" << r.err;
    EXPECT_NE(r.err.find("environment variable " + std::string(s.name) + "='junk'"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << env;
  }
}

// A report that never reached its file is a failure: before, stdio's last block was lost at exit
// and `smartarrays topology > full-disk/report.txt` exited 0 with the file empty.
TEST(Cli, OutputThatCannotBeWrittenExitsOne) {
  for (const char* command : {"topology", "--help", "graph info " SMARTARRAYS_TEST_DATA_DIR "/graph/tiny.el --quiet"}) {
    const CliRun r = run(std::string(command) + " >/dev/full");
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("smartarrays: error: cannot write standard output: No space left on device"), std::string::npos)
        << command << "\n" << r.err;
  }
}

TEST(Cli, LibraryErrorsExitOne) {
  const CliRun missing = run("graph info " + temp_path("missing.el") + " --quiet");
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_NE(missing.err.find("error:"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("missing.el"), std::string::npos) << missing.err;
}

TEST(Cli, MessagesEscapeControlBytesOfTheInput) {
  const CliRun r = run("bench aggregate --pinning \"$(printf '\\033[2Jwild\\007')\"");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("'\\x1b[2Jwild\\x07'"), std::string::npos) << r.err;
  for (const char c : r.err) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << static_cast<int>(c) << " in " << r.err;
}

TEST(Cli, TopologyPrintsATableAndWellFormedJson) {
  const CliRun table = run("topology");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  for (const char* part : {"nodes:", "distances", "transparent huge pages:", "NUMA balancing:"}) {
    EXPECT_NE(table.out.find(part), std::string::npos) << part;
  }
  const CliRun json = run("topology --json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(is_json(json.out)) << json.out;
  EXPECT_NE(json.out.find("\"format\": \"smartarrays.topology/1\""), std::string::npos);
  EXPECT_NE(json.out.find("\"thp_enabled\""), std::string::npos);
  EXPECT_NE(json.out.find("\"numa_balancing\""), std::string::npos);
  EXPECT_NE(json.out.find("\"system\": {\n    \"format\": \"smartarrays.machine/1\""), std::string::npos) << json.out;

  const CliRun fake = run("topology --json", "SMARTARRAYS_TOPOLOGY=nodes=2");
  EXPECT_EQ(fake.exit_code, 0) << fake.err;
  EXPECT_TRUE(is_json(fake.out)) << fake.out;
  EXPECT_NE(fake.out.find("\"fake\": true"), std::string::npos);
  EXPECT_EQ(count(fake.out, "\"os_node\""), 2u);
}

TEST(Cli, BenchAggregateWritesATableAndWellFormedJson) {
  const std::string path = temp_path("aggregate.json");
  const CliRun r = run("bench aggregate --size 4K --bits 3,64 --threads 1,2 --repetitions 2 --warmup 0 --json " + path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("median ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replicated"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("16/16"), std::string::npos) << "progress line: " << r.err;
  const std::string json = read_file(path);
  std::filesystem::remove(path);
  EXPECT_TRUE(is_json(json)) << json;
  EXPECT_NE(json.find("\"format\": \"smartarrays.bench.aggregate/1\""), std::string::npos);
  // 2 bit widths x 4 default placements x 2 thread counts.
  EXPECT_EQ(count(json, "\"median_s\""), 16u);
  EXPECT_EQ(count(json, "\"language\": \"C++\""), 17u);  // the document's and each result's
}

TEST(Cli, BenchAggregateJsonToStdoutOnTwoFakeNodes) {
  const CliRun r = run("bench aggregate --size 1000 --bits 10 --threads 2 --repetitions 1 --quiet --json -",
                    "SMARTARRAYS_TOPOLOGY=nodes=2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_json(r.out)) << r.out;
  EXPECT_EQ(count(r.out, "\"median_s\""), 4u);
  EXPECT_NE(r.out.find("\"fake_topology\": true"), std::string::npos);
  EXPECT_NE(r.out.find("\"machine\": {\n    \"format\": \"smartarrays.machine/1\""), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

}  // namespace
