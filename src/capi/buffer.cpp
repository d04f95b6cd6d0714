// Owns the sa_buffer entry points of the C ABI: placed buffers (smartarrays/array/buffer.hpp).
#include <cstdint>
#include <utility>

#include "capi/guard.hpp"
#include "capi/options.hpp"
#include "capi/page_counts.hpp"
#include "smartarrays.h"
#include "smartarrays/array/buffer.hpp"

/// The handle of a placed buffer: the region it owns.
struct sa_buffer {
  smartarrays::os::MemoryRegion region;
};

namespace {

const smartarrays::os::MemoryRegion& region_of(const sa_buffer* b) {
  smartarrays::capi::require(b, "buffer");
  return b->region;
}

}  // namespace

sa_status sa_buffer_alloc(uint64_t bytes, const sa_options* o, sa_buffer** out) {
  return smartarrays::capi::guarded(__func__, [&] {
    smartarrays::capi::require(out, "out");
    *out = nullptr;
    smartarrays::os::MemoryRegion region =
        smartarrays::allocate_buffer(static_cast<std::size_t>(bytes), smartarrays::capi::to_array_options(o, "options->"));
    *out = new sa_buffer{std::move(region)};
  });
}

void* sa_buffer_data(const sa_buffer* b) { return b == nullptr ? nullptr : b->region.data(); }

uint64_t sa_buffer_bytes(const sa_buffer* b) { return b == nullptr ? 0 : b->region.size(); }

sa_status sa_buffer_huge_page_bytes(const sa_buffer* b, uint64_t* bytes) {
  return smartarrays::capi::guarded(__func__, [&] {
    const smartarrays::os::MemoryRegion& region = region_of(b);
    smartarrays::capi::require(bytes, "bytes");
    *bytes = region.huge_page_bytes();
  });
}

sa_status sa_buffer_pages_per_node(const sa_buffer* b, uint64_t* counts, uint32_t max_nodes) {
  return smartarrays::capi::guarded(__func__, [&] {
    smartarrays::capi::copy_page_counts(region_of(b).pages_per_node(), counts, max_nodes);
  });
}

void sa_buffer_free(sa_buffer* b) { delete b; }
