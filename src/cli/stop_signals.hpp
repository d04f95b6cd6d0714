// Owns a command's Ctrl-C and SIGTERM: while a StopSignals lives the first one sets a flag instead of
// killing the process (a second one kills it, unless the command restores system state), and its
// InterruptScope turns the flag into Error(cancelled) at the next pool loop or check_interrupt() of
// the calling thread, so the command unwinds (staged output files, system switches, children) and
// exits with exit_interrupted.
#pragma once

#include <csignal>
#include <functional>

#include "smartarrays/runtime/interrupt.hpp"

namespace smartarrays::cli {

/// Exit code of a command stopped by Ctrl-C or SIGTERM (the shell's 128 + SIGINT).
inline constexpr int exit_interrupted = 128 + SIGINT;

/// What a second SIGINT or SIGTERM does while a StopSignals lives.
enum class SecondSignal {
  kills,       ///< the default action: a command that has not reached an interrupt check stops at once
  interrupts,  ///< the same as the first: for a command whose unwinding restores system state
};

/// Catches SIGINT and SIGTERM for its life (the previous handlers come back after; a signal the
/// process ignores stays ignored) and interrupts the library calls of the thread that made it.
class StopSignals {
 public:
  explicit StopSignals(SecondSignal second = SecondSignal::kills);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// True once a signal arrived.
  static bool requested() noexcept;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  runtime::InterruptScope interrupt_;
};

/// Runs steps() while a StopSignals(second) lives; when a signal stopped it (Error(cancelled) after
/// Ctrl-C or SIGTERM) prints "smartarrays: COMMAND: interrupted" and returns exit_interrupted.
int run_stoppable(const char* command, const std::function<int()>& steps, SecondSignal second = SecondSignal::kills);

}  // namespace smartarrays::cli
