// Owns the C ABI's failure handling: the thread-local sa_last_error() message, the translation of
// every C++ exception into an sa_status, and the NULL-argument checks shared by the entry points.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "smartarrays.h"
#include "smartarrays/error.hpp"
#include "smartarrays/os/mapping_guard.hpp"
#include "smartarrays/runtime/interrupt.hpp"

namespace smartarrays::capi {

/// Records "function: prefix message" as this thread's sa_last_error() and returns status, with the
/// message's bytes outside printable ASCII escaped (util::printable): C and Java callers print it or
/// decode it as UTF-8, so a raw byte from a path or a file must not reach them. Never throws: the
/// message goes into a fixed thread-local buffer (truncated if longer), so it works out of memory.
sa_status record_failure(const char* function, sa_status status, const char* prefix, std::string_view message) noexcept;

/// The sa_status of an error code (SA_EINTERNAL for a code the C ABI does not know).
sa_status status_of(ErrorCode code) noexcept;

/// Throws Error(invalid_argument) "name is NULL" when pointer is NULL.
inline void require(const void* pointer, const char* name) {
  if (pointer == nullptr) throw_error(ErrorCode::invalid_argument, std::string(name) + " is NULL");
}

/// The calling thread's sa_set_interrupt_check check (check NULL when it has none), and whether it is
/// running now.
struct CallerInterruptCheck {
  sa_interrupt_check check = nullptr;
  void* context = nullptr;
  bool running = false;
};

/// The calling thread's check, as sa_set_interrupt_check last installed it (src/capi/interrupt.cpp).
const CallerInterruptCheck& caller_interrupt_check() noexcept;

/// Calls the thread's check, marked running meanwhile (src/capi/interrupt.cpp).
bool caller_asks_to_stop(CallerInterruptCheck caller);

/// Runs body under the calling thread's interrupt check when it has one, so every long call polls it;
/// a cancellation that check asked for is reported as "interrupted", whichever loop or reader saw it.
/// A call from inside the check is refused: the call it polls from holds the thread (and may wait for
/// its workers), so a nested call would recurse into the check or wait for itself.
template <typename Body>
void run_under_caller_check(Body& body) {
  const CallerInterruptCheck caller = caller_interrupt_check();
  if (caller.running) {
    throw_error(ErrorCode::invalid_argument, "called from an interrupt check, which must not call into smartarrays");
  }
  if (caller.check == nullptr) return body();
  const runtime::InterruptScope scope([caller] { return caller_asks_to_stop(caller); });
  try {
    body();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::cancelled || !scope.interrupted()) throw;
    throw_error(ErrorCode::cancelled, "interrupted");
  }
}

/// Runs body (under the caller's interrupt check); turns whatever it throws, and a fault of a mapped
/// file cut underneath while it ran, into a status and a message, so no exception crosses the ABI.
template <typename Body>
sa_status guarded(const char* function, Body&& body) noexcept {
  // A read of a mapped file cut underneath during the call (zeros, os/mapping_guard) fails it, and
  // is the reason given when the zeros made the call fail otherwise.
  const std::uint64_t faults = os::mapping_faults();
  try {
    run_under_caller_check(body);
    os::check_mapping_faults(faults);
    return SA_OK;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::os_error && os::mapping_faults() != faults) {
      try {
        os::check_mapping_faults(faults);
      } catch (const Error& fault) {
        return record_failure(function, status_of(fault.code()), "", fault.message());
      }
    }
    return record_failure(function, status_of(e.code()), "", e.message());
  } catch (const std::bad_alloc& e) {
    return record_failure(function, SA_ENOMEM, "out of memory: ", e.what());
  } catch (const std::exception& e) {
    return record_failure(function, SA_EINTERNAL, "internal error: ", e.what());
  } catch (...) {
    return record_failure(function, SA_EINTERNAL, "internal error: ", "unknown exception");
  }
}

/// Runs body and returns its value, or fallback (with sa_last_error() set) when it throws.
template <typename T, typename Body>
T guarded_value(const char* function, T fallback, Body&& body) noexcept {
  T result = fallback;
  guarded(function, [&] { result = body(); });
  return result;
}

}  // namespace smartarrays::capi
