// Owns HashTable: a read-only integer multimap (key -> the rows holding it) made of smart arrays,
// the build side of the hash join. Open addressing with linear probing in per-partition regions
// (a key's hash picks its partition, so partitions are built in parallel without locks and regions
// start on 64-slot chunks, never sharing a word); a slot holds key and row count fused in the
// fewest bits (count 0 = empty) when they fit 64 bits together, else the key in a 64-bit array of
// its own; the rows of each key sit contiguously in a grouped row array (when asked for). The same
// machinery builds HashMap and HashSet (hash_map.hpp): a presence bit instead of a count, and for a
// map value + 1 in the slot's field when key and value fit 64 bits together, else a presence bit
// and the value in a payload array of the fewest bits.
#pragma once

#include <cstdint>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::collections {

namespace detail {
/// An array of length 0 (one bit per value), the value of a structure's absent parts.
SMARTARRAYS_API SmartArray empty_array();
}  // namespace detail

/// Where one key's rows are: grouped rows [begin, begin + count) (begin 0 without rows).
struct Match {
  std::uint64_t count = 0;  ///< rows holding the key (0: absent)
  std::uint64_t begin = 0;  ///< first position in rows() of the key's rows
};

/// A read-only multimap from 64-bit keys to the row numbers that hold them; move-only.
class SMARTARRAYS_API HashTable {
 public:
  /// Builds the table of keys[i] -> i in parallel on pool. options places every array (bits must
  /// be 0: each gets its fewest; replicated serves probes from each node's copy). with_rows false
  /// keeps counts only (for a counting join). Throws Error like SmartArray::allocate.
  static HashTable build(const SmartArray& keys, const ArrayOptions& options = {}, bool with_rows = true,
                         runtime::ThreadPool& pool = runtime::default_pool());

  /// Where key's rows are (count 0 when absent); begin is the slot's payload (a map's value).
  Match find(std::uint64_t key) const noexcept;
  /// Rows grouped by key (empty without rows): positions [m.begin, m.begin + m.count) of a Match.
  const SmartArray& rows() const noexcept { return rows_; }
  /// Rows the table was built from.
  std::uint64_t size() const noexcept { return size_; }
  /// Distinct keys.
  std::uint64_t distinct() const noexcept { return distinct_; }
  /// Bits of a slot (key and count fused, or the count alone when split).
  unsigned slot_bits() const noexcept { return slots_.bits(); }
  /// Bytes of every array of the table.
  std::uint64_t memory_bytes() const noexcept;

  /// Sum over probe's values of their match counts, probed in parallel on pool, each worker
  /// reading its own node's replicas, the slot width dispatched once per batch.
  std::uint64_t count_matches(const SmartArray& probe, runtime::ThreadPool& pool = runtime::default_pool()) const;

  /// The slot of each of keys[0..n) (not_found when absent) into slots, probed on node's replicas with
  /// the home slot of the key 16 places ahead prefetched; the batch step of every vectorised probe.
  void locate(const std::uint64_t* keys, std::uint64_t n, int node, std::uint64_t* slots) const;
  /// locate's mark of an absent key.
  static constexpr std::uint64_t not_found = ~std::uint64_t{0};

 private:
  HashTable() = default;
  friend struct HashTableBuilder;
  friend class HashMap;
  friend class HashSet;
  template <unsigned B>
  void locate_fused(const std::uint64_t* keys, std::uint64_t n, int node, std::uint64_t* slots) const;
  SmartArray slots_ = detail::empty_array();       // key << count_bits | count, or count alone when split
  SmartArray wide_keys_ = detail::empty_array();   // the keys when split (64 bits), else empty
  SmartArray payload_ = detail::empty_array();     // per slot: first grouped position of its rows, or a map's value
  SmartArray rows_ = detail::empty_array();        // rows grouped by key, each partition's run padded to 64
  SmartArray regions_ = detail::empty_array();     // slot region start of partition p (p = 0..partitions), 64 bits
  unsigned partition_bits_ = 0;
  unsigned count_bits_ = 1;
  bool fused_ = true;
  bool value_in_slot_ = false;  // a map whose slot field is value + 1 (no payload array)
  std::uint64_t max_key_ = 0;
  std::uint64_t size_ = 0;
  std::uint64_t distinct_ = 0;
};

}  // namespace smartarrays::collections
