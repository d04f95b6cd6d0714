// Owns interrupting a long operation from the thread that started it: a check installed for the
// calling thread by an InterruptScope (the Python binding's runs pending signal handlers, so Ctrl-C
// raises KeyboardInterrupt), polled while that thread waits for a pool loop and between the serial
// steps of long operations (a reader's blocks), which then stop with Error(cancelled). Every pool
// loop polls it, so graph loading, generation, building and any algorithm (PageRank) are covered;
// waiting for a file descriptor (wait_ready) polls it too, so a peer that stops reading or sending
// cannot keep a stream from being interrupted, and a scope installs it as the os layer's check for a
// write that a signal cut short, so a file writer whose pipe or FIFO reader stopped reading ends too.
#pragma once

#include <chrono>
#include <functional>

#include "smartarrays/export.hpp"

namespace smartarrays::runtime {

/// How often, at most, a thread calls its interrupt check while it waits or reads.
inline constexpr std::chrono::milliseconds interrupt_poll_interval{20};

/// Installs check as the calling thread's interrupt check for the scope's life, restoring the one it
/// replaces at the end. check returns true to stop the operation; from then on the scope stays
/// interrupted without calling check again. A check that throws counts as true.
class SMARTARRAYS_API InterruptScope {
 public:
  /// Installs check for the calling thread.
  explicit InterruptScope(std::function<bool()> check);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  /// True once the check asked to stop.
  bool interrupted() const noexcept { return interrupted_; }

 private:
  friend bool interrupt_requested(bool);
  std::function<bool()> check_;
  InterruptScope* previous_;
  std::chrono::steady_clock::time_point last_poll_{};
  bool interrupted_ = false;
};

/// True when the calling thread has an interrupt check (its pool waits then poll it).
SMARTARRAYS_API bool has_interrupt_check() noexcept;

/// True when the calling thread's interrupt check asks to stop; the check runs only when
/// interrupt_poll_interval has passed since its last run, or always with now = true.
SMARTARRAYS_API bool interrupt_requested(bool now = false);

/// Throws Error(cancelled) "interrupted" when interrupt_requested(now); called between the serial
/// steps of long operations, with now = true where a signal was seen (a system call cut short).
SMARTARRAYS_API void check_interrupt(bool now = false);

/// Waits until fd is ready for events (poll(2) flags, such as POLLIN or POLLOUT; a hang-up or an
/// error counts as ready, for the read or write that follows to report it), running the calling
/// thread's interrupt check every interrupt_poll_interval meanwhile; a thread without a check waits
/// in one poll. Reads and writes of descriptors a peer may stop serving wait here rather than in the
/// kernel, so Ctrl-C stops them. Throws Error(cancelled) "interrupted", or Error(os_error) when poll fails.
SMARTARRAYS_API void wait_ready(int fd, short events);

}  // namespace smartarrays::runtime
