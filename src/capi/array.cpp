// Owns the sa_array entry points of the C ABI: argument checks and translation to SmartArray, nothing more.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "capi/options.hpp"
#include "capi/page_counts.hpp"
#include "smartarrays.h"
#include "smartarrays/adapt/adaptive_array.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/build/bulk.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"

namespace {

using smartarrays::ArrayOptions;
using smartarrays::ErrorCode;
using smartarrays::SmartArray;
using smartarrays::throw_error;
using smartarrays::build::build_array_from_values;
using smartarrays::capi::guarded;
using smartarrays::capi::guarded_value;
using smartarrays::capi::require;

ArrayOptions to_array_options(const sa_options* o, smartarrays::capi::AutoOptions autos) {
  return smartarrays::capi::to_array_options(o, "options->", autos);
}

// An array built in parallel from values, auto options resolved first by the adaptive layer.
template <typename T>
sa_array* array_from_values(std::span<const T> values, const ArrayOptions& options) {
  if (!options.auto_placement && !options.auto_bits) return new sa_array(build_array_from_values(values, options));
  std::uint64_t largest = 0;
  for (T v : values) largest = std::max<std::uint64_t>(largest, v);
  smartarrays::adapt::ResolvedOptions resolved = smartarrays::adapt::resolve(options, values.size(), largest);
  return new sa_array(build_array_from_values(values, resolved.options), resolved.decision->json(-1));
}

const SmartArray& array_of(const sa_array* a) {
  require(a, "a");
  return *a->array;
}

// The array a owns, for writing; a store's array is read-only.
SmartArray& writable_array(sa_array* a, const char* name) {
  require(a, name);
  if (!a->owned) throw_error(ErrorCode::invalid_argument, std::string(name) + " is read-only (a store's array or a live array's snapshot)");
  return *a->owned;
}

}  // namespace

extern "C" {

void sa_options_init(sa_options* o) {
  if (o == nullptr) return;
  *o = sa_options{SA_OS_DEFAULT, 0, 0, SA_HUGE_PAGES_AUTO, nullptr, 0, sa_hints{0, SA_SEQUENTIAL, 1.0, 0}, SA_WRITE_THROUGH};
}

sa_status sa_array_from_u64(const uint64_t* values, uint64_t n, const sa_options* o, sa_array** out) {
  return guarded(__func__, [&] {
    require(out, "out");
    if (n > 0) require(values, "values (with n > 0)");
    *out = array_from_values(std::span<const std::uint64_t>(values, n), to_array_options(o, smartarrays::capi::AutoOptions::taken));
  });
}

sa_status sa_array_from_u32(const uint32_t* values, uint64_t n, const sa_options* o, sa_array** out) {
  return guarded(__func__, [&] {
    require(out, "out");
    if (n > 0) require(values, "values (with n > 0)");
    *out = array_from_values(std::span<const std::uint32_t>(values, n), to_array_options(o, smartarrays::capi::AutoOptions::taken));
  });
}

sa_status sa_array_alloc(uint64_t n, const sa_options* o, sa_array** out) {
  return guarded(__func__, [&] {
    require(out, "out");
    *out = new sa_array(SmartArray::allocate(n, to_array_options(o, smartarrays::capi::AutoOptions::refused)));
  });
}

void sa_array_free(sa_array* a) { delete a; }

uint64_t sa_array_length(const sa_array* a) {
  return guarded_value<uint64_t>(__func__, 0, [&] { return array_of(a).length(); });
}

uint32_t sa_array_bits(const sa_array* a) {
  return guarded_value<uint32_t>(__func__, 0, [&] { return array_of(a).bits(); });
}

sa_placement sa_array_placement(const sa_array* a) {
  return guarded_value<sa_placement>(__func__, SA_OS_DEFAULT,
                                     [&] { return static_cast<sa_placement>(array_of(a).placement()); });
}

uint32_t sa_array_replicas(const sa_array* a) {
  return guarded_value<uint32_t>(__func__, 0, [&] { return static_cast<uint32_t>(array_of(a).replicas()); });
}

int32_t sa_array_huge_pages(const sa_array* a) {
  return guarded_value<int32_t>(__func__, 0, [&] { return static_cast<int32_t>(array_of(a).options().huge_pages); });
}

sa_status sa_array_huge_page_bytes(const sa_array* a, uint32_t replica, uint64_t* bytes) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    require(bytes, "bytes");
    *bytes = array.huge_page_bytes(replica);
  });
}

