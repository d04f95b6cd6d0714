// Owns the sa_live entry points of the C ABI: argument checks and translation to build::LiveArray.
#include <cstdint>
#include <memory>
#include <utility>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "capi/options.hpp"
#include "smartarrays.h"
#include "smartarrays/build/live_array.hpp"

namespace {

using smartarrays::ErrorCode;
using smartarrays::throw_error;
using smartarrays::capi::guarded;
using smartarrays::capi::guarded_value;
using smartarrays::capi::require;

}  // namespace

extern "C" {

sa_status sa_live_create(sa_array** a, sa_live** out) {
  return guarded(__func__, [&] {
    require(a, "a");
    require(*a, "*a");
    require(out, "out");
    if (!(*a)->owned) {
      throw_error(ErrorCode::invalid_argument, "*a is read-only (a store's array or a live array's snapshot)");
    }
    auto live = std::unique_ptr<sa_live>(new sa_live{smartarrays::build::LiveArray(std::move(*(*a)->owned))});
    delete *a;
    *a = nullptr;
    *out = live.release();
  });
}

void sa_live_free(sa_live* l) { delete l; }

sa_status sa_live_pin(const sa_live* l, sa_array** snapshot) {
  return guarded(__func__, [&] {
    require(l, "l");
    require(snapshot, "snapshot");
    smartarrays::build::LiveArray::Snapshot pinned = l->live.pin();
    const smartarrays::SmartArray& array = *pinned;
    *snapshot = new sa_array(array, std::move(pinned));
  });
}

sa_status sa_live_relayout(sa_live* l, const sa_options* o, uint64_t* version) {
  return guarded(__func__, [&] {
    require(l, "l");
    const std::uint64_t next = l->live.relayout(smartarrays::capi::to_array_options(o, "o->"));
    if (version != nullptr) *version = next;
  });
}

uint64_t sa_live_version(const sa_live* l) {
  return guarded_value(__func__, std::uint64_t{0}, [&] {
    require(l, "l");
    return l->live.version();
  });
}

uint64_t sa_live_length(const sa_live* l) {
  return guarded_value(__func__, std::uint64_t{0}, [&] {
    require(l, "l");
    return l->live.length();
  });
}

}  // extern "C"
