// Owns the stop flag the signal handler sets, the handlers' installation and restoration, and the
// exit of a command a signal stopped.
#include "cli/stop_signals.hpp"

#include <iostream>
#include <utility>

#include "smartarrays/error.hpp"

namespace smartarrays::cli {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void request_stop(int) { stop_requested = 1; }

}  // namespace

StopSignals::StopSignals(SecondSignal second) : interrupt_([] { return stop_requested != 0; }) {
  stop_requested = 0;
  struct sigaction action {};
  action.sa_handler = request_stop;
  // The handler is reset on its first call, so a second Ctrl-C stops at once a command that has not
  // reached an interrupt check.
  if (second == SecondSignal::kills) action.sa_flags = SA_RESETHAND;
  // A signal the parent ignores stays ignored: a shell starts background jobs of a script with
  // SIGINT ignored, so that Ctrl-C stops only the foreground command (nohup, likewise).
  for (const auto& [signal, old] : {std::pair{SIGINT, &old_int_}, std::pair{SIGTERM, &old_term_}}) {
    ::sigaction(signal, nullptr, old);
    if (old->sa_handler != SIG_IGN) ::sigaction(signal, &action, nullptr);
  }
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

bool StopSignals::requested() noexcept { return stop_requested != 0; }

int run_stoppable(const char* command, const std::function<int()>& steps, SecondSignal second) {
  const StopSignals signals(second);
  try {
    return steps();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::cancelled || !StopSignals::requested()) throw;
    std::cerr << "\nsmartarrays: " << command << ": interrupted\n";
    return exit_interrupted;
  }
}

}  // namespace smartarrays::cli
