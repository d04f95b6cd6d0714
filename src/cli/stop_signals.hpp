// Owns a command's Ctrl-C and SIGTERM: while a StopSignals lives the first one sets a flag instead of
// killing the process (a second one kills it), and its InterruptScope turns the flag into
// Error(cancelled) at the next pool loop or check_interrupt() of the calling thread, so the command
// unwinds (staged output files, system switches, children) and exits with exit_interrupted.
#pragma once

#include <csignal>
#include <functional>

#include "smartarrays/runtime/interrupt.hpp"

namespace smartarrays::cli {

/// Exit code of a command stopped by Ctrl-C or SIGTERM (the shell's 128 + SIGINT).
inline constexpr int exit_interrupted = 128 + SIGINT;

/// Catches the first SIGINT and SIGTERM for its life (the previous handlers come back after; a
/// signal the process ignores stays ignored) and interrupts the library calls of the thread that
/// made it.
class StopSignals {
 public:
  StopSignals();
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

/// Runs steps() while a StopSignals lives; when a signal stopped it (Error(cancelled) after Ctrl-C or
/// SIGTERM) prints "smartarrays: COMMAND: interrupted" and returns exit_interrupted.
int run_stoppable(const char* command, const std::function<int()>& steps);

}  // namespace smartarrays::cli
