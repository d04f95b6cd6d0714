// Owns the C ABI's interrupt check (sa_set_interrupt_check): the calling thread's check, which
// guarded() installs as a runtime::InterruptScope around every entry point it runs.
#include "capi/guard.hpp"
#include "smartarrays.h"

namespace smartarrays::capi {
namespace {

thread_local CallerInterruptCheck caller_check;

}  // namespace

const CallerInterruptCheck& caller_interrupt_check() noexcept { return caller_check; }

bool caller_asks_to_stop(CallerInterruptCheck caller) {
  struct Running {
    Running() { caller_check.running = true; }
    ~Running() { caller_check.running = false; }
  } const running;
  return caller.check(caller.context) != 0;
}

}  // namespace smartarrays::capi

extern "C" {

sa_status sa_set_interrupt_check(sa_interrupt_check check, void* context) {
  return smartarrays::capi::guarded(__func__, [&] {
    smartarrays::capi::caller_check = {check, check == nullptr ? nullptr : context, false};
  });
}

}  // extern "C"
