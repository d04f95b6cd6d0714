// Owns the C ABI of the smart collections: group-by, hash join, the sorted index (sa_index) and the
// hash map and set (sa_hash_map, sa_hash_set),
// argument checks and translation into collections calls only.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "capi/options.hpp"
#include "smartarrays.h"
#include "smartarrays/collections/group_by.hpp"
#include "smartarrays/collections/hash_join.hpp"
#include "smartarrays/collections/hash_map.hpp"
#include "smartarrays/collections/sorted_index.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

using smartarrays::ArrayOptions;
using smartarrays::ErrorCode;
using smartarrays::SmartArray;
using smartarrays::throw_error;
using smartarrays::capi::guarded;
using smartarrays::capi::guarded_value;
using smartarrays::capi::require;
namespace collections = smartarrays::collections;

/// An index on the C++ heap.
struct sa_index {
  collections::SortedIndex index;
};

/// A hash map on the C++ heap.
struct sa_hash_map {
  collections::HashMap map;
};

/// A hash set on the C++ heap.
struct sa_hash_set {
  collections::HashSet set;
};

namespace {

const SmartArray& array_arg(const sa_array* a, const char* name) {
  require(a, name);
  return *a->array;
}

ArrayOptions result_options(const sa_options* o) { return smartarrays::capi::to_array_options(o, "o->"); }

// A batch probe's buffers: probe and out are needed once there is anything to probe.
void require_batch(const void* probe, std::uint64_t n, const void* out) {
  if (n > 0) {
    require(probe, "probe (with n > 0)");
    require(out, "out (with n > 0)");
  }
}

}  // namespace

extern "C" {

sa_status sa_group_by(const sa_array* keys, const sa_array* values, sa_aggregate aggregate, const sa_options* o,
                      sa_array** out_keys, sa_array** out_values) {
  return guarded(__func__, [&] {
    const SmartArray& k = array_arg(keys, "keys");
    const SmartArray& v = array_arg(values, "values");
    require(out_keys, "out_keys");
    require(out_values, "out_values");
    // Read as an integer: a value outside the enumeration must not be loaded as an sa_aggregate.
    std::int32_t raw = 0;
    std::memcpy(&raw, &aggregate, sizeof raw);
    if (raw < SA_AGG_COUNT || raw > SA_AGG_MEDIAN) {
      throw_error(ErrorCode::invalid_argument,
                  "invalid aggregate " + std::to_string(raw) + " (SA_AGG_COUNT 0 .. SA_AGG_MEDIAN 4)");
    }
    collections::GroupResult r = collections::GroupBy(k, v, smartarrays::runtime::default_pool(), result_options(o))
                                     .run(static_cast<collections::Aggregate>(raw));
    auto result_keys = std::make_unique<sa_array>(std::move(r.keys));
    *out_values = new sa_array(std::move(r.values));
    *out_keys = result_keys.release();
  });
}

sa_status sa_hash_join_count(const sa_array* left, const sa_array* right, const sa_options* o, uint64_t* out) {
  return guarded(__func__, [&] {
    const SmartArray& l = array_arg(left, "left");
    const SmartArray& r = array_arg(right, "right");
    require(out, "out");
    *out = collections::hash_join_count(l, r, result_options(o));
  });
}

sa_status sa_hash_join_pairs(const sa_array* left, const sa_array* right, const sa_options* o, sa_array** out_left,
                             sa_array** out_right) {
  return guarded(__func__, [&] {
    const SmartArray& l = array_arg(left, "left");
    const SmartArray& r = array_arg(right, "right");
    require(out_left, "out_left");
    require(out_right, "out_right");
    collections::JoinPairs pairs = collections::hash_join_pairs(l, r, result_options(o));
    auto lefts = std::make_unique<sa_array>(std::move(pairs.left_rows));
    *out_right = new sa_array(std::move(pairs.right_rows));
    *out_left = lefts.release();
  });
}

sa_status sa_index_build(const sa_array* keys, const sa_options* o, sa_index** out) {
  return guarded(__func__, [&] {
    const SmartArray& k = array_arg(keys, "keys");
    require(out, "out");
    *out = new sa_index{collections::SortedIndex::build(k, result_options(o))};
  });
}

void sa_index_free(sa_index* index) { delete index; }

uint64_t sa_index_size(const sa_index* index) { return index == nullptr ? 0 : index->index.size(); }

uint64_t sa_index_memory_bytes(const sa_index* index) { return index == nullptr ? 0 : index->index.memory_bytes(); }

sa_status sa_index_lookup(const sa_index* index, const uint64_t* probe, uint64_t n, uint64_t* counts, uint64_t* first) {
  return guarded(__func__, [&] {
    require(index, "index");
    if (n > 0) {
      require(probe, "probe (with n > 0)");
      require(counts, "counts (with n > 0)");
    }
    smartarrays::runtime::parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
      for (std::uint64_t i = lo; i < hi; ++i) {
        const collections::Match m = index->index.find(probe[i]);
        counts[i] = m.count;
        if (first != nullptr) first[i] = m.begin;
      }
    });
  });
}

