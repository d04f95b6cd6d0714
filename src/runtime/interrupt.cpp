// Owns the calling thread's interrupt scope (a thread-local stack of scopes), its rate-limited
// polling, and waiting for a file descriptor with the check polled meanwhile.
#include "smartarrays/runtime/interrupt.hpp"

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "os/open_file.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::runtime {

namespace {

thread_local InterruptScope* current_scope = nullptr;

}  // namespace

InterruptScope::InterruptScope(std::function<bool()> check) : check_(std::move(check)), previous_(current_scope) {
  current_scope = this;
  // The os layer's writes ask this thread's check when a signal cuts them short.
  os::set_signal_stop_check([] { return interrupt_requested(true); });
}

InterruptScope::~InterruptScope() { current_scope = previous_; }

bool has_interrupt_check() noexcept { return current_scope != nullptr; }

bool interrupt_requested(bool now) {
  InterruptScope* scope = current_scope;
  if (scope == nullptr) return false;
  if (scope->interrupted_) return true;
  const auto time = std::chrono::steady_clock::now();
  if (!now && time - scope->last_poll_ < interrupt_poll_interval) return false;
  scope->last_poll_ = time;
  try {
    scope->interrupted_ = scope->check_ && scope->check_();
  } catch (...) {
    scope->interrupted_ = true;
  }
  return scope->interrupted_;
}

void check_interrupt(bool now) {
  if (interrupt_requested(now)) throw_error(ErrorCode::cancelled, "interrupted");
}

void wait_ready(int fd, short events) {
  // poll() passes over a negative descriptor: it would never be ready.
  if (fd < 0) throw_error(ErrorCode::os_error, "poll of file descriptor " + std::to_string(fd) + ": " + std::strerror(EBADF));
  const int timeout_ms = has_interrupt_check() ? static_cast<int>(interrupt_poll_interval.count()) : -1;
  for (;;) {
    pollfd watched{fd, events, 0};
    const int ready = ::poll(&watched, 1, timeout_ms);
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR) {
      throw_error(ErrorCode::os_error, "poll of file descriptor " + std::to_string(fd) + " failed: " + std::strerror(errno));
    }
    // A signal (EINTR) is looked at now; a quiet interval ends in the rate-limited check.
    check_interrupt(ready < 0);
  }
}

}  // namespace smartarrays::runtime
