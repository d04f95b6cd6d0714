// Owns the group-by operator over smart arrays (workloads W1 and W2 of the NUMA analytics study):
// COUNT, SUM, MIN, MAX and the exact, holistic MEDIAN of values grouped by integer keys. Keys in a
// dense range are counted into per-task histograms and, for the median, values are scattered into
// group order (a counting sort) and each group's middle is selected; any other keys go through a
// hash-partitioned sort. Results are smart arrays sorted by key, stored in the fewest bits.
#pragma once

#include <cstdint>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::collections {

/// The aggregate functions of GroupBy.
enum class Aggregate : int { count = 0, sum = 1, min = 2, max = 3, median = 4 };

/// "count", "sum", "min", "max" or "median".
SMARTARRAYS_API const char* to_string(Aggregate aggregate) noexcept;
/// The aggregate spelled name; throws Error(invalid_argument) listing the valid names.
SMARTARRAYS_API Aggregate parse_aggregate(std::string_view name);

/// One aggregate per distinct key, in ascending key order.
struct GroupResult {
  SmartArray keys;    ///< the distinct keys, ascending
  SmartArray values;  ///< the aggregate of each key's values (sum wraps modulo 2^64)
  /// Bytes of both arrays.
  std::uint64_t memory_bytes() const noexcept { return keys.memory_bytes() + values.memory_bytes(); }
};

/// Values grouped by keys: a view of two equal-length arrays that must outlive it; each aggregate
/// is one parallel pass (two for the median) on the pool.
class SMARTARRAYS_API GroupBy {
 public:
  /// Groups values by keys; throws Error(invalid_argument) "group by: keys and values differ in
  /// length (N and M)". result_options places the results (bits must be 0: the fewest are used).
  GroupBy(const SmartArray& keys, const SmartArray& values, runtime::ThreadPool& pool = runtime::default_pool(),
          const ArrayOptions& result_options = {});

  /// Rows per key.
  GroupResult count() const { return run(Aggregate::count); }
  /// Wrapping sum of each key's values.
  GroupResult sum() const { return run(Aggregate::sum); }
  /// Smallest value of each key.
  GroupResult min() const { return run(Aggregate::min); }
  /// Largest value of each key.
  GroupResult max() const { return run(Aggregate::max); }
  /// The exact lower median of each key's values: the value at index (c - 1) / 2 of the c sorted ones.
  GroupResult median() const { return run(Aggregate::median); }
  /// The aggregate named by aggregate.
  GroupResult run(Aggregate aggregate) const;
  /// Peak bytes of working memory the last aggregate used besides its result (0 before the first).
  std::uint64_t scratch_bytes() const noexcept { return scratch_bytes_; }

 private:
  const SmartArray& keys_;
  const SmartArray& values_;
  runtime::ThreadPool& pool_;
  ArrayOptions result_options_;
  mutable std::uint64_t scratch_bytes_ = 0;
};

}  // namespace smartarrays::collections
