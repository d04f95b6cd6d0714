// Owns SortedIndex: a read-optimised ordered index for the index nested loop join (workload W4):
// the keys sorted into a smart array in the fewest bits with their rows alongside, and over it a
// two-level search structure of chunk fences (the first key of every 64-value chunk, and the first
// of every 64 fences), so a lookup is a binary search in a cache-resident top level, one in a
// 512-byte fence block, and one chunk unpacked.
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
  SmartArray fences_ = detail::empty_array();  // first key of each chunk of keys_, 64 bits
  SmartArray upper_ = detail::empty_array();   // first key of each block of 64 fences, 64 bits
};

}  // namespace smartarrays::collections
