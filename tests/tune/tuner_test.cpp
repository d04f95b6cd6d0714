// Tests of the grid search of the tune layer (tuner.hpp) with tiny shell commands: the value read
// from stdout, the ranking by median and the gain, a child that fails, hangs or prints no metric,
// the budget's most promising configurations, progress after every run, cancellation through the
// thread's interrupt check, the settings refused with the setting named, and the JSON report.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdlib.h>

#include <string>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/tune/launch.hpp"
#include "smartarrays/tune/spawn.hpp"
#include "smartarrays/tune/tuner.hpp"

namespace {

using namespace smartarrays;

// The knob the fake commands see: --threads exports OPENBLAS_NUM_THREADS (and three others), so a
// command can print a value that depends on its configuration; unset for the default.
class TunerTest : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv("OPENBLAS_NUM_THREADS"); }
};

// threads 1, 2, 4 and the default; the command prints time=N with N the thread count (8 unset).
tune::TuneSettings by_threads(const std::string& script = "echo time=${OPENBLAS_NUM_THREADS:-8}") {
  tune::TuneSettings s;
  s.command = {"/bin/sh", "-c", script};
  s.spec = {};
  s.spec.threads = {1, 2, 4};
  s.metric = "time=([0-9.]+)";
  s.repetitions = 2;
  s.warmup = 0;
  return s;
}

std::string label_of(const tune::TuneResult& r, std::size_t p) { return r.configurations[p].point.label(); }

TEST(ReadMetric, TheLastMatchAndItsFirstGroup) {
  EXPECT_EQ(tune::read_metric("time=([0-9.]+)", "time=1.5\ntime=2.25\n"), 2.25);
  EXPECT_EQ(tune::read_metric("[0-9]+", "rows 42"), 42.0);
  EXPECT_EQ(tune::read_metric("rate (x?)", "rate x"), std::nullopt);  // matched text is no number
  EXPECT_EQ(tune::read_metric("time=([0-9.]+)", "nothing here"), std::nullopt);
  // Not finite is no value: nan and inf would sort anywhere; an earlier finite match stays.
  for (const char* word : {"nan", "inf", "-inf", "NaN", "infinity", "1e999"}) {
    EXPECT_EQ(tune::read_metric("time ([^ \\n]+)", std::string("time ") + word), std::nullopt) << word;
    EXPECT_EQ(tune::read_metric("time ([^ \\n]+)", std::string("time 3\ntime ") + word), 3.0) << word;
  }
  try {
    tune::read_metric("(", "");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'(' is not a regular expression"), std::string::npos) << e.what();
  }
}

