// Owns the parallel checks of whole arrays: per-replica CRC32C (one CRC per batch of about 1 MiB,
// combined in order by the codec layer's crc32c_combine) and the comparison of replicas with replica
// 0, each replica read by its own node's workers through the build layer's replica loop.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "build/replica_loop.hpp"
#include "codec/crc32c.hpp"
#include "smartarrays/build/bulk.hpp"
#include "smartarrays/codec/bitpack.hpp"

namespace smartarrays::build {

namespace {

// Bytes of words per CRC batch: enough that combining the pieces (one GF(2) product each) is noise.
constexpr std::uint64_t crc_batch_bytes = std::uint64_t{1} << 20;

// Words [first, end) of a replica holding the values of batch.
struct WordRange {
  std::uint64_t first;
  std::uint64_t end;
};

WordRange words_of(const detail::ReplicaBatch& batch, unsigned bits) {
  return {batch.begin / codec::chunk_values * bits, codec::chunk_count(batch.end) * bits};
}

}  // namespace

std::uint32_t crc32c(const SmartArray& array, std::size_t replica, runtime::ThreadPool& pool) {
  array.replica(replica);  // the bounds check and its message
  const unsigned bits = array.bits();
  struct Piece {
    std::uint64_t first;  // first word
    std::uint64_t bytes;
    std::uint32_t crc;
  };
  std::mutex mutex;
  std::vector<Piece> pieces;
  runtime::LoopOptions options{.batch = crc_batch_bytes * 8 / bits, .alignment = codec::chunk_values};
  detail::for_each_replica_batch(array, replica, replica + 1, pool, options,
                                 [&](const detail::ReplicaBatch& batch, const runtime::WorkerContext&) {
    const WordRange range = words_of(batch, bits);
    const std::uint64_t bytes = (range.end - range.first) * sizeof(std::uint64_t);
    const std::uint32_t crc = codec::crc32c(array.replica(batch.replica) + range.first, bytes);
    const std::lock_guard lock(mutex);
    pieces.push_back({range.first, bytes, crc});
  });
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.first < b.first; });
  std::uint32_t crc = 0;  // the CRC of no bytes
  for (const Piece& piece : pieces) crc = codec::crc32c_combine(crc, piece.crc, piece.bytes);
  return crc;
}

bool replicas_equal(const SmartArray& array, runtime::ThreadPool& pool) {
  if (array.replicas() <= 1) return true;
  const unsigned bits = array.bits();
  const std::uint64_t* primary = array.replica(0);
  std::atomic<bool> differ{false};
  detail::for_each_replica_batch(array, 1, array.replicas(), pool, runtime::LoopOptions{.alignment = codec::chunk_values},
                                 [&](const detail::ReplicaBatch& batch, const runtime::WorkerContext&) {
    if (differ.load(std::memory_order_relaxed)) return;
    const WordRange range = words_of(batch, bits);
    if (std::memcmp(array.replica(batch.replica) + range.first, primary + range.first,
                    (range.end - range.first) * sizeof(std::uint64_t)) != 0) {
      differ.store(true, std::memory_order_relaxed);
    }
  });
  return !differ.load();
}

}  // namespace smartarrays::build
