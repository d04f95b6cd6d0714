// Owns the hash join of two key columns (workload W3): a HashTable built on the smaller side,
// the other side probed in parallel, emitting the match count or the matching row pairs.
#pragma once

#include <cstdint>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::collections {

/// The matching row pairs of a join, sorted by left row then right row.
struct JoinPairs {
  SmartArray left_rows;   ///< rows of the left input
  SmartArray right_rows;  ///< rows of the right input, left_rows[i] matching right_rows[i]
};

/// Pairs (i, j) with left[i] == right[j], counted: the table is built on the smaller side (counts
/// only) and placed as table_options says (bits 0), the other side probed in parallel on pool.
SMARTARRAYS_API std::uint64_t hash_join_count(const SmartArray& left, const SmartArray& right,
                                              const ArrayOptions& table_options = {},
                                              runtime::ThreadPool& pool = runtime::default_pool());

/// The pairs themselves (in the fewest bits, placed as table_options says); counts them first and
/// throws Error(out_of_memory) before any is made when they (32 bytes each while put in order)
/// exceed os::memory_limit(), or later when they cannot be held.
SMARTARRAYS_API JoinPairs hash_join_pairs(const SmartArray& left, const SmartArray& right,
                                          const ArrayOptions& table_options = {},
                                          runtime::ThreadPool& pool = runtime::default_pool());

}  // namespace smartarrays::collections
