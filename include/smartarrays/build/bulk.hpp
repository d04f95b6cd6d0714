// Owns the bulk operations on whole arrays (Shoal's copy / init_from_value / CRC / repl_sync), run
// in parallel on a pool with every replica read or written by its own node's workers: copy_from
// between any two arrays of equal length, fill, per-replica CRC32C, replica comparison, and sync
// of a primary-write array's dirty groups to its other replicas.
#pragma once

#include <cstddef>
#include <cstdint>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::build {

/// Makes every replica of dst hold src's values: a word copy when the widths match, else each chunk
/// decoded from src and packed into dst (any widths, any placements; src read from the replica of
/// the copying worker's node). Throws Error(invalid_argument) when the lengths differ, when dst is
/// read-only, or naming src's first value too wide for dst (dst is then partly overwritten, and a
/// replicated dst's replicas may differ from each other until it is filled or copied again).
/// Leaves a primary-write dst with no dirty group. Must not run concurrently with other accesses to dst.
SMARTARRAYS_API void copy_from(SmartArray& dst, const SmartArray& src, runtime::ThreadPool& pool = runtime::default_pool());

/// Sets every value of every replica of array to value. Throws Error(invalid_argument) "value V needs
/// N bits, array has B" for a value too wide, or for a read-only array (nothing written either way).
/// Leaves a primary-write array with no dirty group. Must not run concurrently with other accesses.
SMARTARRAYS_API void fill(SmartArray& array, std::uint64_t value, runtime::ThreadPool& pool = runtime::default_pool());

/// SmartArray::crc32c(replica) computed in parallel by the replica's node's workers (per-range CRCs
/// combined); throws Error(out_of_range) for replica >= replicas().
SMARTARRAYS_API std::uint32_t crc32c(const SmartArray& array, std::size_t replica,
                                     runtime::ThreadPool& pool = runtime::default_pool());

/// SmartArray::replicas_equal() in parallel: each replica compared with replica 0 by its node's workers.
SMARTARRAYS_API bool replicas_equal(const SmartArray& array, runtime::ThreadPool& pool = runtime::default_pool());

/// Shoal's repl_sync: copies the groups that writes to a primary-write array (WriteMode::primary)
/// dirtied since the last sync from replica 0 to every other replica, each by its node's workers,
/// and clears them; nothing to do for other arrays. Word-granular relaxed atomic stores: get() on the
/// other replicas may run meanwhile (docs/topology-and-placement.md, "Writable replicas"). Must not
/// run concurrently with writes to array or another sync of it.
SMARTARRAYS_API void sync(SmartArray& array, runtime::ThreadPool& pool = runtime::default_pool());

}  // namespace smartarrays::build
