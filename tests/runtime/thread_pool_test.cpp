// Tests of ThreadPool loops: exact coverage and reductions over many range/batch/thread shapes,
// stealing from a slow worker, exceptions, cancellation, nesting, concurrent submitters, shutdown.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays::runtime {
namespace {

using test::ScopedFakeTopology;

void expect_each_index_once(ThreadPool& pool, std::uint64_t begin, std::uint64_t end, const LoopOptions& options) {
  std::vector<std::atomic<std::uint32_t>> seen(end - begin);
  pool.parallel_for(
      begin, end,
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t i = lo; i < hi; ++i) seen[i - begin].fetch_add(1, std::memory_order_relaxed);
      },
      options);
  for (std::uint64_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1u) << "index " << begin + i;
}

TEST(ThreadPool, VisitsEveryIndexExactlyOnce) {
  const std::uint64_t ranges[][2] = {{0, 0}, {0, 1}, {41, 42}, {0, 63}, {3, 1000}, {1 << 20, (1 << 20) + 50'001}};
  for (std::size_t threads : {1u, 2u, 3u, 5u}) {
    ThreadPool pool(PoolOptions{.threads = threads});
    ASSERT_EQ(pool.size(), threads);
    for (const auto& range : ranges) {
      for (std::uint64_t batch : {0ull, 1ull, 7ull, 64ull, 4096ull, 1ull << 40}) {
        for (std::uint64_t alignment : {1ull, 64ull}) {
          SCOPED_TRACE(::testing::Message() << threads << " threads, range [" << range[0] << ", " << range[1]
                                            << "), batch " << batch << ", alignment " << alignment);
          expect_each_index_once(pool, range[0], range[1], LoopOptions{.batch = batch, .alignment = alignment});
        }
      }
    }
  }
}

TEST(ThreadPool, VisitsEveryIndexOnceOnFakeNodes) {
  for (const char* spec : {"nodes=2", "nodes=4", "cpus=0;;0"}) {
    ScopedFakeTopology fake(spec);
    for (PinPolicy policy : {PinPolicy::none, PinPolicy::sparse, PinPolicy::dense}) {
      SCOPED_TRACE(::testing::Message() << spec << " " << to_string(policy));
      ThreadPool pool(PoolOptions{.threads = 3, .pinning = policy});
      expect_each_index_once(pool, 5, 100'005, LoopOptions{.batch = 500});
      expect_each_index_once(pool, 0, 10, LoopOptions{.batch = 1, .alignment = 1});
    }
  }
}

TEST(ThreadPool, LoopWithoutStealingCoversEveryPartOnAnyPool) {
  ScopedFakeTopology fake("nodes=2");
  for (PinPolicy policy : {PinPolicy::none, PinPolicy::sparse, PinPolicy::dense}) {
    for (std::size_t threads : {1u, 2u, 3u}) {
      SCOPED_TRACE(::testing::Message() << to_string(policy) << " " << threads << " threads");
      // A pool whose workers all sit on node 0 (or float) must still run node 1's part.
      ThreadPool pool(PoolOptions{.threads = threads, .pinning = policy});
      Loop loop({{0, 0, 5000}, {1, 5000, 10'000}}, LoopOptions{.batch = 64, .steal = false});
      std::vector<std::atomic<std::uint32_t>> seen(10'000);
      pool.run(loop, [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t i = lo; i < hi; ++i) seen[i].fetch_add(1);
      });
      for (std::uint64_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1u) << i;
    }
  }
}

TEST(ThreadPool, ReductionsAreExact) {
  for (std::size_t threads : {1u, 2u, 4u}) {
    ThreadPool pool(PoolOptions{.threads = threads});
    for (std::uint64_t n : {0ull, 1ull, 65ull, 1'000'003ull}) {
      const std::uint64_t begin = 11;
      const std::uint64_t end = begin + n;
      const std::uint64_t sum = pool.parallel_reduce(
          begin, end, std::uint64_t{0},
          [](std::uint64_t lo, std::uint64_t hi) {
            std::uint64_t s = 0;
            for (std::uint64_t i = lo; i < hi; ++i) s += i * i;
            return s;
          },
          [](std::uint64_t a, std::uint64_t b) { return a + b; });
      std::uint64_t expected = 0;
      for (std::uint64_t i = begin; i < end; ++i) expected += i * i;
      EXPECT_EQ(sum, expected) << threads << " threads, n " << n;

      const std::uint64_t max = pool.parallel_reduce(
          begin, end, std::uint64_t{0},
          [](std::uint64_t, std::uint64_t hi, const WorkerContext&) { return hi - 1; },
          [](std::uint64_t a, std::uint64_t b) { return a > b ? a : b; }, LoopOptions{.batch = 100});
      EXPECT_EQ(max, n == 0 ? 0 : end - 1);
    }
  }
}

TEST(ThreadPool, ReducesNonTrivialValues) {
  ThreadPool pool(PoolOptions{.threads = 3});
  // Per-index counts in a vector: a value type that is not a scalar, combined element-wise.
  const auto counts = pool.parallel_reduce(
      0, 10'000, std::vector<std::uint64_t>(7, 0),
      [](std::uint64_t lo, std::uint64_t hi) {
        std::vector<std::uint64_t> c(7, 0);
        for (std::uint64_t i = lo; i < hi; ++i) ++c[i % 7];
        return c;
      },
      [](std::vector<std::uint64_t> a, const std::vector<std::uint64_t>& b) {
        for (std::size_t k = 0; k < a.size(); ++k) a[k] += b[k];
        return a;
      },
      LoopOptions{.batch = 37, .alignment = 1});
  for (std::size_t k = 0; k < 7; ++k) EXPECT_EQ(counts[k], 10'000 / 7 + (k < 10'000 % 7 ? 1 : 0));
}

TEST(ThreadPool, ReducesOverALoopWithExplicitParts) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  Loop loop({{1, 100, 5000}, {0, 7000, 9000}}, LoopOptions{.batch = 128});
  const std::uint64_t sum = pool.reduce(
      loop, std::uint64_t{0},
      [](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t s = 0;
        for (std::uint64_t i = lo; i < hi; ++i) s += i;
        return s;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
  std::uint64_t expected = 0;
  for (std::uint64_t i = 100; i < 5000; ++i) expected += i;
  for (std::uint64_t i = 7000; i < 9000; ++i) expected += i;
  EXPECT_EQ(sum, expected);
}

TEST(ThreadPool, StatsCountEveryBatchAndIndex) {
  ThreadPool pool(PoolOptions{.threads = 3});
  LoopStats stats;
  pool.parallel_for(0, 64'000, [](std::uint64_t, std::uint64_t) {}, LoopOptions{.batch = 640, .stats = &stats});
  ASSERT_EQ(stats.batches.size(), 3u);
  std::uint64_t batches = 0;
  std::uint64_t indices = 0;
  for (std::size_t w = 0; w < 3; ++w) {
    batches += stats.batches[w];
    indices += stats.indices[w];
  }
  EXPECT_EQ(batches, 100u);
  EXPECT_EQ(indices, 64'000u);
}

// One worker per fake node; the node-0 worker blocks in its first batch until every other index
// is done, so the node-1 worker must take node 0's remaining batches: stealing, seen by counts.
TEST(ThreadPool, IdleWorkerStealsFromASlowWorkersNode) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2, .pinning = PinPolicy::sparse});
  ASSERT_EQ(pool.worker_node(0), 0);
  ASSERT_EQ(pool.worker_node(1), 1);
  constexpr std::uint64_t n = 64 * 100;
  std::atomic<std::uint64_t> done{0};
  LoopStats stats;
  pool.parallel_for(
      0, n,
      [&](std::uint64_t lo, std::uint64_t hi, const WorkerContext& ctx) {
        if (ctx.worker == 0) {
          for (std::uint64_t d = done.load(); d != n - (hi - lo); d = done.load()) done.wait(d);
        }
        done.fetch_add(hi - lo);
        done.notify_all();
      },
      LoopOptions{.batch = 64, .stats = &stats});
  EXPECT_EQ(done.load(), n);
  EXPECT_LE(stats.batches[0], 1u);
  EXPECT_GE(stats.batches[1], 99u);
  // Node 0's part holds 50 batches; the slow worker ran at most one of them.
  EXPECT_GE(stats.stolen[1], 49u);
}

TEST(ThreadPool, ExceptionInABodyReachesTheCallerAndStopsTheLoop) {
  ThreadPool pool(PoolOptions{.threads = 2});
  Loop loop(0, 1'000'000, pool.workers_per_node(), LoopOptions{.batch = 1, .alignment = 1});
  std::atomic<bool> thrown{false};
  std::atomic<std::uint64_t> started_after_throw{0};
  try {
    pool.run(loop, [&](std::uint64_t lo, std::uint64_t) {
      if (thrown.load()) {
        // Hold this batch until the failure has stopped the loop: after it, this worker's next()
        // must see the stop, so it starts no further batch.
        while (!loop.stopped()) std::this_thread::yield();
        started_after_throw.fetch_add(1);
      }
      if (lo == 500) {
        thrown.store(true);
        throw std::invalid_argument("bad index 500");
      }
    });
    FAIL() << "the body's exception must propagate";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "bad index 500");
  }
  // Each other worker can start at most the one batch it already took when the loop stopped.
  EXPECT_LE(started_after_throw.load(), pool.size() - 1);
  expect_each_index_once(pool, 0, 1000, {});  // the pool is still usable
}

// Where each batch of a loop ran: the thread, and the worker context it saw.
struct RanOn {
  std::thread::id thread;
  std::size_t worker = 0;
  std::size_t workers = 0;
};

std::vector<RanOn> run_and_record(ThreadPool& pool, std::uint64_t batches) {
  std::vector<RanOn> ran(batches);
  pool.parallel_for(
      0, batches,
      [&](std::uint64_t lo, std::uint64_t hi, const WorkerContext& ctx) {
        for (std::uint64_t i = lo; i < hi; ++i) {
          ran[i] = {std::this_thread::get_id(), ctx.worker, ctx.workers};
          EXPECT_EQ(current_worker(), &ctx);
        }
      },
      LoopOptions{.batch = 1, .alignment = 1});
  return ran;
}

// A one-worker pool whose worker runs wherever the caller may (unpinned, or a one-node topology):
// the caller runs the loop itself, as worker 0, with the worker's context, stats and errors.
TEST(ThreadPool, CallerRunsTheLoopsOfAOneWorkerPoolItCanStandInFor) {
  for (const char* spec : {"", "nodes=1"}) {
    ScopedFakeTopology fake(spec);
    for (PinPolicy pinning : {PinPolicy::none, PinPolicy::sparse, PinPolicy::dense}) {
      if (std::string(spec).empty() && pinning != PinPolicy::none && os::topology().node_count() != 1) continue;
      ThreadPool pool(PoolOptions{.threads = 1, .pinning = pinning});
      for (const RanOn& r : run_and_record(pool, 100)) {
        EXPECT_EQ(r.thread, std::this_thread::get_id()) << spec << " " << to_string(pinning);
        EXPECT_EQ(r.worker, 0u);
        EXPECT_EQ(r.workers, 1u);
      }
      EXPECT_EQ(current_worker(), nullptr) << "the caller's context is restored";
      LoopStats stats;
      pool.parallel_for(0, 6400, [](std::uint64_t, std::uint64_t) {}, LoopOptions{.batch = 640, .stats = &stats});
      EXPECT_EQ(stats.batches, std::vector<std::uint64_t>{10});
      EXPECT_EQ(stats.indices, std::vector<std::uint64_t>{6400});
      EXPECT_THROW(pool.parallel_for(0, 1000,
                                     [](std::uint64_t lo, std::uint64_t) {
                                       if (lo == 512) throw std::invalid_argument("bad index 512");
                                     }),
                   std::invalid_argument);
      expect_each_index_once(pool, 0, 1000, {});
    }
  }
}

// A pinned worker on one of several nodes runs its loops itself: the caller may be on another node.
TEST(ThreadPool, APinnedOneWorkerPoolOnSeveralNodesRunsLoopsOnItsWorker) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 1, .pinning = PinPolicy::sparse});
  for (const RanOn& r : run_and_record(pool, 100)) {
    EXPECT_NE(r.thread, std::this_thread::get_id());
    EXPECT_EQ(r.worker, 0u);
  }
}

TEST(ThreadPool, OnlyOneOfManyExceptionsPropagates) {
  ThreadPool pool(PoolOptions{.threads = 3});
  EXPECT_THROW(pool.parallel_for(
                   0, 10'000, [](std::uint64_t lo, std::uint64_t) { throw Error(ErrorCode::internal, std::to_string(lo)); },
                   LoopOptions{.batch = 10, .alignment = 1}),
               Error);
}

TEST(ThreadPool, CancellationTokenStopsTheLoopWithACancelledError) {
  ThreadPool pool(PoolOptions{.threads = 2});
  CancellationToken token;
  std::atomic<std::uint64_t> batches{0};
  std::atomic<std::uint64_t> started_after_cancel{0};
  try {
    pool.parallel_for(
        0, 1'000'000,
        [&](std::uint64_t, std::uint64_t) {
          // A worker that sees the cancel here sees it in its next next() too, so it runs no more.
          if (token.cancelled()) started_after_cancel.fetch_add(1);
          if (batches.fetch_add(1) == 10) token.cancel();
        },
        LoopOptions{.batch = 1, .alignment = 1, .token = token});
    FAIL() << "a cancelled loop must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::cancelled);
  }
  EXPECT_LE(started_after_cancel.load(), pool.size());
  EXPECT_LT(batches.load(), 1'000'000u);
}

TEST(ThreadPool, LoopCancelledBeforeItStartsRunsNoBatch) {
  ThreadPool pool(PoolOptions{.threads = 2});
  CancellationToken token;
  token.cancel();
  std::atomic<int> batches{0};
  try {
    pool.parallel_for(0, 1000, [&](std::uint64_t, std::uint64_t) { ++batches; }, LoopOptions{.token = token});
    FAIL() << "a cancelled loop must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::cancelled);
  }
  EXPECT_EQ(batches.load(), 0);
}

TEST(ThreadPool, NestedLoopsRunInlineWithoutDeadlock) {
  ThreadPool pool(PoolOptions{.threads = 2});
  constexpr std::uint64_t outer = 64;
  constexpr std::uint64_t inner = 1000;
  std::vector<std::atomic<std::uint32_t>> seen(outer * inner);
  std::atomic<int> mismatched_contexts{0};
  pool.parallel_for(
      0, outer,
      [&](std::uint64_t lo, std::uint64_t hi, const WorkerContext& ctx) {
        for (std::uint64_t o = lo; o < hi; ++o) {
          pool.parallel_for(0, inner, [&](std::uint64_t ilo, std::uint64_t ihi, const WorkerContext& inner_ctx) {
            if (inner_ctx.worker != ctx.worker || current_worker() != &ctx) ++mismatched_contexts;
            for (std::uint64_t i = ilo; i < ihi; ++i) seen[o * inner + i].fetch_add(1);
          });
          const std::uint64_t sum = pool.parallel_reduce(
              0, inner, std::uint64_t{0}, [](std::uint64_t a, std::uint64_t b) { return b - a; },
              [](std::uint64_t a, std::uint64_t b) { return a + b; }, LoopOptions{.batch = 10, .alignment = 1});
          if (sum != inner) ++mismatched_contexts;
        }
      },
      LoopOptions{.batch = 1, .alignment = 1});
  EXPECT_EQ(mismatched_contexts.load(), 0);
  for (std::uint64_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1u) << i;
  EXPECT_EQ(current_worker(), nullptr);
}

TEST(ThreadPool, ExternalThreadsAndWorkersShareOneLoop) {
  ThreadPool pool(PoolOptions{.threads = 2});
  constexpr std::uint64_t n = 300'000;
  Loop loop(0, n, pool.workers_per_node(), LoopOptions{.batch = 16, .alignment = 1});
  std::vector<std::atomic<std::uint8_t>> seen(n);
  auto visit = [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) seen[i].fetch_add(1, std::memory_order_relaxed);
  };
  std::vector<std::thread> external;
  for (int t = 0; t < 3; ++t) {
    external.emplace_back([&] {
      std::uint64_t lo = 0;
      std::uint64_t hi = 0;
      while (loop.next(&lo, &hi)) visit(lo, hi);
    });
  }
  pool.run(loop, visit);
  for (std::thread& t : external) t.join();
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1u) << i;
}