sa_status sa_array_crc32c(const sa_array* a, uint32_t replica, uint32_t* crc) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    require(crc, "crc");
    *crc = smartarrays::build::crc32c(array, replica);
  });
}

sa_status sa_array_replicas_equal(const sa_array* a, int32_t* equal) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    require(equal, "equal");
    *equal = smartarrays::build::replicas_equal(array) ? 1 : 0;
  });
}

sa_status sa_array_copy_from(sa_array* dst, const sa_array* src) {
  return guarded(__func__, [&] {
    SmartArray& to = writable_array(dst, "dst");
    require(src, "src");
    smartarrays::build::copy_from(to, *src->array);
  });
}

sa_status sa_array_fill(sa_array* a, uint64_t value) {
  return guarded(__func__, [&] {
    smartarrays::build::fill(writable_array(a, "a"), value);
  });
}

int32_t sa_array_write_mode(const sa_array* a) {
  return guarded_value<int32_t>(__func__, 0, [&] { return static_cast<int32_t>(array_of(a).write_mode()); });
}

sa_status sa_array_sync(sa_array* a) {
  return guarded(__func__, [&] {
    require(a, "a");
    if (!a->array->tracks_writes()) return;
    smartarrays::build::sync(writable_array(a, "a"));
  });
}

sa_status sa_array_decision_json(const sa_array* a, const char** json) {
  return guarded(__func__, [&] {
    require(a, "a");
    require(json, "json");
    *json = a->decision_json.c_str();
  });
}

uint64_t sa_array_memory_bytes(const sa_array* a) {
  return guarded_value<uint64_t>(__func__, 0, [&] { return array_of(a).memory_bytes(); });
}

uint32_t sa_array_local_replica(const sa_array* a) {
  return guarded_value<uint32_t>(__func__, 0,
                                 [&] { return static_cast<uint32_t>(array_of(a).local_replica_index()); });
}

sa_status sa_array_get(const sa_array* a, uint64_t i, uint64_t* out) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    require(out, "out");
    *out = array.get(i);
  });
}

sa_status sa_array_set(sa_array* a, uint64_t i, uint64_t v) {
  return guarded(__func__, [&] {
    writable_array(a, "a").init(i, v);
  });
}

sa_status sa_array_decode(const sa_array* a, uint64_t start, uint64_t n, uint64_t* out) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    if (n > 0) require(out, "out (with n > 0)");
    array.decode(start, n, out);
  });
}

sa_status sa_array_unpack_chunk(const sa_array* a, uint64_t chunk, uint64_t* out) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    require(out, "out");
    array.unpack(chunk, out);
  });
}

sa_status sa_array_sum(const sa_array* a, uint64_t* out) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    require(out, "out");
    *out = array.sum();
  });
}

sa_status sa_array_sum_range(const sa_array* a, uint64_t start, uint64_t n, uint64_t* out) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    require(out, "out");
    *out = array.sum(start, n);
  });
}

sa_status sa_array_words(const sa_array* a, uint32_t replica, const uint64_t** words, uint64_t* nwords) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    require(words, "words");
    require(nwords, "nwords");
    const std::uint64_t* data = array.replica(replica);
    *words = data;
    *nwords = array.words_per_replica();
  });
}

sa_status sa_array_pages_per_node(const sa_array* a, uint32_t replica, uint64_t* counts, uint32_t max_nodes) {
  return guarded(__func__, [&] {
    const SmartArray& array = array_of(a);
    array.replica(replica);
    smartarrays::capi::copy_page_counts(array.pages_per_node()[replica], counts, max_nodes);
  });
}

uint32_t sa_min_bits(uint64_t max) { return smartarrays::codec::min_bits(max); }

}  // extern "C"