TEST(ReadMetric, PatternsThatBacktrackOrRecurseWithoutBoundAreFastAndSafe) {
  // The cli fuzz campaign's timeout: stacked stars, which a backtracking engine explores in
  // exponential time (over 10 s under ASan on an empty output).
  const std::string stars = "\xee" + std::string(131, '*') + "\xee\xeeYYYYYYYYYYOOOOOOOOOOOOOOOOOYYYYY\xee\xee\xee\xee" "e";
  try {
    EXPECT_EQ(tune::read_metric(stars, ""), std::nullopt);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a regular expression"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tune::read_metric("(a*)*b", std::string(100000, 'a')), std::nullopt);
  // A long output through a pattern that recursed once per character (a stack overflow).
  EXPECT_EQ(tune::read_metric("x=([0-9]+)(?:.|\n)*", "x=123" + std::string(1u << 22, 'z') + "\n"), 123.0);
}

TEST_F(TunerTest, RanksByTheMetricsMedianWithTheGainOverTheDefault) {
  const tune::Tuner tuner(by_threads());
  ASSERT_EQ(tuner.grid().size(), 4u);
  const tune::TuneResult r = tuner.run();
  EXPECT_EQ(r.runs_done, 8u);
  EXPECT_EQ(r.runs_planned, 8u);
  EXPECT_FALSE(r.cut_by_budget);
  EXPECT_EQ(r.value_kind(), "metric");
  const std::vector<std::size_t> ranked = r.ranking();
  ASSERT_EQ(ranked.size(), 4u);
  EXPECT_EQ(label_of(r, ranked[0]), "glibc inherited threads=1");
  EXPECT_EQ(label_of(r, ranked[1]), "glibc inherited threads=2");
  EXPECT_EQ(label_of(r, ranked[2]), "glibc inherited threads=4");
  EXPECT_EQ(ranked[3], 0u);
  EXPECT_EQ(r.configurations[ranked[0]].values, (std::vector<double>{1, 1}));
  EXPECT_EQ(r.configurations[0].values, (std::vector<double>{8, 8}));
  ASSERT_EQ(r.best(), ranked[0]);
  EXPECT_DOUBLE_EQ(r.gain(ranked[0]), 8.0);
  EXPECT_DOUBLE_EQ(r.gain(ranked[2]), 2.0);
  EXPECT_DOUBLE_EQ(r.gain(0), 1.0);
  EXPECT_TRUE(r.separated_from_default(ranked[0]));
  EXPECT_FALSE(r.separated_from_default(0));
  EXPECT_EQ(r.run_line(ranked[0]), "smartarrays run --threads 1 -- /bin/sh -c 'echo time=${OPENBLAS_NUM_THREADS:-8}'");
  EXPECT_EQ(r.run_line(0), "smartarrays run -- /bin/sh -c 'echo time=${OPENBLAS_NUM_THREADS:-8}'");
  for (const std::size_t p : ranked) {
    EXPECT_EQ(r.configurations[p].runs, 2);
    EXPECT_TRUE(r.configurations[p].ok());
    EXPECT_GT(r.configurations[p].max_rss_kib, 0);
    EXPECT_EQ(r.configurations[p].minor_faults.size(), 2u);
    EXPECT_EQ(r.configurations[p].context_switches.size(), 2u);
  }
}

TEST_F(TunerTest, MaximizingPutsTheLargestMedianFirst) {
  tune::TuneSettings s = by_threads();
  s.maximize = true;
  const tune::TuneResult r = tune::Tuner(s).run();
  EXPECT_EQ(r.best(), 0u);
  EXPECT_EQ(label_of(r, r.ranking().back()), "glibc inherited threads=1");
  EXPECT_DOUBLE_EQ(r.gain(r.ranking().back()), 1.0 / 8.0);
}

TEST_F(TunerTest, ACommandThatFailsInOneConfigurationIsRankedLastWithHowItEnded) {
  const tune::TuneResult r = tune::Tuner(by_threads("test \"$OPENBLAS_NUM_THREADS\" != 2 || exit 3; echo time=1")).run();
  const std::vector<std::size_t> ranked = r.ranking();
  ASSERT_EQ(ranked.size(), 4u);
  const tune::ConfigurationResult& last = r.configurations[ranked.back()];
  EXPECT_EQ(last.point.label(), "glibc inherited threads=2");
  EXPECT_EQ(last.failure, "exit 3");
  EXPECT_EQ(last.runs, 2);
  EXPECT_TRUE(last.values.empty());
  EXPECT_FALSE(last.ok());
  EXPECT_TRUE(r.best().has_value());
}

TEST_F(TunerTest, CrashesHangsAndMissingMetricsAreFailedRuns) {
  tune::TuneSettings s = by_threads("kill -SEGV $$");
  tune::TuneResult r = tune::Tuner(s).run();
  EXPECT_EQ(r.configurations[0].failure, "signal 11 (Segmentation fault)");
  EXPECT_EQ(r.best(), std::nullopt);

  s = by_threads("sleep 30");
  s.spec.threads = {};
  s.timeout_seconds = 0.2;
  r = tune::Tuner(s).run();
  EXPECT_EQ(r.configurations[0].failure, "timed out after 0.2 s");

  s = by_threads("echo nothing");
  r = tune::Tuner(s).run();
  for (const tune::ConfigurationResult& c : r.configurations) {
    EXPECT_EQ(c.failure, "no metric: no finite number in stdout matches 'time=([0-9.]+)'");
  }
  EXPECT_EQ(r.best(), std::nullopt);

  s = by_threads("/nonexistent/program");
  s.command = {"/nonexistent/program"};
  r = tune::Tuner(s).run();
  EXPECT_EQ(r.configurations[0].failure, "not started: cannot run '/nonexistent/program': No such file or directory");
}

// A command that prints more than captured_output_limit: the tune process keeps only the last
// 64 MiB (it once held all of it, 8 GiB in 16 s of `yes`), where the last metric line still is;
// one printed only before them is reported as not found, naming how much was kept.
TEST_F(TunerTest, AnEndlessOutputKeepsItsLastBytesWhereTheLastMetricIs) {
  const std::string flood = "head -c 150000000 /dev/zero | tr '\\0' x; echo; ";
  const tune::ChildRun run = tune::run_child(tune::prepare_launch({}), {"/bin/sh", "-c", flood + "echo end"}, 60, true);
  ASSERT_TRUE(run.succeeded()) << tune::describe_end(run, 60);
  EXPECT_EQ(run.output.size(), tune::captured_output_limit);
  EXPECT_EQ(run.output_dropped + run.output.size(), 150000000u + 1 + 4);
  EXPECT_EQ(run.output.substr(run.output.size() - 6), "x\nend\n");

  tune::TuneSettings s = by_threads(flood + "echo time=${OPENBLAS_NUM_THREADS:-8}");
  s.repetitions = 1;
  s.spec.threads = {2};
  tune::TuneResult r = tune::Tuner(s).run();
  ASSERT_EQ(r.configurations.size(), 2u);
  for (const tune::ConfigurationResult& c : r.configurations) EXPECT_EQ(c.failure, "") << c.failure;

  s.command = {"/bin/sh", "-c", "echo time=1; " + flood};
  r = tune::Tuner(s).run();
  for (const tune::ConfigurationResult& c : r.configurations) {
    EXPECT_EQ(c.failure, "no metric: no finite number in stdout matches 'time=([0-9.]+)' (only its last 64 MiB are "
                         "kept; it printed 150000008 bytes)");
  }
}

TEST_F(TunerTest, AFailedWarmUpStopsTheSearchWithTheReason) {
  tune::TuneSettings s = by_threads("exit 4");
  s.warmup = 1;
  try {
    tune::Tuner(s).run();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "the command fails without any knob (warm-up): exit 4");
  }
}