TEST(ThreadPool, ConcurrentSubmittersEachGetTheirWholeLoop) {
  ThreadPool pool(PoolOptions{.threads = 2});
  std::vector<std::uint64_t> sums(4);
  std::vector<std::thread> submitters;
  for (std::size_t t = 0; t < sums.size(); ++t) {
    submitters.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        sums[t] += pool.parallel_reduce(
            0, 10'000 * (t + 1), std::uint64_t{0}, [](std::uint64_t lo, std::uint64_t hi) { return hi - lo; },
            [](std::uint64_t a, std::uint64_t b) { return a + b; });
      }
    });
  }
  for (std::thread& t : submitters) t.join();
  for (std::size_t t = 0; t < sums.size(); ++t) EXPECT_EQ(sums[t], 20u * 10'000 * (t + 1));
}

TEST(ThreadPool, StartsAndShutsDownRepeatedly) {
  for (int round = 0; round < 50; ++round) {
    ThreadPool pool(PoolOptions{.threads = 1 + static_cast<std::size_t>(round % 4),
                                .pinning = static_cast<PinPolicy>(round % 3)});
    if (round % 2 == 0) expect_each_index_once(pool, 0, 500, LoopOptions{.batch = 10, .alignment = 1});
  }
}

TEST(ThreadPool, RejectsALoopMadeForAnotherTopology) {
  ScopedFakeTopology two("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  ScopedFakeTopology three("nodes=3");
  Loop loop(0, 100);
  try {
    pool.run(loop, [](std::uint64_t, std::uint64_t) {});
    FAIL() << "a loop over 3 nodes cannot run on a pool made for 2";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  }
}

TEST(DefaultPool, IsRemadeWhenTheTopologyChanges) {
  ThreadPool& before = default_pool();
  EXPECT_EQ(before.workers_per_node().size(), os::topology().node_count());
  {
    ScopedFakeTopology fake("nodes=2");
    ThreadPool& fake_pool = default_pool();
    EXPECT_EQ(fake_pool.workers_per_node().size(), 2u);
    EXPECT_EQ(parallel_reduce(
                  0, 777, std::uint64_t{0}, [](std::uint64_t lo, std::uint64_t hi) { return hi - lo; },
                  [](std::uint64_t a, std::uint64_t b) { return a + b; }),
              777u);
  }
  EXPECT_EQ(default_pool().workers_per_node().size(), os::topology().node_count());
}

TEST(DefaultThreadCount, ReadsSmartarraysThreads) {
  const char* saved = std::getenv("SMARTARRAYS_THREADS");
  const std::string restore = saved ? saved : "";
  ::setenv("SMARTARRAYS_THREADS", "3", 1);
  EXPECT_EQ(default_thread_count(), 3u);
  for (const char* bad : {"0", "-2", "two", "3x", "100000"}) {
    ::setenv("SMARTARRAYS_THREADS", bad, 1);
    try {
      default_thread_count();
      ADD_FAILURE() << "SMARTARRAYS_THREADS=" << bad << " must be rejected";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  ::unsetenv("SMARTARRAYS_THREADS");
  EXPECT_EQ(default_thread_count(), os::topology().all_cpus().size());
  if (saved) ::setenv("SMARTARRAYS_THREADS", restore.c_str(), 1);
}

}  // namespace
}  // namespace smartarrays::runtime
