// Tests of Loop on its own, taken from one thread or from external threads: exact coverage,
// aligned batches, per-node parts, local-first then remote taking, cancellation and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/runtime/loop.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays::runtime {
namespace {

using test::ScopedFakeTopology;

// Every batch the loop hands out to a single taker on node.
std::vector<Batch> drain(Loop& loop, int node) {
  std::vector<Batch> batches;
  Batch batch;
  while (loop.next(batch, node)) batches.push_back(batch);
  return batches;
}

void expect_exact_cover(const std::vector<Batch>& batches, std::uint64_t begin, std::uint64_t end) {
  std::vector<int> seen(end - begin, 0);
  for (const Batch& b : batches) {
    ASSERT_LE(begin, b.lo);
    ASSERT_LT(b.lo, b.hi) << "empty batch";
    ASSERT_LE(b.hi, end);
    for (std::uint64_t i = b.lo; i < b.hi; ++i) ++seen[i - begin];
  }
  for (std::uint64_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "index " << begin + i;
}

TEST(Loop, CoversEveryIndexOnceForManyRangesAndBatches) {
  ScopedFakeTopology fake("nodes=2");
  const std::uint64_t ranges[][2] = {{0, 0}, {0, 1}, {7, 8}, {5, 1000}, {64, 128}, {3, 64 * 37 + 5}, {1000, 1000}};
  for (const auto& range : ranges) {
    for (std::uint64_t batch : {0ull, 1ull, 3ull, 64ull, 100ull, 5000ull, ~0ull}) {
      for (std::uint64_t alignment : {1ull, 7ull, 64ull}) {
        for (const std::vector<std::size_t>& weights :
             {std::vector<std::size_t>{1, 1}, std::vector<std::size_t>{3, 1}, std::vector<std::size_t>{0, 2}}) {
          SCOPED_TRACE(::testing::Message() << "range [" << range[0] << ", " << range[1] << ") batch " << batch
                                            << " alignment " << alignment << " weights " << weights[0] << ","
                                            << weights[1]);
          Loop loop(range[0], range[1], weights, LoopOptions{.batch = batch, .alignment = alignment});
          const std::vector<Batch> batches = drain(loop, 0);
          expect_exact_cover(batches, range[0], range[1]);
          EXPECT_EQ(loop.batch_size() % alignment, 0u);
          for (const Batch& b : batches) {
            EXPECT_LE(b.hi - b.lo, loop.batch_size());
            // Boundaries inside the range fall on the alignment grid, so no chunk is split.
            if (b.lo != range[0]) {
              EXPECT_EQ(b.lo % alignment, 0u) << b.lo;
            }
            if (b.hi != range[1]) {
              EXPECT_EQ(b.hi % alignment, 0u) << b.hi;
            }
          }
        }
      }
    }
  }
}

TEST(Loop, RangeEndingAtTheLargestIndexDoesNotOverflow) {
  const std::uint64_t end = std::numeric_limits<std::uint64_t>::max();
  Loop loop(end - 1000, end, {}, LoopOptions{.batch = 300, .alignment = 64});
  expect_exact_cover(drain(loop, 0), end - 1000, end);
}

TEST(Loop, PartsFollowTheNodeWeights) {
  ScopedFakeTopology fake("nodes=4");
  const std::vector<std::size_t> weights{1, 0, 2, 1};
  Loop loop(0, 64 * 400, weights, LoopOptions{.batch = 64});
  ASSERT_EQ(loop.parts().size(), 3u);  // the weightless node gets no part
  EXPECT_EQ(loop.parts()[0].node, 0);
  EXPECT_EQ(loop.parts()[1].node, 2);
  EXPECT_EQ(loop.parts()[2].node, 3);
  EXPECT_EQ(loop.parts()[0].end - loop.parts()[0].begin, 64u * 100);
  EXPECT_EQ(loop.parts()[1].end - loop.parts()[1].begin, 64u * 200);
  EXPECT_EQ(loop.parts()[2].end - loop.parts()[2].begin, 64u * 100);
}

TEST(Loop, TakesLocalBatchesBeforeStealingAndStealsInNodeOrder) {
  ScopedFakeTopology fake("nodes=4");  // fake distances: 10 local, 20 to every other node
  Loop loop(0, 64 * 40, std::vector<std::size_t>{1, 1, 1, 1}, LoopOptions{.batch = 64});
  const std::vector<Batch> batches = drain(loop, 2);
  ASSERT_EQ(batches.size(), 40u);
  std::vector<int> owners;
  for (const Batch& b : batches) {
    if (owners.empty() || owners.back() != b.node) owners.push_back(b.node);
  }
  // Own node first, then the equally distant others by id, each drained before the next.
  EXPECT_EQ(owners, (std::vector<int>{2, 0, 1, 3}));
}

TEST(Loop, WithoutStealingATakerGetsOnlyItsOwnNodesBatches) {
  ScopedFakeTopology fake("nodes=2");
  Loop loop(0, 6400, std::vector<std::size_t>{1, 1}, LoopOptions{.batch = 64, .steal = false});
  const std::vector<Batch> node1 = drain(loop, 1);
  ASSERT_FALSE(node1.empty());
  for (const Batch& b : node1) EXPECT_EQ(b.node, 1);
  const std::vector<Batch> node0 = drain(loop, 0);
  for (const Batch& b : node0) EXPECT_EQ(b.node, 0);
  std::vector<Batch> all = node1;
  all.insert(all.end(), node0.begin(), node0.end());
  expect_exact_cover(all, 0, 6400);
}

TEST(Loop, ExplicitPartsEachGoToTheirNode) {
  ScopedFakeTopology fake("nodes=2");
  // Two stripes of one virtual range, as the parallel replica builder uses them.
  Loop loop({{0, 0, 1000}, {1, 1024, 2024}}, LoopOptions{.batch = 128, .steal = false});
  for (const Batch& b : drain(loop, 1)) {
    EXPECT_EQ(b.node, 1);
    EXPECT_GE(b.lo, 1024u);
  }
  for (const Batch& b : drain(loop, 0)) {
    EXPECT_EQ(b.node, 0);
    EXPECT_LE(b.hi, 1000u);
  }
}

TEST(Loop, ExternalThreadsCoverTheRangeExactlyOnceUnderContention) {
  ScopedFakeTopology fake("nodes=2");
  constexpr std::uint64_t begin = 17;
  constexpr std::uint64_t end = 200'017;
  for (std::uint64_t batch : {1ull, 64ull, 1000ull}) {
    Loop loop(begin, end, {}, LoopOptions{.batch = batch, .alignment = 1});
    std::vector<std::atomic<std::uint8_t>> seen(end - begin);
    std::vector<std::thread> takers;
    for (int t = 0; t < 6; ++t) {
      takers.emplace_back([&, t] {
        std::uint64_t lo = 0;
        std::uint64_t hi = 0;
        // Half the takers name their node, half let the loop ask the OS.
        const int node = t % 2 == 0 ? t / 2 % 2 : calling_thread_node;
        while (loop.next(&lo, &hi, node)) {
          for (std::uint64_t i = lo; i < hi; ++i) seen[i - begin].fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
    for (std::thread& t : takers) t.join();
    for (std::uint64_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << begin + i;
  }
}

TEST(Loop, FinishedOnceEveryPartIsHandedOut) {
  ScopedFakeTopology fake("nodes=2");
  Loop loop(0, 640, std::vector<std::size_t>{1, 1}, LoopOptions{.batch = 64, .steal = false});
  EXPECT_FALSE(loop.finished());
  drain(loop, 0);
  EXPECT_FALSE(loop.finished());  // node 1's part is still there for node 1's takers
  drain(loop, 1);
  EXPECT_TRUE(loop.finished());
  Loop empty(5, 5);
  EXPECT_TRUE(empty.finished());
  Loop cancelled(0, 100);
  cancelled.cancel();
  EXPECT_TRUE(cancelled.finished());
}

TEST(Loop, CancelStopsHandingOutBatches) {
  Loop loop(0, 100000, {}, LoopOptions{.batch = 64});
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  ASSERT_TRUE(loop.next(&lo, &hi, 0));
  loop.cancel();
  EXPECT_FALSE(loop.next(&lo, &hi, 0));
  EXPECT_TRUE(loop.stopped());
  EXPECT_TRUE(loop.cancelled());
  try {
    loop.rethrow_if_stopped();
    FAIL() << "a cancelled loop must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::cancelled);
  }
}

TEST(Loop, TokenCancelsEveryLoopHoldingIt) {
  CancellationToken token;
  Loop first(0, 1000, {}, LoopOptions{.token = token});
  Loop second(0, 1000, {}, LoopOptions{.token = token});
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  ASSERT_TRUE(first.next(&lo, &hi, 0));
  token.cancel();
  EXPECT_FALSE(first.next(&lo, &hi, 0));
  EXPECT_FALSE(second.next(&lo, &hi, 0));
  EXPECT_TRUE(second.cancelled());
}

TEST(Loop, FirstFailureWinsAndLaterOnesAreDropped) {
  Loop loop(0, 1000);
  loop.fail(std::make_exception_ptr(std::runtime_error("first")));
  loop.fail(std::make_exception_ptr(std::runtime_error("second")));
  loop.cancel();
  EXPECT_FALSE(loop.cancelled());
  try {
    loop.rethrow_if_stopped();
    FAIL() << "a failed loop must rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "first");
  }
}

TEST(Loop, RejectsBadArguments) {
  ScopedFakeTopology fake("nodes=2");
  auto expect_invalid = [](auto&& make) {
    try {
      make();
      FAIL() << "expected Error(invalid_argument)";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
    }
  };
  expect_invalid([] { Loop loop(10, 5); });
  expect_invalid([] { Loop loop(0, 5, {}, LoopOptions{.alignment = 0}); });
  expect_invalid([] { Loop loop(0, 5, std::vector<std::size_t>{1, 1, 1}); });
  expect_invalid([] { Loop loop(0, 5, std::vector<std::size_t>{0, 0}); });
  expect_invalid([] { Loop loop({{2, 0, 5}}); });
  expect_invalid([] { Loop loop(0, 5, {}, LoopOptions{.layout = {{2, 0, 5}}}); });
  expect_invalid([] { Loop loop(0, 5, {}, LoopOptions{.layout = {{0, 4, 2}}}); });
  expect_invalid([] {
    Loop loop(0, 5);
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    loop.next(&lo, &hi, 7);
  });
}

// A layout's ranges of a node become that node's parts (cut on the alignment grid); indices of
// node -1 ranges and gaps are split by the weights as without a layout.
TEST(Loop, LayoutCutsTheRangeAlongItsRanges) {
  ScopedFakeTopology fake("nodes=4");
  const std::vector<std::size_t> weights{1, 1, 1, 1};
  // Unsorted on purpose; [1000, 1100) is a gap, [1100, 1300) is on no node.
  const std::vector<LoopPart> layout{{2, 500, 1000}, {1, 0, 500}, {-1, 1100, 1300}, {3, 1300, 2000}};
  Loop loop(0, 2000, weights, LoopOptions{.batch = 64, .layout = layout});
  const std::vector<LoopPart>& parts = loop.parts();
  // 500 and 1000 round down to 448 and 960; the gap and the node -1 range spread over all 4 nodes.
  ASSERT_GE(parts.size(), 4u);
  EXPECT_EQ(parts[0].node, 1);
  EXPECT_EQ(parts[0].begin, 0u);
  EXPECT_EQ(parts[0].end, 448u);
  EXPECT_EQ(parts[1].node, 2);
  EXPECT_EQ(parts[1].begin, 448u);
  EXPECT_EQ(parts[1].end, 960u);
  EXPECT_EQ(parts.back().node, 3);
  EXPECT_EQ(parts.back().begin, 1280u);
  EXPECT_EQ(parts.back().end, 2000u);
  std::vector<int> spread_nodes;
  for (std::size_t k = 2; k + 1 < parts.size(); ++k) {
    spread_nodes.push_back(parts[k].node);
    EXPECT_EQ(parts[k].begin, parts[k - 1].end);
  }
  EXPECT_EQ(spread_nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parts[parts.size() - 2].end, 1280u);
  // A taker of node 2 gets node 2's layout range first, every index of it, then steals.
  std::vector<Batch> batches;
  Batch batch;
  while (loop.next(batch, 2) && batch.node == 2 && batch.lo >= 448 && batch.hi <= 960) batches.push_back(batch);
  expect_exact_cover(batches, 448, 960);
}

TEST(Loop, LayoutIsClippedToTheRangeAndCoversItExactly) {
  ScopedFakeTopology fake("nodes=2");
  const std::vector<LoopPart> layout{{0, 0, 6400}, {1, 6400, 12800}};
  for (const auto& range : {std::pair<std::uint64_t, std::uint64_t>{0, 12800}, {100, 7000}, {7000, 7001},
                            {6400, 20000}, {0, 0}}) {
    SCOPED_TRACE(::testing::Message() << "range [" << range.first << ", " << range.second << ")");
    Loop loop(range.first, range.second, {}, LoopOptions{.batch = 128, .layout = layout});
    std::vector<Batch> batches = drain(loop, 0);
    std::vector<Batch> more = drain(loop, 1);
    batches.insert(batches.end(), more.begin(), more.end());
    expect_exact_cover(batches, range.first, range.second);
    for (const Batch& b : batches) {
      if (b.hi <= 6400) {
        EXPECT_EQ(b.node, 0) << b.lo;
      } else if (b.lo >= 6400 && b.hi <= 12800) {
        EXPECT_EQ(b.node, 1) << b.lo;
      }
    }
  }
}

TEST(Loop, LayoutThroughGivesEachItemTheNodeOfItsFirstPosition) {
  // Items with first positions 0, 0, 3, 10, 10, 10, 25, 40 over ranges [0, 10) node 1, [10, 30) node 0,
  // [30, 50) on no node: items 0..2 on node 1, items 3..6 on node 0, item 7 left to the weights.
  const std::vector<std::uint64_t> first{0, 0, 3, 10, 10, 10, 25, 40};
  const std::vector<LoopPart> ranges{{1, 0, 10}, {0, 10, 30}, {-1, 30, 50}};
  const std::vector<LoopPart> items =
      layout_through(ranges, first.size(), [&](std::uint64_t k) { return first[k]; });
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].node, 1);
  EXPECT_EQ(items[0].begin, 0u);
  EXPECT_EQ(items[0].end, 3u);
  EXPECT_EQ(items[1].node, 0);
  EXPECT_EQ(items[1].begin, 3u);
  EXPECT_EQ(items[1].end, 7u);
  EXPECT_TRUE(layout_through(ranges, 0, [&](std::uint64_t k) { return first[k]; }).empty());
}

}  // namespace
}  // namespace smartarrays::runtime
