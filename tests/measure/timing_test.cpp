// Tests of the measuring harness: statistics of known samples, warm-up and timed run counts, the
// verification hook and how its failure surfaces, the alternating order of paired kernels, and
// the thread CPU clock.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "measure/timing.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::measure {
namespace {

TEST(Timing, SummarizeGivesMedianMinMaxAndSpreadKeepingRunOrder) {
  const Timing t = summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(t.seconds, (std::vector<double>{3.0, 1.0, 2.0}));
  EXPECT_EQ(t.median, 2.0);
  EXPECT_EQ(t.min, 1.0);
  EXPECT_EQ(t.max, 3.0);
  EXPECT_EQ(t.spread(), 1.0);  // (3 - 1) / 2
}

TEST(Timing, AnEvenCountTakesTheUpperMiddleAndNoSamplesGiveZeros) {
  EXPECT_EQ(summarize({4.0, 1.0, 3.0, 2.0}).median, 3.0);
  EXPECT_EQ(summarize({5.0}).spread(), 0.0);
  const Timing none = summarize({});
  EXPECT_EQ(none.median, 0.0);
  EXPECT_EQ(none.max, 0.0);
  EXPECT_EQ(none.spread(), 0.0);
}

TEST(Timing, RunTrialsRunsTheWarmUpUntimedThenTheRepetitions) {
  int calls = 0;
  const Timing t = run_trials({.warmup = 2, .repetitions = 3}, [&] { ++calls; });
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(t.seconds.size(), 3u);
  EXPECT_GE(t.min, 0.0);
  EXPECT_LE(t.min, t.median);
  EXPECT_LE(t.median, t.max);
}

TEST(Timing, VerifySeesEveryResultWarmUpIncluded) {
  int next = 0;
  std::vector<int> seen;
  run_trials(
      {.warmup = 1, .repetitions = 2}, [&] { return next++; },
      [&](int result) {
        seen.push_back(result);
        return std::string();
      });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
}

TEST(Timing, AFailedVerificationStopsWithAnInternalErrorNamingTheRun) {
  int runs = 0;
  try {
    run_trials(
        {.warmup = 1, .repetitions = 3}, [&] { return ++runs; },
        [](int run) { return run == 3 ? "sum 7, expected 8" : ""; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::internal);
    EXPECT_EQ(std::string(e.what()), "verification failed on timed run 2 of 3: sum 7, expected 8");
  }
  EXPECT_EQ(runs, 3) << "no run after the failed one";
  try {
    run_trials({.warmup = 1, .repetitions = 1}, [] { return 0; }, [](int) { return std::string("wrong"); });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "verification failed on warm-up run 1 of 1: wrong");
  }
}

TEST(Timing, RunAlternatingInterleavesTheTwoKernels) {
  std::string order;
  const auto [a, b] = run_alternating({.warmup = 1, .repetitions = 2}, [&] { order += 'a'; }, [&] { order += 'b'; });
  EXPECT_EQ(order, "ababab");
  EXPECT_EQ(a.seconds.size(), 2u);
  EXPECT_EQ(b.seconds.size(), 2u);
}

TEST(Timing, RunRoundRobinTakesEveryKernelInTurn) {
  std::string order;
  const std::vector<Timing> t = run_round_robin(
      {.warmup = 1, .repetitions = 2}, {[&] { order += 'a'; }, [&] { order += 'b'; }, [&] { order += 'c'; }});
  EXPECT_EQ(order, "abcabcabc");
  ASSERT_EQ(t.size(), 3u);
  for (const Timing& timing : t) EXPECT_EQ(timing.seconds.size(), 2u);
  EXPECT_TRUE(run_round_robin({.warmup = 1, .repetitions = 2}, {}).empty());
}

TEST(Timing, ThreadCpuClockDoesNotCountTimeTheThreadIsOffTheCpu) {
  // A sleeping thread uses (almost) no CPU: the wall clock counts the sleep, the thread's CPU
  // clock does not (it counts only the few microseconds of the call).
  auto sleep = [] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); };
  const std::vector<Timing> wall = run_round_robin({.warmup = 0, .repetitions = 1}, {sleep});
  const std::vector<Timing> cpu = run_round_robin({.warmup = 0, .repetitions = 1, .clock = Clock::thread_cpu}, {sleep});
  EXPECT_GE(wall[0].median, 0.1);
  EXPECT_LT(cpu[0].median, 0.05);
  EXPECT_GE(cpu[0].median, 0.0);
  int calls = 0;
  EXPECT_GE(time_once(Clock::thread_cpu, [&] { ++calls; }), 0.0);
  EXPECT_EQ(calls, 1);
}

TEST(Timing, TimeOnceRunsItsFunctionOnce) {
  int calls = 0;
  EXPECT_GE(time_once([&] { ++calls; }), 0.0);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace smartarrays::measure
