// Owns the calling thread's interrupt scope (a thread-local stack of scopes) and its rate-limited polling.
#include "smartarrays/runtime/interrupt.hpp"

#include <utility>

#include "smartarrays/error.hpp"

namespace smartarrays::runtime {

namespace {

thread_local InterruptScope* current_scope = nullptr;

}  // namespace

InterruptScope::InterruptScope(std::function<bool()> check) : check_(std::move(check)), previous_(current_scope) {
  current_scope = this;
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

void check_interrupt() {
  if (interrupt_requested()) throw_error(ErrorCode::cancelled, "interrupted");
}

}  // namespace smartarrays::runtime
