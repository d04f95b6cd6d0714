// Owns sync (Shoal's repl_sync) of primary-write arrays: the dirty-group bitmap is taken (and
// cleared) once, then every other replica copies the dirty groups from replica 0, each replica by
// its own node's workers, with relaxed atomic word stores so that get() on those replicas may run
// meanwhile and reads each word whole, old or new.
#include <algorithm>
#include <atomic>
#include <vector>

#include "build/replica_loop.hpp"
#include "smartarrays/build/bulk.hpp"
#include "smartarrays/codec/bitpack.hpp"

namespace smartarrays::build {

namespace {

void store_words_relaxed(std::uint64_t* to, const std::uint64_t* from, std::uint64_t count) noexcept {
  for (std::uint64_t k = 0; k < count; ++k) std::atomic_ref<std::uint64_t>(to[k]).store(from[k], std::memory_order_relaxed);
}

}  // namespace

void sync(SmartArray& array, runtime::ThreadPool& pool) {
  if (!array.tracks_writes()) return;
  const std::vector<std::uint64_t> dirty = array.take_dirty_groups();
  if (std::all_of(dirty.begin(), dirty.end(), [](std::uint64_t w) { return w == 0; })) return;
  const std::uint64_t group_values = array.dirty_group_values();
  const std::uint64_t group_words = group_values / codec::chunk_values * array.bits();
  const std::uint64_t words = array.words_per_replica();
  const std::uint64_t* primary = array.replica(0);
  std::vector<std::uint64_t*> replicas(array.replicas());
  for (std::size_t r = 1; r < replicas.size(); ++r) replicas[r] = array.mutable_replica(r);
  // Batches of whole groups, so no two workers copy the same group of a replica.
  detail::for_each_replica_batch(array, 1, array.replicas(), pool, runtime::LoopOptions{.alignment = group_values},
                                 [&](const detail::ReplicaBatch& batch, const runtime::WorkerContext&) {
    const std::uint64_t end = (batch.end + group_values - 1) / group_values;
    for (std::uint64_t g = batch.begin / group_values; g < end; ++g) {
      if ((dirty[g / 64] >> (g % 64) & 1) == 0) continue;
      const std::uint64_t first = g * group_words;
      store_words_relaxed(replicas[batch.replica] + first, primary + first, std::min(group_words, words - first));
    }
  });
}

}  // namespace smartarrays::build
