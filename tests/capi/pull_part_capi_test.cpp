// Tests the C ABI's vertex-range parts (sa_pull_part): parts cut from a graph and read from its .sg
// file, driven part by part with the contributions exchanged, give sa_graph_pagerank's ranks to
// 1e-12; bad arguments fail with the function's name and the core's words.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "smartarrays.h"
#include "support/capi_expect.hpp"
#include "support/graph_fixtures.hpp"

namespace {

using smartarrays::test::expect_failure;

using Part = smartarrays::test::Owned<sa_pull_part, sa_pull_part_free>;
using Graph = smartarrays::test::Owned<sa_graph, sa_graph_free>;

// Ranks of PageRank over parts [n*k/parts, n*(k+1)/parts), made by cut(first, count, &part).
template <typename Cut>
std::vector<double> driven(uint64_t n, uint64_t parts, const sa_pagerank_options& o, Cut&& cut) {
  std::vector<Part> held(parts);
  std::vector<double> ranks(n), shares(n), new_ranks(n), new_shares(n);
  uint64_t dangling_vertices = 0;
  for (uint64_t k = 0; k < parts; ++k) {
    EXPECT_EQ(cut(n * k / parts, n * (k + 1) / parts - n * k / parts, &held[k].p), SA_OK) << sa_last_error();
    const uint64_t first = sa_pull_part_first(held[k].p), count = sa_pull_part_count(held[k].p);
    EXPECT_EQ(sa_pull_part_vertices(held[k].p), n);
    uint64_t dangling = 0;
    EXPECT_EQ(sa_pull_part_start(held[k].p, ranks.data() + first, shares.data() + first, count, &dangling), SA_OK);
    dangling_vertices += dangling;
  }
  double dangling = o.dangling == SA_DANGLING_UNIFORM ? static_cast<double>(dangling_vertices) * (1.0 / static_cast<double>(n)) : 0.0;
  for (uint32_t iteration = 0; iteration < o.max_iterations; ++iteration) {
    double difference = 0, next = 0;
    for (const Part& part : held) {
      const uint64_t first = sa_pull_part_first(part.p), count = sa_pull_part_count(part.p);
      double d = 0, left = 0;
      EXPECT_EQ(sa_pull_part_step(part.p, &o, shares.data(), n, ranks.data() + first, dangling, new_ranks.data() + first,
                                  new_shares.data() + first, count, &d, &left),
                SA_OK)
          << sa_last_error();
      difference += d;
      next += left;
    }
    ranks.swap(new_ranks);
    shares.swap(new_shares);
    dangling = next;
    if (difference < o.tolerance) break;
  }
  return ranks;
}

TEST(PullPartCapi, PartsOfAGraphAndOfItsFileGiveItsRanks) {
  smartarrays::test::ScratchDir dir;
  Graph g;
  ASSERT_EQ(sa_graph_generate_rmat(9, 4, 2, nullptr, &g.p), SA_OK) << sa_last_error();
  const std::string path = dir.file("g.sg");
  ASSERT_EQ(sa_graph_save(g.p, path.c_str(), "sg"), SA_OK) << sa_last_error();
  const uint64_t n = sa_graph_vertices(g.p);
  uint64_t vertices = 0;
  ASSERT_EQ(sa_sg_vertices(path.c_str(), &vertices), SA_OK);
  EXPECT_EQ(vertices, n);
  for (sa_dangling_rule rule : {SA_DANGLING_NONE, SA_DANGLING_UNIFORM}) {
    sa_pagerank_options o;
    sa_pagerank_options_init(&o);
    o.dangling = rule;
    o.tolerance = 1e-9;
    std::vector<double> local(n);
    ASSERT_EQ(sa_graph_pagerank(g.p, &o, local.data(), n, nullptr), SA_OK);
    for (uint64_t parts : {1, 2, 3}) {
      const std::vector<double> from_graph =
          driven(n, parts, o, [&](uint64_t first, uint64_t count, sa_pull_part** out) { return sa_graph_pull_part(g.p, first, count, out); });
      const std::vector<double> from_file =
          driven(n, parts, o, [&](uint64_t first, uint64_t count, sa_pull_part** out) { return sa_sg_pull_part(path.c_str(), first, count, out); });
      for (uint64_t v = 0; v < n; ++v) {
        ASSERT_NEAR(from_graph[v], local[v], 1e-12) << v;
        ASSERT_NEAR(from_file[v], local[v], 1e-12) << v;
      }
    }
  }
}

// The whole graph as the one part, on its own arrays: sa_graph_pagerank_start and _step, iterated by
// the caller, give sa_graph_pagerank's ranks, for every variant, both dangling rules and fixed
// iteration counts (tolerance 0) as well as convergence.
TEST(PullPartCapi, StepsOverAGraphsOwnArraysGiveItsRanks) {
  for (sa_graph_variant variant : {SA_GRAPH_U, SA_GRAPH_V, SA_GRAPH_VE}) {
    sa_graph_options go;
    sa_graph_options_init(&go);
    go.variant = variant;
    Graph g;
    ASSERT_EQ(sa_graph_generate_rmat(9, 4, 3, &go, &g.p), SA_OK) << sa_last_error();
    const uint64_t n = sa_graph_vertices(g.p);
    for (sa_dangling_rule rule : {SA_DANGLING_NONE, SA_DANGLING_UNIFORM}) {
      for (double tolerance : {0.0, 1e-9}) {
       for (bool in_place : {false, true}) {
        sa_pagerank_options o;
        sa_pagerank_options_init(&o);
        o.dangling = rule;
        o.tolerance = tolerance;
        o.max_iterations = tolerance == 0 ? 7 : 100;
        std::vector<double> expected(n);
        sa_pagerank_result result{};
        ASSERT_EQ(sa_graph_pagerank(g.p, &o, expected.data(), n, &result), SA_OK) << sa_last_error();
        std::vector<double> ranks(n), shares(n), new_ranks(n), new_shares(n);
        uint64_t dangling_vertices = 0;
        ASSERT_EQ(sa_graph_pagerank_start(g.p, ranks.data(), shares.data(), n, &dangling_vertices), SA_OK) << sa_last_error();
        double dangling = rule == SA_DANGLING_UNIFORM ? static_cast<double>(dangling_vertices) / static_cast<double>(n) : 0.0;
        uint32_t iterations = 0;
        double difference = 0;
        while (iterations < o.max_iterations) {
          double next = 0;
          // In place, the new ranks and contributions overwrite the previous ones, as the core's own loop.
          ASSERT_EQ(sa_graph_pagerank_step(g.p, &o, shares.data(), n, ranks.data(), dangling,
                                           in_place ? ranks.data() : new_ranks.data(),
                                           in_place ? shares.data() : new_shares.data(), n, &difference, &next),
                    SA_OK)
              << sa_last_error();
          if (!in_place) {
            ranks.swap(new_ranks);
            shares.swap(new_shares);
          }
          dangling = next;
          ++iterations;
          if (difference < o.tolerance) break;
        }
        EXPECT_EQ(iterations, result.iterations);
        EXPECT_NEAR(difference, result.difference, 1e-12);
        for (uint64_t v = 0; v < n; ++v) ASSERT_NEAR(ranks[v], expected[v], 1e-12) << v << (in_place ? " in place" : "");
       }
      }
    }
  }
}

TEST(PullPartCapi, GraphStepsCheckTheirBuffers) {
  Graph g;
  ASSERT_EQ(sa_graph_generate_rmat(6, 4, 2, nullptr, &g.p), SA_OK);
  const uint64_t n = sa_graph_vertices(g.p);
  std::vector<double> all(n), other(n), third(n), short_(n - 1);
  uint64_t dangling = 0;
  double d = 0, left = 0;
  expect_failure(sa_graph_pagerank_start(g.p, short_.data(), all.data(), n - 1, &dangling), SA_EINVAL,
                 "sa_graph_pagerank_start", "ranks holds " + std::to_string(n - 1) + " values, expected " + std::to_string(n));
  expect_failure(sa_graph_pagerank_start(nullptr, all.data(), all.data(), n, &dangling), SA_EINVAL,
                 "sa_graph_pagerank_start", "g is NULL");
  expect_failure(sa_graph_pagerank_start(g.p, all.data(), all.data(), n, nullptr), SA_EINVAL, "sa_graph_pagerank_start",
                 "dangling_vertices is NULL");
  // One buffer for both outputs left the contributions in it and returned SA_OK.
  expect_failure(sa_graph_pagerank_start(g.p, all.data(), all.data(), n, &dangling), SA_EINVAL, "sa_graph_pagerank_start",
                 "ranks and contributions overlap");
  for (const double bad : {std::nan(""), -HUGE_VAL, -0.5}) {
    expect_failure(sa_graph_pagerank_step(g.p, nullptr, all.data(), n, other.data(), bad, other.data(), third.data(), n, &d, &left),
                   SA_EINVAL, "sa_graph_pagerank_step", "dangling must be the dangling vertices' rank, a finite number >= 0");
  }
  expect_failure(sa_graph_pagerank_step(g.p, nullptr, all.data(), n - 1, all.data(), 0, other.data(), third.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "contributions holds");
  expect_failure(sa_graph_pagerank_step(g.p, nullptr, all.data(), n, all.data(), 0, nullptr, third.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "new_ranks (with n > 0) is NULL");
  sa_pagerank_options o;
  sa_pagerank_options_init(&o);
  o.scores = SA_SCORES_F32;
  expect_failure(sa_graph_pagerank_step(g.p, &o, all.data(), n, all.data(), 0, other.data(), third.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "scores must be f64");
  o.reserved = 5;
  expect_failure(sa_graph_pagerank_step(g.p, &o, all.data(), n, all.data(), 0, other.data(), third.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "o->reserved must be 0 (sa_pagerank_options_init), got 5");
  o.reserved = 0;
  int32_t bad_rule = 7;
  std::memcpy(&o.dangling, &bad_rule, sizeof bad_rule);
  o.scores = SA_SCORES_F64;
  expect_failure(sa_graph_pagerank_step(g.p, &o, all.data(), n, all.data(), 0, other.data(), third.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "o->dangling 7");
  // new_ranks may be ranks itself; any other sharing of a written buffer is refused.
  sa_pagerank_options_init(&o);
  EXPECT_EQ(sa_graph_pagerank_step(g.p, &o, all.data(), n, other.data(), 0, other.data(), third.data(), n, &d, &left), SA_OK)
      << sa_last_error();
  EXPECT_EQ(sa_graph_pagerank_step(g.p, &o, all.data(), n, other.data(), 0, other.data(), all.data(), n, &d, &left), SA_OK)
      << "both in place over the whole graph: " << sa_last_error();
  std::vector<double> wider(n + 1);
  expect_failure(sa_graph_pagerank_step(g.p, &o, wider.data(), n, other.data(), 0, third.data(), wider.data() + 1, n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "new_contributions and contributions (unless the same buffer");
  expect_failure(sa_graph_pagerank_step(g.p, &o, all.data(), n, other.data(), 0, third.data(), third.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "new_contributions and new_ranks overlap");
  expect_failure(sa_graph_pagerank_step(g.p, &o, all.data(), n, other.data(), 0, third.data(), other.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "new_contributions and ranks overlap");
  expect_failure(sa_graph_pagerank_step(g.p, &o, all.data(), n, other.data(), 0, all.data(), third.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "new_ranks and contributions overlap");
  std::vector<double> wide(n + 1);
  expect_failure(sa_graph_pagerank_step(g.p, &o, all.data(), n, wide.data(), 0, wide.data() + 1, third.data(), n, &d, &left),
                 SA_EINVAL, "sa_graph_pagerank_step", "new_ranks and ranks (unless the same buffer) overlap");
}

TEST(PullPartCapi, BadArgumentsNameTheFunction) {
  smartarrays::test::ScratchDir dir;
  Graph g;
  ASSERT_EQ(sa_graph_generate_rmat(6, 4, 2, nullptr, &g.p), SA_OK);
  const uint64_t n = sa_graph_vertices(g.p);
  Part part;
  expect_failure(sa_graph_pull_part(g.p, n, 1, &part.p), SA_EINVAL, "sa_graph_pull_part", "outside the graph's");
  expect_failure(sa_graph_pull_part(nullptr, 0, 1, &part.p), SA_EINVAL, "sa_graph_pull_part", "g is NULL");
  expect_failure(sa_sg_pull_part(dir.file("missing.sg").c_str(), 0, 1, &part.p), SA_EOS, "sa_sg_pull_part", "missing.sg");
  uint64_t vertices = 0;
  expect_failure(sa_sg_vertices(dir.write("bad.sg", "xx").c_str(), &vertices), SA_EINVAL, "sa_sg_vertices", "17-byte header");
  ASSERT_EQ(sa_graph_pull_part(g.p, 0, 4, &part.p), SA_OK);
  std::vector<double> four(4), four_more(4), three(3), all(n);
  uint64_t dangling = 0;
  double d = 0, left = 0;
  expect_failure(sa_pull_part_start(part.p, three.data(), four.data(), 3, &dangling), SA_EINVAL, "sa_pull_part_start",
                 "ranks holds 3 values, expected 4");
  expect_failure(sa_pull_part_step(part.p, nullptr, all.data(), n - 1, four.data(), 0, four.data(), four_more.data(), 4, &d, &left),
                 SA_EINVAL, "sa_pull_part_step", "contributions holds");
  sa_pagerank_options o;
  sa_pagerank_options_init(&o);
  o.scores = SA_SCORES_F32;
  expect_failure(sa_pull_part_step(part.p, &o, all.data(), n, four.data(), 0, four.data(), four_more.data(), 4, &d, &left),
                 SA_EINVAL, "sa_pull_part_step", "scores must be f64");
  o.scores = SA_SCORES_F64;
  o.damping = 3;
  expect_failure(sa_pull_part_step(part.p, &o, all.data(), n, four.data(), 0, four.data(), four_more.data(), 4, &d, &left),
                 SA_EINVAL, "sa_pull_part_step", "damping");
  EXPECT_EQ(sa_pull_part_count(nullptr), 0u);
  sa_pull_part_free(nullptr);
}

}  // namespace
