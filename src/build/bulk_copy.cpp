// Owns the parallel bulk writes of whole arrays: copy_from (a word copy at equal widths, else each
// block of chunks decoded with the source width's unpack kernel and packed with the destination's)
// and fill (one packed block of the value, copied over every chunk). Every replica is written by
// its own node's workers through the build layer's replica loop.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "build/replica_loop.hpp"
#include "smartarrays/build/bulk.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::build {

namespace {

// Chunks decoded per step of a re-encoding copy: 4 KiB of values, so they stay in the L1 cache
// between the unpack and the pack (measured faster than 32 KiB steps by bench_bulk).
constexpr std::uint64_t block_chunks = 8;

std::string needs_bits(std::uint64_t value, unsigned bits) {
  const unsigned needed = codec::min_bits(value);
  return "needs " + std::to_string(needed) + (needed == 1 ? " bit" : " bits") + ", array has " + std::to_string(bits);
}

// The writable words of every replica of array (Error(invalid_argument) for a read-only array).
std::vector<std::uint64_t*> writable_replicas(SmartArray& array) {
  std::vector<std::uint64_t*> words(array.replicas());
  for (std::size_t r = 0; r < words.size(); ++r) words[r] = array.mutable_replica(r);
  return words;
}

// Every replica was just written in full: a primary-write array has nothing left to sync.
void forget_dirty_groups(SmartArray& array) {
  if (array.tracks_writes()) static_cast<void>(array.take_dirty_groups());
}

// The replica of src a worker of node reads: its node's, unless src has writes not synced yet,
// which only replica 0 holds.
const std::uint64_t* source_words(const SmartArray& src, int node) {
  const bool stale = src.tracks_writes() && src.has_dirty_groups();
  return src.replica(stale ? 0 : src.replica_index_for_node(node));
}

// Whether values[0, count) all fit in bits: one OR over the block the copy decoded anyway.
bool block_fits(const std::uint64_t* values, std::uint64_t count, unsigned bits) noexcept {
  std::uint64_t any = 0;
  for (std::uint64_t j = 0; j < count; ++j) any |= values[j];
  return codec::fits(any, bits);
}

// Throws naming src's first value that does not fit in bits (one parallel decoding pass): the error
// path of a narrowing copy that met a value too wide.
[[noreturn]] void throw_first_too_wide(const SmartArray& src, unsigned bits, runtime::ThreadPool& pool) {
  const codec::Kernels& kernels = codec::kernels(src.bits());
  detail::WorkerBuffers buffers(pool);
  constexpr std::uint64_t none = ~std::uint64_t{0};
  const std::uint64_t first = pool.parallel_reduce(
      0, src.length(), none,
      [&](std::uint64_t lo, std::uint64_t hi, const runtime::WorkerContext& ctx) {
        const std::uint64_t* words = source_words(src, ctx.node);
        std::uint64_t* values = buffers.get(ctx, block_chunks * codec::chunk_values);
        const std::uint64_t end = codec::chunk_count(hi);
        for (std::uint64_t c = lo / codec::chunk_values; c < end; c += block_chunks) {
          const std::uint64_t n = std::min(block_chunks, end - c);
          kernels.unpack(words, c, n, values);
          for (std::uint64_t j = 0; j < n * codec::chunk_values; ++j) {
            if (!codec::fits(values[j], bits)) return c * codec::chunk_values + j;
          }
        }
        return none;
      },
      [](std::uint64_t a, std::uint64_t b) { return std::min(a, b); });
  if (first == none) throw_error(ErrorCode::internal, "copy_from: a value was too wide but none was found");
  std::uint64_t value = 0;
  codec::decode(source_words(src, os::current_node()), src.bits(), first, 1, &value);
  throw_error(ErrorCode::invalid_argument,
              "copy_from: value " + std::to_string(value) + " at index " + std::to_string(first) + " " + needs_bits(value, bits));
}

}  // namespace