TEST_F(TunerTest, ABudgetKeepsTheDefaultAndTheMostPromisingConfigurationsFirst) {
  // The warm-up takes at least 0.05 s of wall time, so a 0.01 s budget keeps the default alone and
  // stops starting runs after the first.
  tune::TuneSettings s;
  s.command = {"/bin/sh", "-c", "sleep 0.05"};
  s.spec = {};
  s.spec.allocators = {tune::Allocator::glibc, tune::Allocator::tbbmalloc};
  s.spec.thp = {true, false};
  s.repetitions = 2;
  s.budget_seconds = 0.01;
  const tune::Tuner tuner(s);
  tune::TuneResult r = tuner.run();
  EXPECT_TRUE(r.cut_by_budget);
  EXPECT_EQ(r.measured, (std::vector<std::size_t>{0}));
  EXPECT_EQ(r.runs_planned, 2u);
  EXPECT_EQ(r.runs_done, 1u);
  EXPECT_GE(r.warmup_seconds, 0.05);
  // A metric is no time: the budget still estimates a run from the warm-up's wall time.
  s.command = {"/bin/sh", "-c", "sleep 0.05; echo rate=1000000"};
  s.metric = "rate=([0-9]+)";
  r = tune::Tuner(s).run();
  EXPECT_EQ(r.measured, (std::vector<std::size_t>{0}));
  EXPECT_LT(r.warmup_seconds, 1000);
  // A large budget keeps every configuration; whatever a budget keeps is a prefix of the promise order.
  s.budget_seconds = 1e6;
  r = tune::Tuner(s).run();
  EXPECT_FALSE(r.cut_by_budget);
  EXPECT_EQ(r.measured, tune::most_promising(tuner.grid(), tuner.grid().size()));
  EXPECT_EQ(label_of(r, r.measured[1]), "tbbmalloc inherited thp=off");
}

