// Owns the classic implementations of workloads W1-W4, written as the NUMA analytics study's code
// writes them, with ordinary containers over plain 64-bit columns: a concurrent (lock-sharded) hash
// map with a growing std::vector of values per group (W1) or a count per group (W2), a chained hash
// table of individually allocated nodes (W3), and a pointer-based ordered index, std::multimap
// (W4). They allocate as such code does (per group, per tuple, per node), which is what a NUMA
// tuning tool with malloc replacements tunes; the smart implementations are the other side.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::collections::classic {

/// (key, aggregate) per distinct key, ascending by key.
using Groups = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

/// W1: the lower median of each key's values (value at (c - 1) / 2 of the c sorted ones); throws
/// Error(invalid_argument) when the spans differ in length.
SMARTARRAYS_API Groups median_by_key(std::span<const std::uint64_t> keys, std::span<const std::uint64_t> values,
                                     runtime::ThreadPool& pool = runtime::default_pool());

/// W2: the number of rows of each key.
SMARTARRAYS_API Groups count_by_key(std::span<const std::uint64_t> keys, runtime::ThreadPool& pool = runtime::default_pool());

/// W3: pairs (i, j) with build[i] == probe[j], counted through a chained hash table on build
/// (one allocated node per tuple, lock-free pushes) probed in parallel; the table is freed before returning.
SMARTARRAYS_API std::uint64_t hash_join_count(std::span<const std::uint64_t> build, std::span<const std::uint64_t> probe,
                                              runtime::ThreadPool& pool = runtime::default_pool());

/// The pointer-based index of W4: key -> row in a red-black tree (one allocated node per row).
class SMARTARRAYS_API TreeIndex {
 public:
  /// Indexes keys[i] -> i.
  explicit TreeIndex(std::span<const std::uint64_t> keys);
  /// Rows holding key.
  std::uint64_t count(std::uint64_t key) const { return tree_.count(key); }
  /// Indexed rows.
  std::uint64_t size() const noexcept { return tree_.size(); }

 private:
  std::multimap<std::uint64_t, std::uint64_t> tree_;
};

/// W4: the sum over probe of each key's match count in index, looked up in parallel.
SMARTARRAYS_API std::uint64_t index_join_count(const TreeIndex& index, std::span<const std::uint64_t> probe,
                                               runtime::ThreadPool& pool = runtime::default_pool());

}  // namespace smartarrays::collections::classic
