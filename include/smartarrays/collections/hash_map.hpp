// Owns HashMap (integer keys -> integer values) and HashSet (integer keys): read-only collections
// made of smart arrays by the HashTable's partitioned parallel build, so placement (replicated:
// probes read their node's copy) and bit compression apply. A slot fuses the key with a presence
// bit in the fewest bits (a 64-bit key array beside it when the key needs all 64); a map stores
// value + 1 in the slot beside the key when both fit 64 bits (one load per lookup), else a presence
// bit and the value in a payload array of the fewest bits. Lookups are vectorised: a batch of probe keys
// is located with prefetching, then values (or presence) are written out.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "smartarrays/collections/hash_table.hpp"

namespace smartarrays::collections {

/// A read-only set of 64-bit keys; move-only; any number of threads may probe it at once.
class SMARTARRAYS_API HashSet {
 public:
  /// The set of keys' values (duplicates count once), built in parallel on pool; options places
  /// every array (bits must be 0: each gets its fewest). Throws Error like SmartArray::allocate.
  static HashSet build(const SmartArray& keys, const ArrayOptions& options = {},
                       runtime::ThreadPool& pool = runtime::default_pool());

  /// True when key is in the set.
  bool contains(std::uint64_t key) const noexcept;
  /// out[k] = 1 when probe[k] is in the set, else 0, in parallel on pool (each worker on its node's
  /// replicas). Throws Error(invalid_argument) when out is not as long as probe.
  void contains(std::span<const std::uint64_t> probe, std::span<std::uint8_t> out,
                runtime::ThreadPool& pool = runtime::default_pool()) const;
  /// How many of probe's values are in the set (a semi-join, counted), in parallel on pool.
  std::uint64_t count_contained(const SmartArray& probe, runtime::ThreadPool& pool = runtime::default_pool()) const;
  /// Distinct keys.
  std::uint64_t size() const noexcept { return table_.distinct(); }
  /// Bits of a slot (the key and its presence bit, or the presence bit alone beside 64-bit keys).
  unsigned slot_bits() const noexcept { return table_.slot_bits(); }
  /// Bytes of every array of the set.
  std::uint64_t memory_bytes() const noexcept { return table_.memory_bytes(); }

 private:
  explicit HashSet(HashTable table) : table_(std::move(table)) {}
  HashTable table_;
};

/// A read-only map from 64-bit keys to 64-bit values; move-only; any number of threads may probe it.
class SMARTARRAYS_API HashMap {
 public:
  /// The map keys[i] -> values[i] (equal lengths), built in parallel on pool; for a key given more
  /// than once the value of its last row wins (as Python's dict(zip(keys, values))). options places
  /// every array (bits must be 0). Throws Error(invalid_argument) "hash map: keys and values differ
  /// in length (A and B)", else like SmartArray::allocate.
  static HashMap build(const SmartArray& keys, const SmartArray& values, const ArrayOptions& options = {},
                       runtime::ThreadPool& pool = runtime::default_pool());

  /// key's value, or nothing when absent.
  std::optional<std::uint64_t> find(std::uint64_t key) const noexcept;
  /// key's value, or missing when absent.
  std::uint64_t get(std::uint64_t key, std::uint64_t missing) const noexcept;
  /// out[k] = probe[k]'s value, or missing when absent, and (when found is not empty) found[k] = 1 or
  /// 0, in parallel on pool (each worker on its node's replicas). Throws Error(invalid_argument) when
  /// out (or a non-empty found) is not as long as probe.
  void get(std::span<const std::uint64_t> probe, std::span<std::uint64_t> out, std::uint64_t missing,
           std::span<std::uint8_t> found = {}, runtime::ThreadPool& pool = runtime::default_pool()) const;
  /// Distinct keys.
  std::uint64_t size() const noexcept { return table_.distinct(); }
  /// Bits of a slot (key and value + 1, or key and presence bit, or the presence bit alone beside 64-bit keys).
  unsigned slot_bits() const noexcept { return table_.slot_bits(); }
  /// True when each value sits in its key's slot (as value + 1), false when in a payload array.
  bool values_in_slots() const noexcept { return table_.value_in_slot_; }
  /// Bits each value takes: those of the largest value + 1 in the slot, else of the largest value.
  unsigned value_bits() const noexcept { return table_.value_in_slot_ ? table_.count_bits_ : table_.payload_.bits(); }
  /// Bytes of every array of the map.
  std::uint64_t memory_bytes() const noexcept { return table_.memory_bytes(); }

 private:
  explicit HashMap(HashTable table) : table_(std::move(table)) {}
  HashTable table_;
};

}  // namespace smartarrays::collections
