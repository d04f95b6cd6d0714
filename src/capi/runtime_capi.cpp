// Owns the C ABI of the parallel runtime: external-thread loops (sa_loop_*) and the default pool's
// size; argument checks and translation to runtime:: only.
#include <cstdint>
#include <new>

#include "capi/guard.hpp"
#include "smartarrays.h"
#include "smartarrays/runtime/loop.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

struct sa_loop {
  sa_loop(std::uint64_t begin, std::uint64_t end, const smartarrays::runtime::LoopOptions& options)
      : loop(begin, end, {}, options) {}
  smartarrays::runtime::Loop loop;
};

namespace {

using smartarrays::capi::guarded;
using smartarrays::capi::guarded_value;
using smartarrays::capi::require;

}  // namespace

extern "C" {

uint32_t sa_runtime_threads(void) {
  return guarded_value<uint32_t>(__func__, 0, [] {
    return static_cast<uint32_t>(smartarrays::runtime::default_pool().size());
  });
}

sa_status sa_loop_create(uint64_t begin, uint64_t end, uint64_t batch, sa_loop** out) {
  return guarded(__func__, [&] {
    require(out, "out");
    *out = nullptr;
    smartarrays::runtime::LoopOptions options;
    options.batch = batch;
    *out = new sa_loop(begin, end, options);
  });
}

sa_status sa_loop_next(sa_loop* loop, int32_t node, uint64_t* lo, uint64_t* hi) {
  return guarded(__func__, [&] {
    require(loop, "loop");
    require(lo, "lo");
    require(hi, "hi");
    // Through locals: a cancelled loop fails with the caller's outputs untouched.
    std::uint64_t first = 0, end = 0;
    if (!loop->loop.next(&first, &end, node)) {
      loop->loop.rethrow_if_stopped();
      first = end = 0;
    }
    *lo = first;
    *hi = end;
  });
}

sa_status sa_loop_cancel(sa_loop* loop) {
  return guarded(__func__, [&] {
    require(loop, "loop");
    loop->loop.cancel();
  });
}

void sa_loop_free(sa_loop* loop) { delete loop; }

}  // extern "C"
