// Tests the distributed PageRank's per-part calls: a graph cut into 1, 2, 3 and more vertex ranges
// (some empty), driven part by part with the contributions exchanged between iterations as the
// Dask driver does, gives pagerank()'s ranks to 1e-12 after the same number of iterations, for both
// dangling rules; and mismatched lengths and bad options are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/graph/pull_part.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::algo {
namespace {

struct Driven {
  std::vector<double> ranks;
  unsigned iterations = 0;
};

// PageRank over `parts` even vertex ranges of g, exchanging every part's contributions each iteration.
Driven driven_pagerank(const graph::CsrGraph& g, std::uint64_t parts, const PageRankOptions& options) {
  const std::uint64_t n = g.vertices();
  std::vector<graph::PullPart> cut;
  for (std::uint64_t k = 0; k < parts; ++k) cut.push_back(graph::pull_part(g, n * k / parts, n * (k + 1) / parts - n * k / parts));
  std::vector<double> ranks(n);
  std::vector<double> shares(n);
  std::uint64_t dangling_vertices = 0;
  for (const graph::PullPart& p : cut) {
    const std::uint64_t c = p.count();
    dangling_vertices += pagerank_part_start(p.begin, n, {ranks.data() + p.first, c}, {shares.data() + p.first, c}).dangling_vertices;
  }
  double dangling = options.dangling == DanglingRule::uniform ? static_cast<double>(dangling_vertices) * (1.0 / static_cast<double>(n)) : 0.0;
  Driven result;
  for (unsigned iteration = 1; iteration <= options.max_iterations; ++iteration) {
    std::vector<double> new_ranks(n);
    std::vector<double> new_shares(n);
    double difference = 0;
    double next_dangling = 0;
    for (const graph::PullPart& p : cut) {
      const std::uint64_t c = p.count();
      const PageRankPartTotals t = pagerank_part_step(p.rbegin, p.redge, p.begin, shares, {ranks.data() + p.first, c},
                                                      dangling, options, {new_ranks.data() + p.first, c},
                                                      {new_shares.data() + p.first, c});
      difference += t.difference;
      next_dangling += t.dangling;
    }
    ranks.swap(new_ranks);
    shares.swap(new_shares);
    dangling = next_dangling;
    result.iterations = iteration;
    if (difference < options.tolerance) break;
  }
  result.ranks = ranks;
  return result;
}

graph::CsrGraph graph_with_sinks(unsigned scale = 9) {
  graph::RmatOptions r;
  r.scale = scale;
  r.edge_factor = 4;
  r.seed = 11;
  return graph::build_csr(graph::generate_rmat(r));
}

TEST(PageRankPart, PartsDrivenTogetherGiveTheLocalRanks) {
  // 512 vertices in up to 7 parts, and 32 vertices in 40 parts (some of them empty).
  const graph::CsrGraph large = graph_with_sinks();
  const graph::CsrGraph small = graph_with_sinks(5);
  const struct {
    const graph::CsrGraph& g;
    std::uint64_t parts;
  } cases[] = {{large, 1}, {large, 2}, {large, 3}, {large, 7}, {small, 40}};
  for (DanglingRule rule : {DanglingRule::none, DanglingRule::uniform}) {
    PageRankOptions options;
    options.dangling = rule;
    options.tolerance = 1e-9;
    for (const auto& c : cases) {
      const PageRankResult local = pagerank(c.g.rbegin(), c.g.redge(), c.g.begin(), options);
      const Driven driven = driven_pagerank(c.g, c.parts, options);
      EXPECT_EQ(driven.iterations, local.iterations) << c.parts << " parts";
      for (std::uint64_t v = 0; v < c.g.vertices(); ++v) {
        ASSERT_NEAR(driven.ranks[v], rank_at(local.ranks, v), 1e-12) << "vertex " << v << ", " << c.parts << " parts";
      }
    }
  }
}

TEST(PageRankPart, TheTeleportTermFollowsTheDanglingRule) {
  PageRankOptions options;
  EXPECT_DOUBLE_EQ(pagerank_teleport(options, 4, 0.5), 0.15 / 4);
  options.dangling = DanglingRule::uniform;
  EXPECT_DOUBLE_EQ(pagerank_teleport(options, 4, 0.5), 0.15 / 4 + 0.85 * 0.5 / 4);
}

TEST(PageRankPart, MismatchedLengthsAndBadOptionsAreRefused) {
  const graph::CsrGraph g = graph_with_sinks();
  const graph::PullPart p = graph::pull_part(g, 0, 10);
  std::vector<double> shares(g.vertices());
  std::vector<double> ten(10);
  std::vector<double> nine(9);
  PageRankOptions options;
  test::expect_error([&] { pagerank_part_step(p.rbegin, p.redge, p.begin, shares, nine, 0, options, ten, ten); },
                     {"pagerank part: ranks holds 9 values, expected 10"});
  test::expect_error([&] { pagerank_part_step(p.rbegin, p.redge, p.begin, shares, ten, 0, options, ten, nine); },
                     {"new contributions holds 9"});
  test::expect_error([&] { pagerank_part_step(p.redge, p.redge, p.begin, shares, ten, 0, options, ten, ten); },
                     {"rbegin holds"});
  test::expect_error([&] { pagerank_part_step(p.rbegin, p.redge, p.begin, nine, ten, 0, options, ten, ten); },
                     {"begin holds 11 values, expected 10"});
  test::expect_error([&] { pagerank_part_start(p.begin, 10, nine, ten); }, {"ranks holds 9"});
  // One buffer as both outputs held the contributions, not the ranks, and reported success.
  test::expect_error([&] { pagerank_part_start(p.begin, 10, ten, ten); }, {"ranks and contributions overlap"});
  std::vector<double> twenty(20);
  test::expect_error([&] { pagerank_part_start(p.begin, 10, {twenty.data(), 10}, {twenty.data() + 9, 10}); },
                     {"ranks and contributions overlap"});
  std::vector<double> other(10);
  for (const double dangling : {std::nan(""), -1.0, -HUGE_VAL, HUGE_VAL}) {
    test::expect_error([&] { pagerank_part_step(p.rbegin, p.redge, p.begin, shares, ten, dangling, options, ten, other); },
                       {"pagerank part: dangling must be the dangling vertices' rank, a finite number >= 0, got "});
  }
  test::expect_error([&] { pagerank_part_start(SmartArray::from_values(std::vector<std::uint64_t>{}, {}), 10, {}, {}); },
                     {"pagerank part: begin holds no offsets"});
  options.damping = 2;
  test::expect_error([&] { pagerank_part_step(p.rbegin, p.redge, p.begin, shares, ten, 0, options, ten, ten); },
                     {"damping must be a number in (0, 1]"});
  options.damping = 0.85;
  options.scores = ScorePrecision::f32;
  test::expect_error([&] { pagerank_part_step(p.rbegin, p.redge, p.begin, shares, ten, 0, options, ten, ten); },
                     {"scores must be f64"});
}

}  // namespace
}  // namespace smartarrays::algo
