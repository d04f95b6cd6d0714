// Tests StopSignals, under which every command runs: the first SIGINT or SIGTERM sets the flag and
// interrupts the thread's library calls instead of killing the process, a second one would kill it
// (the default action is back), a signal the parent ignores stays ignored, and the previous
// handlers return when it ends.
#include <gtest/gtest.h>

#include <csignal>

#include "cli/stop_signals.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::cli {
namespace {

using Handler = void (*)(int);

Handler handler_of(int signal) {
  struct sigaction action {};
  ::sigaction(signal, nullptr, &action);
  return action.sa_handler;
}

TEST(StopSignals, TheFirstSignalInterruptsAndTheSecondWouldKill) {
  for (const int signal : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(signal);
    const Handler before = handler_of(signal);
    {
      const StopSignals signals;
      EXPECT_FALSE(StopSignals::requested());
      EXPECT_NE(handler_of(signal), SIG_DFL);
      ASSERT_EQ(std::raise(signal), 0);
      EXPECT_TRUE(StopSignals::requested());
      EXPECT_EQ(handler_of(signal), SIG_DFL) << "a second signal stops the process at once";
      try {
        runtime::check_interrupt();
        ADD_FAILURE() << "expected the thread's library calls to be interrupted";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::cancelled);
      }
    }
    EXPECT_EQ(handler_of(signal), before);
  }
}

TEST(StopSignals, ACommandThatRestoresSystemStateUnwindsOnEverySignal) {
  const Handler before = handler_of(SIGINT);
  {
    const StopSignals signals(SecondSignal::interrupts);
    ASSERT_EQ(std::raise(SIGINT), 0);
    EXPECT_TRUE(StopSignals::requested());
    EXPECT_NE(handler_of(SIGINT), SIG_DFL) << "a second Ctrl-C is caught too";
    ASSERT_EQ(std::raise(SIGINT), 0);
    EXPECT_TRUE(StopSignals::requested());
  }
  EXPECT_EQ(handler_of(SIGINT), before);
}

TEST(StopSignals, ASignalTheParentIgnoresStaysIgnored) {
  // As a shell starts a script's background job, or nohup a command.
  const Handler before = std::signal(SIGINT, SIG_IGN);
  {
    const StopSignals signals;
    EXPECT_EQ(handler_of(SIGINT), SIG_IGN);
    ASSERT_EQ(std::raise(SIGINT), 0);
    EXPECT_FALSE(StopSignals::requested());
    EXPECT_NE(handler_of(SIGTERM), SIG_DFL) << "SIGTERM, not ignored, is still caught";
  }
  EXPECT_EQ(handler_of(SIGINT), SIG_IGN);
  std::signal(SIGINT, before);
}

TEST(StopSignals, ACommandStoppedBySignalExits130) {
  EXPECT_EQ(run_stoppable("test", [] {
              std::raise(SIGINT);
              runtime::check_interrupt();
              return 0;
            }),
            exit_interrupted);
  EXPECT_EQ(run_stoppable("test", [] { return 3; }), 3);
  EXPECT_THROW(run_stoppable("test", []() -> int { throw Error(ErrorCode::cancelled, "cancelled by the library"); }), Error)
      << "a cancellation no signal asked for is an error";
}

}  // namespace
}  // namespace smartarrays::cli
