// Owns the C ABI's version string and thread-local last-error message.
#include <cstddef>
#include <cstdio>

#include "capi/guard.hpp"
#include "smartarrays.h"
#include "smartarrays/util/text.hpp"

namespace smartarrays::capi {

namespace {
// The codes are one numbering shared by C++ and C; a drift would mistranslate every failure.
static_assert(static_cast<sa_status>(ErrorCode::invalid_argument) == SA_EINVAL);
static_assert(static_cast<sa_status>(ErrorCode::out_of_range) == SA_ERANGE);
static_assert(static_cast<sa_status>(ErrorCode::out_of_memory) == SA_ENOMEM);
static_assert(static_cast<sa_status>(ErrorCode::os_error) == SA_EOS);
static_assert(static_cast<sa_status>(ErrorCode::unsupported) == SA_EUNSUPPORTED);
static_assert(static_cast<sa_status>(ErrorCode::cancelled) == SA_ECANCELLED);
static_assert(static_cast<sa_status>(ErrorCode::internal) == SA_EINTERNAL);

// A fixed buffer rather than std::string: recording a failure must not itself fail (e.g. out of memory).
thread_local char last_error[1024] = "";
}  // namespace

sa_status record_failure(const char* function, sa_status status, const char* prefix, std::string_view message) noexcept {
  const int head = std::snprintf(last_error, sizeof last_error, "%s: %s", function, prefix);
  if (head >= 0 && static_cast<std::size_t>(head) < sizeof last_error - 1) {
    util::printable_to(message, last_error + head, sizeof last_error - static_cast<std::size_t>(head));
  }
  return status;
}

sa_status status_of(ErrorCode code) noexcept {
  const auto status = static_cast<sa_status>(code);
  return status >= SA_EINVAL && status <= SA_EINTERNAL ? status : SA_EINTERNAL;
}

}  // namespace smartarrays::capi

extern "C" {

const char* sa_version(void) { return SMARTARRAYS_VERSION_STRING; }

const char* sa_last_error(void) { return smartarrays::capi::last_error; }

}  // extern "C"
