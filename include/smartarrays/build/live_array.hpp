// Owns LiveArray, the shared and versioned handle of an array that can be re-laid out while it is
// read (Shoal's copy off the critical path): readers pin the current version, a snapshot that stays
// valid and unchanged for as long as they hold it; relayout() builds the values in a new placement
// and/or bit width on the pool, then publishes the new version atomically. A version's memory is
// freed when the last pin of it is dropped, so readers never see a torn or mixed value.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "smartarrays/array/options.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::build {

/// A read-mostly array whose layout can change while threads read it; not movable (readers share it).
/// Every member is thread-safe; relayout() calls run one at a time.
class SMARTARRAYS_API LiveArray {
 public:
  /// One version of the array, read-only; holding it keeps that version's memory alive.
  using Snapshot = std::shared_ptr<const SmartArray>;

  /// Takes over array as version 0. Throws Error(invalid_argument), leaving array as it was, for an
  /// array with writes not yet synced to its other replicas (sync() it first).
  explicit LiveArray(SmartArray&& array);
  /// Shares array as version 0, with no copy (other owners keep reading it; nobody may write it now).
  /// Throws Error(invalid_argument) for a null array.
  explicit LiveArray(Snapshot array);
  LiveArray(const LiveArray&) = delete;
  LiveArray& operator=(const LiveArray&) = delete;

  /// The current version (one mutex-guarded pointer copy; pin once per batch of reads, not per value).
  Snapshot pin() const;
  /// The number of the current version: 0, then one more per completed relayout().
  std::uint64_t version() const;
  /// Number of values (the same in every version).
  std::uint64_t length() const noexcept { return length_; }

  /// Builds the values of the current version with options (placement, nodes, huge pages, bits; bits 0
  /// = the fewest that hold the largest value) in parallel on pool, each replica or stripe by its own
  /// node's workers, while readers go on reading their snapshots; then makes it the current version.
  /// The old version is freed when its last pin is dropped. Returns the new version's number. Throws
  /// Error like SmartArray::allocate, or Error(invalid_argument) naming a value too wide for options.bits;
  /// the current version is then unchanged.
  std::uint64_t relayout(const ArrayOptions& options, runtime::ThreadPool& pool = runtime::default_pool());

 private:
  mutable std::mutex current_mutex_;  // guards current_ and version_
  std::mutex relayout_mutex_;         // one relayout at a time
  Snapshot current_;
  std::uint64_t version_ = 0;
  const std::uint64_t length_;        // after current_: read from it
};

}  // namespace smartarrays::build
