// Tests of the generators: the same edges for a seed whatever the thread count, different edges
// for different seeds, the requested sizes with every id in range, R-MAT's skew and quadrant
// weights, and bad options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/generators.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::graph {
namespace {

using runtime::PoolOptions;
using runtime::ThreadPool;

TEST(Generators, SameSeedSameEdgesWhateverTheThreadCount) {
  RmatOptions r;
  r.scale = 12;
  r.seed = 99;
  UniformOptions u{.vertices = 5000, .average_degree = 4.5, .seed = 99};
  ThreadPool one(PoolOptions{.threads = 1});
  const EdgeList rmat1 = generate_rmat(r, one);
  const EdgeList uni1 = generate_uniform(u, one);
  for (std::size_t threads : {2u, 3u}) {
    ThreadPool pool(PoolOptions{.threads = threads});
    EXPECT_EQ(generate_rmat(r, pool).edges, rmat1.edges) << threads << " threads";
    EXPECT_EQ(generate_uniform(u, pool).edges, uni1.edges) << threads << " threads";
  }
  r.seed = 100;
  u.seed = 100;
  EXPECT_NE(generate_rmat(r, one).edges, rmat1.edges);
  EXPECT_NE(generate_uniform(u, one).edges, uni1.edges);
}

TEST(Generators, SizesAndIdsInRange) {
  const EdgeList u = generate_uniform(UniformOptions{.vertices = 1000, .average_degree = 2.5, .seed = 3});
  EXPECT_EQ(u.vertices, 1000u);
  EXPECT_EQ(u.edges.size(), 2500u);
  EXPECT_TRUE(u.directed);
  RmatOptions r;
  r.scale = 11;
  r.edge_factor = 5;
  const EdgeList g = generate_rmat(r);
  EXPECT_EQ(g.vertices, 2048u);
  EXPECT_EQ(g.edges.size(), 5u * 2048u);
  for (const EdgeList* list : {&u, &g}) {
    for (const Edge& e : list->edges) {
      ASSERT_LT(e.src, list->vertices);
      ASSERT_LT(e.dst, list->vertices);
    }
  }
}

TEST(Generators, UniformEndpointsAreSpreadEvenly) {
  const EdgeList u = generate_uniform(UniformOptions{.vertices = 64, .average_degree = 1000, .seed = 8});
  std::vector<std::uint64_t> out(64);
  for (const Edge& e : u.edges) ++out[e.src];
  // Each count is Binomial(64000, 1/64): mean 1000, sd ~31; 6 sd either side.
  for (std::uint64_t c : out) {
    EXPECT_GT(c, 810u);
    EXPECT_LT(c, 1190u);
  }
}

TEST(Generators, RmatFollowsTheQuadrantWeights) {
  RmatOptions r;
  r.scale = 14;
  r.scramble = false;  // unscrambled, the top bit of an id is the first quadrant choice
  const EdgeList g = generate_rmat(r);
  double counts[2][2] = {};
  for (const Edge& e : g.edges) counts[e.src >> 13][e.dst >> 13] += 1;
  const double m = static_cast<double>(g.edges.size());
  EXPECT_NEAR(counts[0][0] / m, 0.57, 0.01);
  EXPECT_NEAR(counts[0][1] / m, 0.19, 0.01);
  EXPECT_NEAR(counts[1][0] / m, 0.19, 0.01);
  EXPECT_NEAR(counts[1][1] / m, 0.05, 0.01);
  // Skewed: the busiest vertex has far more than the average 16 out-edges.
  std::vector<std::uint64_t> out(g.vertices);
  for (const Edge& e : g.edges) ++out[e.src];
  EXPECT_GT(*std::max_element(out.begin(), out.end()), 50u * 16u);
}

TEST(Generators, ScramblingPermutesIds) {
  RmatOptions r;
  r.scale = 10;
  r.scramble = false;
  const EdgeList plain = generate_rmat(r);
  r.scramble = true;
  const EdgeList scrambled = generate_rmat(r);
  ASSERT_EQ(plain.edges.size(), scrambled.edges.size());
  // The same scramble maps plain ids to scrambled ids consistently and one-to-one.
  std::vector<std::int64_t> image(plain.vertices, -1);
  for (std::size_t k = 0; k < plain.edges.size(); ++k) {
    for (auto [from, to] : {std::pair{plain.edges[k].src, scrambled.edges[k].src}, std::pair{plain.edges[k].dst, scrambled.edges[k].dst}}) {
      if (image[from] < 0) image[from] = static_cast<std::int64_t>(to);
      ASSERT_EQ(image[from], static_cast<std::int64_t>(to));
    }
  }
  std::vector<std::int64_t> seen;
  for (std::int64_t v : image) {
    if (v >= 0) seen.push_back(v);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
  EXPECT_NE(image[0], 0);
}

TEST(Generators, BadOptions) {
  EXPECT_THROW(generate_uniform(UniformOptions{.vertices = 0, .average_degree = 1, .seed = 1}), Error);
  EXPECT_THROW(generate_uniform(UniformOptions{.vertices = 10, .average_degree = -1, .seed = 1}), Error);
  EXPECT_THROW(generate_uniform(UniformOptions{.vertices = 10, .average_degree = NAN, .seed = 1}), Error);
  RmatOptions r;
  r.scale = 0;
  EXPECT_THROW(generate_rmat(r), Error);
  r.scale = 10;
  r.a = 0.9;
  EXPECT_THROW(generate_rmat(r), Error);
  r.a = 0.57;
  r.scale = 40;
  r.edge_factor = 2;
  EXPECT_THROW(generate_rmat(r), Error);
}

// A graph beyond the memory limit is refused before its edge list is made (the edge list was
// filled first: 6 GB against a 2 GiB limit before the build refused it).
TEST(Generators, AGraphBeyondTheMemoryLimitIsRefusedBeforeAnyEdgeIsMade) {
  const UniformOptions uniform{.vertices = std::uint64_t{1} << 36, .average_degree = 8, .seed = 1};
  EXPECT_EQ(test::expect_error([&] { generate_uniform(uniform); },
                               {"uniform graph: a graph of 68719476736 vertices and 549755813888 edges needs at least "}),
            ErrorCode::out_of_memory);
  RmatOptions r;
  r.scale = 36;
  r.edge_factor = 8;
  EXPECT_EQ(test::expect_error([&] { generate_rmat(r); },
                               {"R-MAT graph: a graph of 68719476736 vertices and 549755813888 edges needs at least "}),
            ErrorCode::out_of_memory);
}

}  // namespace
}  // namespace smartarrays::graph
