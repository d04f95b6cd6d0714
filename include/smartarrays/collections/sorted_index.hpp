// Owns SortedIndex: a read-optimised ordered index for the index nested loop join (workload W4):
// the keys sorted into a smart array in the fewest bits with their rows alongside, and over it a
// radix directory (a compact, cache-resident table: for each of about size/16 buckets of the key
// range, the first position of a key in that bucket), so a lookup reads one directory entry pair
// and binary-searches the few keys of its bucket in place; batched lookups prefetch both levels.
#pragma once

#include <cstdint>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/collections/hash_table.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::collections {

/// A read-only ordered index from 64-bit keys to the rows holding them; move-only.
class SMARTARRAYS_API SortedIndex {
 public:
  /// Indexes keys[i] -> i, sorted in parallel on pool; options places every array (bits must be 0).
  static SortedIndex build(const SmartArray& keys, const ArrayOptions& options = {},
                           runtime::ThreadPool& pool = runtime::default_pool());

  /// The first position whose key is >= key (size() when none).
  std::uint64_t lower_bound(std::uint64_t key) const;
  /// Where key's rows are: positions [begin, begin + count) of keys() and rows().
  Match find(std::uint64_t key) const;
  /// Sum over probe's values of their match counts, looked up in parallel on pool.
  std::uint64_t count_matches(const SmartArray& probe, runtime::ThreadPool& pool = runtime::default_pool()) const;
  /// The keys, ascending.
  const SmartArray& keys() const noexcept { return keys_; }
  /// The row of each sorted key (rows of equal keys ascending).
  const SmartArray& rows() const noexcept { return rows_; }
  /// Indexed rows.
  std::uint64_t size() const noexcept { return keys_.length(); }
  /// Bytes of every array of the index.
  std::uint64_t memory_bytes() const noexcept;

 private:
  SortedIndex() = default;
  SmartArray keys_ = detail::empty_array();
  SmartArray rows_ = detail::empty_array();
  SmartArray directory_ = detail::empty_array();  // first position of each bucket (buckets + 1 entries)
  std::uint64_t min_key_ = 0;                     // the smallest key; bucket of k = (k - min_key_) >> shift_
  unsigned shift_ = 0;
};

}  // namespace smartarrays::collections
