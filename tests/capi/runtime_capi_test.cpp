// Tests of the runtime's C ABI: external threads pulling sa_loop batches cover the range exactly
// once, cancellation and bad arguments come back as status codes with a message.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "smartarrays.h"

namespace {

TEST(RuntimeCapi, ExternalThreadsCoverTheRangeExactlyOnce) {
  constexpr uint64_t begin = 1000;
  constexpr uint64_t end = 1000 + 250'003;
  sa_loop* loop = nullptr;
  ASSERT_EQ(sa_loop_create(begin, end, 100, &loop), SA_OK) << sa_last_error();
  std::vector<std::atomic<uint8_t>> seen(end - begin);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 5; ++t) {
    threads.emplace_back([&, t] {
      uint64_t lo = 0;
      uint64_t hi = 0;
      while (true) {
        if (sa_loop_next(loop, t % 2 == 0 ? -1 : 0, &lo, &hi) != SA_OK) {
          ++failures;
          return;
        }
        if (lo == hi) return;
        // Batches never split a 64-value chunk.
        if ((lo != begin && lo % 64 != 0) || (hi != end && hi % 64 != 0)) ++failures;
        for (uint64_t i = lo; i < hi; ++i) seen[i - begin].fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  sa_loop_free(loop);
  EXPECT_EQ(failures.load(), 0);
  for (uint64_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1u) << begin + i;
}

TEST(RuntimeCapi, EmptyRangeIsDoneAtOnce) {
  sa_loop* loop = nullptr;
  ASSERT_EQ(sa_loop_create(7, 7, 0, &loop), SA_OK);
  uint64_t lo = 1;
  uint64_t hi = 2;
  EXPECT_EQ(sa_loop_next(loop, 0, &lo, &hi), SA_OK);
  EXPECT_EQ(lo, hi);
  sa_loop_free(loop);
}

TEST(RuntimeCapi, CancelledLoopReportsCancelled) {
  sa_loop* loop = nullptr;
  ASSERT_EQ(sa_loop_create(0, 1'000'000, 64, &loop), SA_OK);
  uint64_t lo = 0;
  uint64_t hi = 0;
  ASSERT_EQ(sa_loop_next(loop, 0, &lo, &hi), SA_OK);
  EXPECT_LT(lo, hi);
  EXPECT_EQ(sa_loop_cancel(loop), SA_OK);
  const uint64_t taken_lo = lo, taken_hi = hi;
  EXPECT_EQ(sa_loop_next(loop, 0, &lo, &hi), SA_ECANCELLED);
  EXPECT_NE(std::string(sa_last_error()).find("cancelled"), std::string::npos) << sa_last_error();
  // A failed call leaves its outputs untouched (the header's rule).
  EXPECT_EQ(lo, taken_lo);
  EXPECT_EQ(hi, taken_hi);
  sa_loop_free(loop);
}

TEST(RuntimeCapi, BadArgumentsReturnStatusCodes) {
  sa_loop* loop = nullptr;
  EXPECT_EQ(sa_loop_create(10, 5, 0, &loop), SA_EINVAL);
  EXPECT_EQ(loop, nullptr);
  EXPECT_NE(std::string(sa_last_error()).find("10"), std::string::npos) << sa_last_error();
  EXPECT_EQ(sa_loop_create(0, 5, 0, nullptr), SA_EINVAL);
  uint64_t lo = 0;
  uint64_t hi = 0;
  EXPECT_EQ(sa_loop_next(nullptr, 0, &lo, &hi), SA_EINVAL);
  ASSERT_EQ(sa_loop_create(0, 5, 0, &loop), SA_OK);
  EXPECT_EQ(sa_loop_next(loop, 4096, &lo, &hi), SA_EINVAL);
  EXPECT_NE(std::string(sa_last_error()).find("4096"), std::string::npos) << sa_last_error();
  EXPECT_EQ(sa_loop_next(loop, 0, nullptr, &hi), SA_EINVAL);
  EXPECT_EQ(sa_loop_cancel(nullptr), SA_EINVAL);
  sa_loop_free(loop);
  sa_loop_free(nullptr);
}

TEST(RuntimeCapi, RuntimeThreadsFollowsSmartarraysThreadsOrTheUsableCpus) {
  const char* env = std::getenv("SMARTARRAYS_THREADS");
  if (env != nullptr && *env != '\0') {
    EXPECT_EQ(sa_runtime_threads(), std::stoul(env));
  } else {
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
    EXPECT_EQ(sa_runtime_threads(), static_cast<uint32_t>(CPU_COUNT(&set)));
  }
}

}  // namespace