TEST_F(TunerTest, ProgressComesBeforeTheFirstRunAndAfterEveryRun) {
  std::vector<tune::TuneProgress> seen;
  const tune::TuneResult r = tune::Tuner(by_threads()).run([&seen](const tune::TuneProgress& p) { seen.push_back(p); });
  ASSERT_EQ(seen.size(), 9u);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].done, i);
    EXPECT_EQ(seen[i].total, 8u);
    EXPECT_EQ(seen[i].finished == nullptr, i == 0);
    EXPECT_EQ(seen[i].next == nullptr, i == 8);
    EXPECT_EQ(seen[i].seconds_left.has_value(), i > 0);
  }
  EXPECT_EQ(*seen[8].seconds_left, 0.0);
  EXPECT_EQ(r.runs_done, 8u);
}

TEST_F(TunerTest, AProgressCallbackThatThrowsStopsTheSearch) {
  const tune::Tuner tuner(by_threads());
  int calls = 0;
  EXPECT_THROW(tuner.run([&calls](const tune::TuneProgress& p) {
    ++calls;
    if (p.done == 2) throw std::runtime_error("stop");
  }),
               std::runtime_error);
  EXPECT_EQ(calls, 3);
}

TEST_F(TunerTest, TheThreadsInterruptCheckCancelsBetweenRunsAndKillsARunningChild) {
  const tune::Tuner tuner(by_threads());
  bool stop = false;
  std::size_t last_done = 0;
  {
    const runtime::InterruptScope scope([&stop] { return stop; });
    try {
      tuner.run([&](const tune::TuneProgress& p) {
        last_done = p.done;
        stop = p.done == 3;
      });
      FAIL();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::cancelled);
    }
  }
  EXPECT_EQ(last_done, 3u);
  // A child that would sleep 30 s is killed when the check asks to stop.
  tune::TuneSettings s = by_threads("sleep 30");
  s.spec.threads = {};
  const runtime::InterruptScope scope([] { return true; });
  try {
    tune::Tuner(s).run();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::cancelled);
  }
}