sa_status sa_index_row(const sa_index* index, uint64_t i, uint64_t* out) {
  return guarded(__func__, [&] {
    require(index, "index");
    require(out, "out");
    *out = index->index.rows().get(i);
  });
}

sa_status sa_index_count_matches(const sa_index* index, const sa_array* probe, uint64_t* out) {
  return guarded(__func__, [&] {
    require(index, "index");
    const SmartArray& p = array_arg(probe, "probe");
    require(out, "out");
    *out = index->index.count_matches(p);
  });
}

sa_status sa_hash_map_build(const sa_array* keys, const sa_array* values, const sa_options* o, sa_hash_map** out) {
  return guarded(__func__, [&] {
    const SmartArray& k = array_arg(keys, "keys");
    const SmartArray& v = array_arg(values, "values");
    require(out, "out");
    *out = new sa_hash_map{collections::HashMap::build(k, v, result_options(o))};
  });
}

void sa_hash_map_free(sa_hash_map* map) { delete map; }

uint64_t sa_hash_map_size(const sa_hash_map* map) { return map == nullptr ? 0 : map->map.size(); }

uint64_t sa_hash_map_memory_bytes(const sa_hash_map* map) { return map == nullptr ? 0 : map->map.memory_bytes(); }

sa_status sa_hash_map_get(const sa_hash_map* map, const uint64_t* probe, uint64_t n, uint64_t missing, uint64_t* out,
                          uint8_t* found) {
  return guarded(__func__, [&] {
    require(map, "map");
    require_batch(probe, n, out);
    map->map.get({probe, n}, {out, n}, missing, {found, found == nullptr ? 0 : n});
  });
}

sa_status sa_hash_set_build(const sa_array* keys, const sa_options* o, sa_hash_set** out) {
  return guarded(__func__, [&] {
    const SmartArray& k = array_arg(keys, "keys");
    require(out, "out");
    *out = new sa_hash_set{collections::HashSet::build(k, result_options(o))};
  });
}

void sa_hash_set_free(sa_hash_set* set) { delete set; }

uint64_t sa_hash_set_size(const sa_hash_set* set) { return set == nullptr ? 0 : set->set.size(); }

uint64_t sa_hash_set_memory_bytes(const sa_hash_set* set) { return set == nullptr ? 0 : set->set.memory_bytes(); }

sa_status sa_hash_set_contains(const sa_hash_set* set, const uint64_t* probe, uint64_t n, uint8_t* out) {
  return guarded(__func__, [&] {
    require(set, "set");
    require_batch(probe, n, out);
    set->set.contains({probe, n}, {out, n});
  });
}

sa_status sa_hash_set_count_contained(const sa_hash_set* set, const sa_array* probe, uint64_t* out) {
  return guarded(__func__, [&] {
    require(set, "set");
    const SmartArray& p = array_arg(probe, "probe");
    require(out, "out");
    *out = set->set.count_contained(p);
  });
}

}  // extern "C"