void copy_from(SmartArray& dst, const SmartArray& src, runtime::ThreadPool& pool) {
  if (dst.length() != src.length()) {
    throw_error(ErrorCode::invalid_argument, "copy_from: lengths differ (destination " + std::to_string(dst.length()) +
                                                 ", source " + std::to_string(src.length()) + ")");
  }
  const std::vector<std::uint64_t*> to = writable_replicas(dst);
  // Onto itself: the values are there already; a primary-write array's replicas catch up.
  if (&dst == &src) {
    sync(dst, pool);
    return;
  }
  const unsigned from_bits = src.bits();
  const unsigned to_bits = dst.bits();
  // Narrowing: every decoded block is checked before it is packed; the first block too wide stops
  // the copy, and the error path finds the first such value of the array.
  const bool narrowing = from_bits > to_bits;
  std::atomic<bool> too_wide{false};
  const codec::Kernels& unpack = codec::kernels(from_bits);
  const codec::Kernels& pack = codec::kernels(to_bits);
  detail::WorkerBuffers buffers(pool);
  detail::for_each_replica_batch(dst, 0, dst.replicas(), pool, runtime::LoopOptions{.alignment = codec::chunk_values},
                                 [&](const detail::ReplicaBatch& batch, const runtime::WorkerContext& ctx) {
    const std::uint64_t* from = source_words(src, ctx.node);
    std::uint64_t* words = to[batch.replica];
    const std::uint64_t first = batch.begin / codec::chunk_values;
    const std::uint64_t end = codec::chunk_count(batch.end);
    if (from_bits == to_bits) {
      std::memcpy(words + first * to_bits, from + first * to_bits, (end - first) * to_bits * sizeof(std::uint64_t));
      return;
    }
    // A 64-bit stream is its values: decode straight into it, or pack straight from it.
    std::uint64_t* values = from_bits == 64 || to_bits == 64 ? nullptr : buffers.get(ctx, block_chunks * codec::chunk_values);
    for (std::uint64_t c = first; c < end && !too_wide.load(std::memory_order_relaxed); c += block_chunks) {
      const std::uint64_t n = std::min(block_chunks, end - c);
      if (to_bits == 64) {
        unpack.unpack(from, c, n, words + c * codec::chunk_values);
        continue;
      }
      const std::uint64_t* block = from + c * codec::chunk_values;
      if (from_bits != 64) {
        unpack.unpack(from, c, n, values);
        block = values;
      }
      if (narrowing && !block_fits(block, n * codec::chunk_values, to_bits)) {
        too_wide.store(true, std::memory_order_relaxed);
        return;
      }
      pack.pack(block, c, n, words);
    }
  });
  if (too_wide.load()) throw_first_too_wide(src, to_bits, pool);
  forget_dirty_groups(dst);
}

void fill(SmartArray& array, std::uint64_t value, runtime::ThreadPool& pool) {
  const unsigned bits = array.bits();
  if (!codec::fits(value, bits)) throw_error(ErrorCode::invalid_argument, "fill: value " + std::to_string(value) + " " + needs_bits(value, bits));
  const std::vector<std::uint64_t*> to = writable_replicas(array);
  const codec::Kernels& kernels = codec::kernels(bits);
  // Every whole chunk packs to the same bits words: one block of them is copied chunk block by block.
  std::vector<std::uint64_t> values(block_chunks * codec::chunk_values, value);
  std::vector<std::uint64_t> pattern(block_chunks * bits);
  kernels.pack(values.data(), 0, block_chunks, pattern.data());
  // A partial last chunk keeps zeros past the length (the format's padding).
  const std::uint64_t chunks = array.chunks();
  const std::uint64_t tail_values = array.length() % codec::chunk_values;
  std::vector<std::uint64_t> tail(bits);
  std::fill(values.begin() + static_cast<std::ptrdiff_t>(tail_values), values.begin() + codec::chunk_values, 0);
  kernels.pack(values.data(), 0, 1, tail.data());
  detail::for_each_replica_batch(array, 0, array.replicas(), pool, runtime::LoopOptions{.alignment = codec::chunk_values},
                                 [&](const detail::ReplicaBatch& batch, const runtime::WorkerContext&) {
    std::uint64_t* words = to[batch.replica];
    const std::uint64_t end = codec::chunk_count(batch.end);
    for (std::uint64_t c = batch.begin / codec::chunk_values; c < end; c += block_chunks) {
      const std::uint64_t n = std::min(block_chunks, end - c);
      std::memcpy(words + c * bits, pattern.data(), n * bits * sizeof(std::uint64_t));
    }
    if (end == chunks && tail_values != 0) std::memcpy(words + (chunks - 1) * bits, tail.data(), bits * sizeof(std::uint64_t));
  });
  forget_dirty_groups(array);
}

}  // namespace smartarrays::build