std::string refusal(const tune::TuneSettings& s, tune::SettingName name = nullptr) {
  try {
    tune::Tuner tuner(s, name);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST_F(TunerTest, BadSettingsAreRefusedNamingTheSetting) {
  tune::TuneSettings s = by_threads();
  s.command = {};
  EXPECT_EQ(refusal(s), "command: no command to run");
  s.command = {"/bin/echo", std::string("a\0b", 3)};
  EXPECT_EQ(refusal(s), "command: argument 1 contains a NUL byte");
  s = by_threads();
  s.repetitions = 0;
  EXPECT_EQ(refusal(s), "repetitions: expected a whole number from 1 to 1000");
  s = by_threads();
  s.warmup = 101;
  EXPECT_EQ(refusal(s), "warmup: expected a whole number from 0 to 100");
  for (const double bad : {-1.0, 1e300, std::nan("")}) {
    s = by_threads();
    s.timeout_seconds = bad;
    EXPECT_EQ(refusal(s), "timeout: expected 0 (no limit) to 10000000 seconds");
    s = by_threads();
    s.budget_seconds = bad == 1e300 ? HUGE_VAL : bad;
    EXPECT_EQ(refusal(s), "budget: expected 0 or more seconds");
  }
  s = by_threads();
  s.cpu_time = true;
  EXPECT_EQ(refusal(s), "cpu_time and metric exclude each other (give one)");
  EXPECT_EQ(refusal(s, [](std::string_view f) { return "--" + std::string(f); }), "--cpu_time and --metric exclude each other (give one)");
  s = by_threads();
  s.metric.clear();
  s.maximize = true;  // a larger wall time is never better
  EXPECT_EQ(refusal(s), "maximize applies only with metric (wall and CPU times are better smaller)");
  s.cpu_time = true;
  EXPECT_EQ(refusal(s), "maximize applies only with metric (wall and CPU times are better smaller)");
  s = by_threads();
  s.metric = "(";
  EXPECT_EQ(refusal(s).rfind("metric: '(' is not a regular expression: ", 0), 0u) << refusal(s);
  // An axis that lists a value twice (by value, not by spelling) would run its configurations twice.
  s = by_threads();
  s.spec.threads = {1, 2, 1};
  EXPECT_EQ(refusal(s), "threads: lists 1 twice");
  s = by_threads();
  s.spec.allocators = {tune::Allocator::glibc, tune::Allocator::jemalloc, tune::Allocator::jemalloc};
  EXPECT_EQ(refusal(s), "allocators: lists jemalloc twice");
  s = by_threads();
  s.spec.policies = {tune::parse_memory_policy("interleave=0"), tune::parse_memory_policy("localalloc"),
                     tune::parse_memory_policy("interleave=0-0")};
  EXPECT_EQ(refusal(s, [](std::string_view f) { return "--" + std::string(f); }), "--policies: lists interleave=0 twice");
  s = by_threads();
  s.spec.pinnings = {runtime::PinPolicy::dense, runtime::PinPolicy::dense};
  EXPECT_EQ(refusal(s), "pinnings: lists dense twice");
  s = by_threads();
  s.spec.thp = {false, true, false};
  EXPECT_EQ(refusal(s), "thp: lists off twice");
  s = by_threads();
  s.spec.autonuma = {true, true};
  EXPECT_EQ(refusal(s), "autonuma: lists on twice");
  s = by_threads();
  s.spec.policies = {tune::parse_memory_policy("bind=7")};
  EXPECT_EQ(refusal(s).rfind("policies: ", 0), 0u) << refusal(s);
  EXPECT_NE(refusal(s).find("node 7 does not exist"), std::string::npos) << refusal(s);
}

TEST_F(TunerTest, TheReportHasTheCommandsSchemaWithTheMachineGiven) {
  const tune::TuneResult r = tune::Tuner(by_threads()).run();
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(tune::tune_report_json(r, R"({"cpu_model": "test"})"));
  EXPECT_EQ(doc["format"], "smartarrays.tune/1");
  EXPECT_EQ(doc["machine"]["cpu_model"], "test");
  EXPECT_EQ(doc["value"], "metric");
  EXPECT_EQ(doc["metric"], "time=([0-9.]+)");
  EXPECT_EQ(doc["repetitions"], 2);
  EXPECT_EQ(doc["cut_by_budget"], false);
  ASSERT_EQ(doc["configurations"].size(), 4u);
  const auto& best = doc["configurations"][0];
  EXPECT_EQ(best["label"], "glibc inherited threads=1");
  EXPECT_EQ(best["run_flags"], "--threads 1");
  EXPECT_EQ(best["median_s"], 1.0);
  EXPECT_EQ(best["gain_over_default"], 8.0);
  EXPECT_EQ(best["separated_from_default"], true);
  EXPECT_EQ(best["default"], false);
  EXPECT_EQ(best["values"], nlohmann::ordered_json::array({1.0, 1.0}));
  EXPECT_EQ(best["failure"], "");
  EXPECT_EQ(doc["configurations"][3]["default"], true);
  EXPECT_TRUE(doc["configurations"][3]["autonuma"].is_null());
}

}  // namespace
