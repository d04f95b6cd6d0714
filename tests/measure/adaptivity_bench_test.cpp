// Tests the evaluation of the adaptive choice (measure::run_adaptivity_bench) on a hand-written
// one-node machine and tiny workloads: its cases, which configurations each times, and that the
// summary is the arithmetic of the cases (no timing is asserted).
#include "measure/adaptivity_bench.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>

#include "adapt/profiles.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::measure {
namespace {

AdaptivityConfig tiny(std::vector<std::string> workloads) {
  AdaptivityConfig config;
  config.machine = test::machine(1, 2, 20, 20);
  config.aggregate_length = 1 << 14;
  config.widths = {10, 64};
  config.vertices = 1 << 11;
  config.average_degree = 4;
  config.iterations = 1;
  config.threads = {1, 2};
  config.workloads = std::move(workloads);
  config.trials = Trials{0, 2};
  config.min_seconds = 0;  // exactly the repetitions
  return config;
}

TEST(AdaptivityBench, EveryFamilyGetsACasePerThreadCountAndScenario) {
  const AdaptivityResult r = run_adaptivity_bench(tiny({"aggregate", "degree", "pagerank"}));
  // Two aggregation widths, degree and PageRank; two thread counts; three memory scenarios.
  ASSERT_EQ(r.cases.size(), 4u * 2u * 3u);
  std::set<std::string> workloads;
  for (const AdaptivityCase& c : r.cases) workloads.insert(c.workload);
  EXPECT_EQ(workloads, (std::set<std::string>{"aggregate/10", "aggregate/64", "degree", "pagerank"}));
  EXPECT_EQ(r.summary.cases + r.summary.skipped, r.cases.size());
  EXPECT_GT(r.summary.cases, 0u);
}

TEST(AdaptivityBench, AFeasibleCaseTimesItsChoiceAndComparesWithItsBestStatic) {
  const AdaptivityResult r = run_adaptivity_bench(tiny({"aggregate"}));
  for (const AdaptivityCase& c : r.cases) {
    if (!c.feasible) continue;
    ASSERT_FALSE(c.statics.empty()) << c.workload << " " << c.scenario;
    EXPECT_EQ(c.adaptive.timing.seconds.size(), 2u);  // the repetitions, no warm-up
    const auto best = std::min_element(c.statics.begin(), c.statics.end(), [](const auto& a, const auto& b) {
      return a.timing.median < b.timing.median;
    });
    EXPECT_EQ(c.best_label, best->label);
    EXPECT_DOUBLE_EQ(c.best_s, best->timing.median);
    EXPECT_DOUBLE_EQ(c.loss, c.adaptive_s / c.best_s - 1);
    EXPECT_FALSE(c.choice.empty());
  }
}

TEST(AdaptivityBench, TheSummaryIsTheArithmeticOfTheCases) {
  const AdaptivityResult r = run_adaptivity_bench(tiny({"aggregate"}));
  std::size_t feasible = 0, within = 0;
  double loss_sum = 0, worst = 0;
  for (const AdaptivityCase& c : r.cases) {
    if (!c.feasible) continue;
    ++feasible;
    within += c.loss <= 0.05 ? 1 : 0;
    loss_sum += std::max(c.loss, 0.0);
    worst = std::max(worst, c.loss);
  }
  ASSERT_EQ(r.summary.cases, feasible);
  EXPECT_EQ(r.summary.within_5_percent, within);
  EXPECT_DOUBLE_EQ(r.summary.mean_loss, loss_sum / static_cast<double>(feasible));
  EXPECT_DOUBLE_EQ(r.summary.worst_loss, worst);
  EXPECT_TRUE(r.summary.pooled);  // one memory node
  EXPECT_EQ(r.summary.best_static.size(), 1u);  // one per family: every width is "aggregate"
}

TEST(AdaptivityBench, MinSecondsTimesEachConfigurationUntilItsRunsAddUpOrTheCap) {
  AdaptivityConfig config = tiny({"aggregate"});
  config.threads = {1};
  config.min_seconds = 0.01;
  const AdaptivityResult r = run_adaptivity_bench(config);
  for (const AdaptivityCase& c : r.cases) {
    if (!c.feasible) continue;
    for (const ConfigTiming& t : c.statics) {
      const double total = std::accumulate(t.timing.seconds.begin(), t.timing.seconds.end(), 0.0);
      EXPECT_GE(t.timing.seconds.size(), 2u) << t.label;
      EXPECT_TRUE(total >= config.min_seconds || t.timing.seconds.size() == 1000u) << t.label << " " << total;
    }
  }
  config.min_seconds = 1e6;  // never reached: the cap decides
  config.max_repetitions = 5;
  for (const AdaptivityCase& c : run_adaptivity_bench(config).cases) {
    if (!c.feasible) continue;
    EXPECT_EQ(c.adaptive.timing.seconds.size(), 5u);
    for (const ConfigTiming& t : c.statics) EXPECT_EQ(t.timing.seconds.size(), 5u) << t.label;
  }
}

TEST(AdaptivityBench, TheStaticOracleGainIsTheBestStaticOfEachCaseAgainstTheFamilysBest) {
  const AdaptivityResult r = run_adaptivity_bench(tiny({"aggregate", "degree"}));
  double sum = 0;
  std::size_t n = 0;
  for (const AdaptivityCase& c : r.cases) {
    if (!c.feasible || c.best_static_s <= 0) continue;
    sum += c.best_static_s / c.best_s - 1;
    ++n;
  }
  ASSERT_EQ(n, r.summary.static_cases);
  ASSERT_GT(n, 0u);
  EXPECT_DOUBLE_EQ(r.summary.static_oracle_gain, sum / static_cast<double>(n));
  EXPECT_GE(r.summary.static_oracle_gain, 0);  // each case's best is at least as fast as any static
  EXPECT_GE(r.summary.pooled_static_oracle_gain, 0);
}

TEST(AdaptivityBench, AnInvalidMachineProfileIsRefusedBeforeAnyWork) {
  AdaptivityConfig config = tiny({"aggregate"});
  config.machine.read_gbs.clear();
  EXPECT_THROW(run_adaptivity_bench(config), Error);
}

}  // namespace
}  // namespace smartarrays::measure
