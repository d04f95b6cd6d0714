// Tests of the Figure 10 grid: cell order, checked sums, the 64-bit speedups, progress calls, and
// the configuration checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "measure/aggregate_bench.hpp"
#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::measure {
namespace {

AggregateBenchConfig small_grid() {
  AggregateBenchConfig config;
  config.length = 1000;
  config.bits = {3, 64};
  config.placements = {Placement::os_default, Placement::interleaved};
  config.threads = {1, 2};
  config.trials = {.warmup = 0, .repetitions = 2};
  return config;
}

std::uint64_t expected_sum(const AggregateBenchConfig& config, unsigned bits) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < config.length; ++i) {
    sum += algo::aggregation_value(i, bits, config.seed) + algo::aggregation_value(i, bits, config.seed + 1);
  }
  return sum;
}

TEST(AggregateBench, CellsComeBitsThenPlacementThenThreadsWithCheckedSums) {
  const AggregateBenchConfig config = small_grid();
  const std::vector<AggregateBenchCell> cells = run_aggregate_bench(config);
  ASSERT_EQ(cells.size(), 8u);
  std::size_t k = 0;
  for (unsigned bits : config.bits) {
    for (Placement placement : config.placements) {
      for (std::size_t threads : config.threads) {
        const AggregateBenchCell& cell = cells[k++];
        EXPECT_EQ(cell.bits, bits);
        EXPECT_EQ(cell.placement, placement);
        EXPECT_EQ(cell.threads, threads);
        EXPECT_EQ(cell.sum, expected_sum(config, bits));
        EXPECT_EQ(cell.timing.seconds.size(), 2u);
        EXPECT_EQ(cell.bytes, 2 * ((config.length + 63) / 64) * bits * 8);
        if (bits == 64 && cell.timing.median > 0) {
          EXPECT_EQ(cell.speedup_vs_64, 1.0);
        }
      }
    }
  }
}

TEST(AggregateBench, ProgressBuildsEachPairRunsEachCellAndEnds) {
  std::vector<std::string> phases;
  std::size_t last_done = 0;
  run_aggregate_bench(small_grid(), [&](const AggregateBenchProgress& p) {
    phases.push_back(p.phase);
    EXPECT_EQ(p.cells_total, 8u);
    last_done = p.cells_done;
  });
  EXPECT_EQ(std::count(phases.begin(), phases.end(), "building"), 4);
  EXPECT_EQ(std::count(phases.begin(), phases.end(), "running"), 8);
  EXPECT_EQ(phases.back(), "done");
  EXPECT_EQ(last_done, 8u);
}

TEST(AggregateBench, BadConfigurationsNameTheField) {
  auto message = [](AggregateBenchConfig config) {
    try {
      validate(config);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      return std::string(e.what());
    }
    return std::string("valid");
  };
  AggregateBenchConfig config = small_grid();
  EXPECT_EQ(message(config), "valid");
  config.bits = {65};
  EXPECT_NE(message(config).find("65"), std::string::npos);
  config = small_grid();
  config.trials.repetitions = 0;
  EXPECT_NE(message(config).find("repetitions"), std::string::npos);
  config = small_grid();
  config.placements.clear();
  EXPECT_NE(message(config).find("placement"), std::string::npos);
  EXPECT_EQ(thread_counts(AggregateBenchConfig{}).size(), 1u) << "no threads given: the default pool's count";
}

}  // namespace
}  // namespace smartarrays::measure
