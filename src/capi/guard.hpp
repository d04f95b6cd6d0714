// Owns the C ABI's failure handling: the thread-local sa_last_error() message, the translation of
// every C++ exception into an sa_status, and the NULL-argument checks shared by the entry points.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "smartarrays.h"
#include "smartarrays/error.hpp"

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

/// Runs body; turns whatever it throws into a status and a message, so no exception crosses the ABI.
template <typename Body>
sa_status guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return SA_OK;
  } catch (const Error& e) {
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
