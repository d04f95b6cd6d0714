// Tests of the interrupt check (runtime/interrupt.hpp): a check installed by an InterruptScope
// stops a pool loop the thread waits for, check_interrupt() between serial steps and a wait for a
// file descriptor, scopes nest and restore, and threads without a scope are never interrupted.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>

#include "smartarrays/error.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::runtime {
namespace {

// Runs f, expecting Error(cancelled).
template <typename F>
void expect_cancelled(F&& f) {
  try {
    f();
    ADD_FAILURE() << "expected Error(cancelled)";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::cancelled) << e.what();
  }
}

TEST(Interrupt, AWaitingCallerCancelsTheLoopWhenItsCheckSaysStop) {
  ThreadPool pool(PoolOptions{.threads = 2});
  constexpr std::uint64_t batches = 100000;  // a millisecond each: minutes if nothing stopped them
  std::atomic<std::uint64_t> ran{0};
  std::atomic<int> polls{0};
  InterruptScope scope([&] { return polls.fetch_add(1) >= 2; });
  LoopOptions one_per_batch;
  one_per_batch.batch = 1;
  one_per_batch.alignment = 1;
  expect_cancelled([&] {
    pool.parallel_for(
        0, batches,
        [&](std::uint64_t, std::uint64_t) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          ran.fetch_add(1);
        },
        one_per_batch);
  });
  EXPECT_TRUE(scope.interrupted());
  EXPECT_LT(ran.load(), batches);
  EXPECT_EQ(polls.load(), 3) << "the check is not called again once it said stop";
}

// On a one-worker pool the caller runs the loop itself and polls its check between batches.
TEST(Interrupt, ACallerRunningTheLoopItselfCancelsItWhenItsCheckSaysStop) {
  ThreadPool pool(PoolOptions{.threads = 1, .pinning = PinPolicy::none});
  constexpr std::uint64_t batches = 100000;  // a millisecond each: minutes if nothing stopped them
  std::uint64_t ran = 0;
  int polls = 0;
  InterruptScope scope([&] { return polls++ >= 2; });
  expect_cancelled([&] {
    pool.parallel_for(
        0, batches,
        [&](std::uint64_t, std::uint64_t) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          ++ran;
        },
        LoopOptions{.batch = 1, .alignment = 1});
  });
  EXPECT_TRUE(scope.interrupted());
  EXPECT_LT(ran, batches);
  EXPECT_EQ(polls, 3) << "the check is not called again once it said stop";
}

TEST(Interrupt, AWaitForADescriptorPollsTheCheckAndEndsWhenReady) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  int polls = 0;
  {
    const InterruptScope scope([&] { return ++polls >= 3; });
    const auto start = std::chrono::steady_clock::now();
    expect_cancelled([&] { wait_ready(fds[0], POLLIN); });  // nothing is ever written
    EXPECT_EQ(polls, 3);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 2 * interrupt_poll_interval);
  }
  // Without a check the wait is one poll, ended by the data.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(::write(fds[1], "x", 1), 1);
  });
  wait_ready(fds[0], POLLIN);
  writer.join();
  wait_ready(fds[1], POLLOUT);
  ::close(fds[1]);
  wait_ready(fds[0], POLLIN);  // ready: data, then the end of the pipe, are for the read to report
  ::close(fds[0]);
  // poll() passes over a negative descriptor, which would never be ready: an error, not a wait.
  try {
    wait_ready(-1, POLLOUT);
    ADD_FAILURE() << "waited for descriptor -1";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error) << e.what();
  }
}

TEST(Interrupt, AnInterruptedCallerStartsNoLoop) {
  ThreadPool pool(PoolOptions{.threads = 2});
  InterruptScope scope([] { return true; });
  bool ran = false;
  expect_cancelled([&] { pool.parallel_for(0, 10, [&](std::uint64_t, std::uint64_t) { ran = true; }); });
  EXPECT_FALSE(ran);
}

TEST(Interrupt, LoopsWithoutAScopeOrWithAQuietCheckRunToTheEnd) {
  ThreadPool pool(PoolOptions{.threads = 2});
  std::atomic<std::uint64_t> ran{0};
  auto run = [&] {
    pool.parallel_for(0, 4096, [&](std::uint64_t lo, std::uint64_t hi) { ran.fetch_add(hi - lo); });
  };
  run();
  InterruptScope quiet([] { return false; });
  run();
  EXPECT_EQ(ran.load(), 2u * 4096);
  EXPECT_FALSE(quiet.interrupted());
}

TEST(Interrupt, CheckInterruptThrowsBetweenSerialStepsOnceTheCheckSaysStop) {
  EXPECT_FALSE(has_interrupt_check());
  check_interrupt();  // no scope: never interrupted
  int calls = 0;
  bool stop = false;
  InterruptScope scope([&] {
    ++calls;
    return stop;
  });
  EXPECT_TRUE(has_interrupt_check());
  check_interrupt();
  EXPECT_EQ(calls, 1) << "the first check runs at once";
  stop = true;
  EXPECT_TRUE(interrupt_requested(true));
  expect_cancelled([] { check_interrupt(); });
  EXPECT_EQ(calls, 2) << "once stopped, the scope answers without asking again";
}

TEST(Interrupt, ScopesNestAndRestoreAndAThrowingCheckStops) {
  InterruptScope outer([] { return false; });
  {
    InterruptScope inner([]() -> bool { throw std::runtime_error("check failed"); });
    EXPECT_TRUE(interrupt_requested(true));
    EXPECT_TRUE(inner.interrupted());
  }
  EXPECT_FALSE(interrupt_requested(true));
  std::thread other([] { EXPECT_FALSE(has_interrupt_check()) << "a scope belongs to its thread"; });
  other.join();
}

}  // namespace
}  // namespace smartarrays::runtime
