// Tests of the tuning grid: combinations with the default first, the study's promise order that a
// budget keeps, shuffled rounds that run every point once per round, and the AutoNUMA switch that
// restores the value it found.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/tune/grid.hpp"

namespace {

using namespace smartarrays;
using tune::Allocator;

tune::GridSpec two_by_two() {
  tune::GridSpec spec;
  spec.allocators = {Allocator::glibc, Allocator::tbbmalloc};
  spec.policies = {tune::parse_memory_policy("first-touch"), tune::parse_memory_policy("interleave")};
  return spec;
}

TEST(Grid, TheDefaultComesFirstThenEveryCombination) {
  const std::vector<tune::GridPoint> grid = tune::make_grid(two_by_two());
  ASSERT_EQ(grid.size(), 5u);
  EXPECT_EQ(grid[0].label(), "default (glibc, nothing changed)");
  std::set<std::string> labels;
  for (const tune::GridPoint& p : grid) labels.insert(p.label());
  EXPECT_EQ(labels.size(), 5u);
  EXPECT_TRUE(labels.count("tbbmalloc interleave"));
  EXPECT_TRUE(labels.count("glibc first-touch"));
}

TEST(Grid, AnEmptySpecIsTheDefaultAlone) { EXPECT_EQ(tune::make_grid({}).size(), 1u); }

TEST(Grid, ABudgetKeepsTheDefaultAndTheStudysMostPromisingKnobs) {
  const std::vector<tune::GridPoint> grid = tune::make_grid(two_by_two());
  const std::vector<std::size_t> kept = tune::most_promising(grid, 2);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0], 0u);
  EXPECT_EQ(grid[kept[1]].label(), "tbbmalloc interleave");
  EXPECT_EQ(tune::most_promising(grid, 0).size(), 1u);
  EXPECT_EQ(tune::most_promising(grid, 99).size(), grid.size());
}

TEST(Grid, EachRoundRunsEveryPointOnceInAShuffledOrder) {
  const std::vector<std::size_t> points{0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<std::size_t> order = tune::run_order(points, 3, 42);
  ASSERT_EQ(order.size(), 24u);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::size_t> one(order.begin() + round * 8, order.begin() + (round + 1) * 8);
    std::sort(one.begin(), one.end());
    EXPECT_EQ(one, points);
  }
  EXPECT_NE(std::vector<std::size_t>(order.begin(), order.begin() + 8), points);
  EXPECT_EQ(tune::run_order(points, 3, 42), order);
}

TEST(AutoNumaSwitch, RestoresTheValueItFound) {
  const std::string path = (std::filesystem::temp_directory_path() / ("sa-autonuma-" + std::to_string(::getpid()))).string();
  std::ofstream(path) << "1\n";
  {
    tune::AutoNumaSwitch autonuma(path);
    EXPECT_EQ(autonuma.original(), "1");
    autonuma.set(false);
    std::string now;
    std::getline(std::ifstream(path) >> std::ws, now);
    EXPECT_EQ(now, "0");
  }
  std::string restored;
  std::getline(std::ifstream(path), restored);
  EXPECT_EQ(restored, "1");
  std::filesystem::remove(path);
  EXPECT_THROW(tune::AutoNumaSwitch("/nonexistent/numa_balancing"), Error);
}

}  // namespace
