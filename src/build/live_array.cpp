// Owns LiveArray: the pinned snapshots (shared pointers to immutable versions, swapped under a mutex
// held for a pointer copy) and relayout (a parallel re-encode of the pinned current version into a
// new array, published only once complete).
#include "smartarrays/build/live_array.hpp"

#include <algorithm>
#include <utility>

#include "smartarrays/build/bulk.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::build {

namespace {
// Refuses an array whose other replicas lack writes: nobody may sync a version.
void check_synced(const SmartArray& array) {
  if (array.has_dirty_groups()) {
    throw_error(ErrorCode::invalid_argument, "a live array needs an array with no unsynced writes: sync() it first");
  }
}

SmartArray&& synced(SmartArray&& array) {
  check_synced(array);
  return std::move(array);
}

LiveArray::Snapshot checked(LiveArray::Snapshot array) {
  if (!array) throw_error(ErrorCode::invalid_argument, "a live array needs an array, got none");
  check_synced(*array);
  return array;
}
}  // namespace

// The check comes before the move, so a refused array stays with its caller.
LiveArray::LiveArray(SmartArray&& array) : LiveArray(std::make_shared<const SmartArray>(synced(std::move(array)))) {}

LiveArray::LiveArray(Snapshot array) : current_(checked(std::move(array))), length_(current_->length()) {}

LiveArray::Snapshot LiveArray::pin() const {
  std::lock_guard lock(current_mutex_);
  return current_;
}

std::uint64_t LiveArray::version() const {
  std::lock_guard lock(current_mutex_);
  return version_;
}

std::uint64_t LiveArray::relayout(const ArrayOptions& options, runtime::ThreadPool& pool) {
  std::lock_guard relayouts(relayout_mutex_);
  const Snapshot source = pin();
  ArrayOptions resolved = options;
  if (resolved.bits == 0) {
    // The fewest bits that hold the largest value, as from_values picks them.
    const std::uint64_t largest = pool.parallel_reduce(
        0, length_, std::uint64_t{0},
        [&](std::uint64_t lo, std::uint64_t hi) {
          std::uint64_t values[codec::chunk_values];
          std::uint64_t most = 0;
          for (std::uint64_t i = lo; i < hi; i += codec::chunk_values) {
            const std::uint64_t count = std::min<std::uint64_t>(codec::chunk_values, hi - i);
            source->decode(i, count, values);
            most = std::max(most, codec::max_value(values, count));
          }
          return most;
        },
        [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); }, runtime::LoopOptions{.layout = stripe_parts(*source)});
    resolved.bits = codec::min_bits(largest);
  }
  // The re-encoding copy writes each replica or stripe of the new array on its own node and reads
  // the source from the copying worker's node's replica.
  SmartArray built = SmartArray::allocate(length_, resolved);
  copy_from(built, *source, pool);
  Snapshot next = std::make_shared<const SmartArray>(std::move(built));
  std::lock_guard lock(current_mutex_);
  current_ = std::move(next);
  return ++version_;
}

}  // namespace smartarrays::build
