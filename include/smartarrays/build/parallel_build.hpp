// Owns parallel array construction and refilling: a SmartArray allocated once and filled by the runtime's
// workers in chunk-aligned batches, each replica written only by workers of its own node, so
// building scales with cores and a replica's cache lines are never pulled across nodes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::build {

/// Fills out[0, hi - lo) with the values of indices [lo, hi); called once per batch, concurrently.
/// For a 64-bit array out is the replica's own storage of [lo, hi), so a source refilling an array
/// reads the old value at an index (for instance in fill_array) before writing the new one.
struct ValueSource {
  /// Writes the batch's values (each must fit in the array's bits); state is the generator object.
  void (*fill)(void* state, std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) = nullptr;
  /// The generator object passed to fill.
  void* state = nullptr;
};

namespace detail {
/// A ValueSource calling gen(lo, hi, out); gen must outlive the source.
template <typename Gen>
ValueSource value_source_of(Gen& gen) {
  using G = std::remove_reference_t<Gen>;
  ValueSource source;
  source.fill = [](void* state, std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    (*static_cast<G*>(state))(lo, hi, out);
  };
  source.state = const_cast<void*>(static_cast<const void*>(std::addressof(gen)));
  return source;
}
}  // namespace detail

/// Allocates an array of length values (options.bits must be 1..64) and fills it from source in
/// parallel on pool. Throws Error like SmartArray::allocate, or Error(invalid_argument) naming the
/// first value (of a batch) that does not fit.
SMARTARRAYS_API SmartArray build_array(std::uint64_t length, const ArrayOptions& options, ValueSource source,
                                       runtime::ThreadPool& pool = runtime::default_pool());

/// build_array with a generator gen(lo, hi, out) that fills the values of [lo, hi) into out.
template <typename Gen>
  requires std::is_invocable_v<Gen&, std::uint64_t, std::uint64_t, std::uint64_t*>
SmartArray build_array(std::uint64_t length, const ArrayOptions& options, Gen&& gen,
                       runtime::ThreadPool& pool = runtime::default_pool()) {
  return build_array(length, options, detail::value_source_of(gen), pool);
}

/// Overwrites every value of every replica of array from source in parallel on pool: each replica
/// by its own node's workers; a single-copy array's loop follows layout (runtime::LoopOptions::layout),
/// by default the array's partitions, so a partitioned array's stripes go to their nodes' workers
/// first (a source reading another partitioned array passes that array's layout instead).
/// Throws Error(invalid_argument) naming the first value (of a batch) that does not fit; the array
/// is then partly overwritten. Must not run concurrently with any other access to array.
SMARTARRAYS_API void fill_array(SmartArray& array, ValueSource source, runtime::ThreadPool& pool = runtime::default_pool(),
                                std::vector<runtime::LoopPart> layout = {});

/// fill_array with a generator gen(lo, hi, out) that fills the values of [lo, hi) into out.
template <typename Gen>
  requires std::is_invocable_v<Gen&, std::uint64_t, std::uint64_t, std::uint64_t*>
void fill_array(SmartArray& array, Gen&& gen, runtime::ThreadPool& pool = runtime::default_pool(),
                std::vector<runtime::LoopPart> layout = {}) {
  fill_array(array, detail::value_source_of(gen), pool, std::move(layout));
}

/// The layout of a loop that reads array at its own indices (runtime::LoopOptions::layout): the
/// stripes of a partitioned array, else empty so the loop keeps its default split.
SMARTARRAYS_API std::vector<runtime::LoopPart> stripe_parts(const SmartArray& array);

/// SmartArray::from_values in parallel: the same words, and for a value too wide the same error
/// (naming the array's first such value). options.bits 0 picks the fewest bits that hold the
/// largest value (a parallel max), then every replica is encoded by its own node's workers.
SMARTARRAYS_API SmartArray build_array_from_values(std::span<const std::uint64_t> values, const ArrayOptions& options,
                                                   runtime::ThreadPool& pool = runtime::default_pool());

/// build_array_from_values over 32-bit values (e.g. a Java int[]), widened per batch, with no widened copy.
SMARTARRAYS_API SmartArray build_array_from_values(std::span<const std::uint32_t> values, const ArrayOptions& options,
                                                   runtime::ThreadPool& pool = runtime::default_pool());

}  // namespace smartarrays::build
