// Owns the one exception type of the C++ API, the error codes it shares with the C ABI, and naming
// what failed in an error from below (with_context).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "smartarrays/export.hpp"

namespace smartarrays {

/// Why an operation failed; the numeric values are the C ABI's sa_status codes.
enum class ErrorCode : std::int32_t {
  invalid_argument = 1,  ///< bad option, bit width, node, spec, or a value too wide for the array
  out_of_range = 2,      ///< index or range past the end
  out_of_memory = 3,     ///< the kernel refused memory (ENOMEM) or a size overflows
  os_error = 4,          ///< a system call failed for another reason (mbind refused, ...)
  unsupported = 5,       ///< the request is valid but this build or machine cannot serve it
  cancelled = 6,         ///< a parallel loop was cancelled
  internal = 7,          ///< a bug: an invariant of the library did not hold
};

/// The exception thrown by every smartarrays C++ API; the message names the offending value.
class SMARTARRAYS_API Error : public std::runtime_error {
 public:
  /// An error with a code and a message that names what was wrong.
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code), message_(std::make_shared<const std::string>(message)) {}
  /// The category of the failure.
  ErrorCode code() const noexcept { return code_; }
  /// The whole message: what() ends at its first NUL byte, this does not (the surfaces escape it).
  const std::string& message() const noexcept { return *message_; }

 private:
  ErrorCode code_;
  std::shared_ptr<const std::string> message_;  // shared: copying an exception must not throw
};

/// Throws Error(code, message); a function so hot paths keep the throw out of line.
[[noreturn]] inline void throw_error(ErrorCode code, const std::string& message) { throw Error(code, message); }

/// Runs f; an Error it throws comes out with the same code as "context: message", for a caller that
/// can name what failed (an array) where the callee could not. An interruption (Error(cancelled))
/// passes unchanged: it is no failure of what is named.
template <typename F>
decltype(auto) with_context(const std::string& context, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::cancelled) throw;
    throw Error(e.code(), context + ": " + e.message());
  }
}

}  // namespace smartarrays
