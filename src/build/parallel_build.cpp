// Owns the parallel array builder and filler, and from_values on top of them: one replica loop over
// all replicas (build/replica_loop.hpp), per-worker value buffers, and chunk-aligned encoding so
// concurrent batches never share a word.
#include "smartarrays/build/parallel_build.hpp"

#include <algorithm>
#include <vector>

#include "build/replica_loop.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::build {

namespace {

// The largest of values[0..n) (0 when n == 0).
std::uint64_t largest_of(const std::uint64_t* values, std::uint64_t n) { return codec::max_value(values, n); }

std::uint64_t largest_of(const std::uint32_t* values, std::uint64_t n) {
  std::uint32_t largest = 0;
  for (std::uint64_t i = 0; i < n; ++i) largest = std::max(largest, values[i]);
  return largest;
}

// SmartArray::from_values in parallel, 32-bit values widened batch by batch into the workers'
// buffers. Bits 0 need the largest value before allocating (a parallel max); explicit bits are
// checked while encoding, in the same pass.
template <typename T>
SmartArray build_from_values(std::span<const T> values, const ArrayOptions& options, runtime::ThreadPool& pool) {
  auto copy = [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) { std::copy_n(values.data() + lo, hi - lo, out); };
  if (options.bits == 0) {
    const std::uint64_t largest = pool.parallel_reduce(
        0, values.size(), std::uint64_t{0},
        [&](std::uint64_t lo, std::uint64_t hi) { return largest_of(values.data() + lo, hi - lo); },
        [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); });
    return build_array(values.size(), SmartArray::options_for_values(values, largest, options), copy, pool);
  }
  SmartArray array = SmartArray::allocate(values.size(), options);
  try {
    fill_array(array, copy, pool, {});
  } catch (const Error&) {
    // A batch names its own first value too wide; from_values names the array's first.
    SmartArray::options_for_values(values, largest_of(values.data(), values.size()), options);
    throw;
  }
  return array;
}

}  // namespace

std::vector<runtime::LoopPart> stripe_parts(const SmartArray& array) {
  return array.placement() == Placement::partitioned ? array.partitions() : std::vector<runtime::LoopPart>{};
}

void fill_array(SmartArray& array, ValueSource source, runtime::ThreadPool& pool, std::vector<runtime::LoopPart> layout) {
  if (source.fill == nullptr) throw_error(ErrorCode::invalid_argument, "fill_array: the value source has no fill function");
  const unsigned bits = array.bits();
  std::vector<std::uint64_t*> words(array.replicas());
  for (std::size_t r = 0; r < words.size(); ++r) words[r] = array.mutable_replica(r);
  detail::WorkerBuffers buffers(pool);
  runtime::LoopOptions options{.alignment = codec::chunk_values};
  options.layout = std::move(layout);
  detail::for_each_replica_batch(array, 0, array.replicas(), pool, options,
                                 [&](const detail::ReplicaBatch& batch, const runtime::WorkerContext& ctx) {
    const std::uint64_t count = batch.end - batch.begin;
    // A 64-bit stream is the values themselves: the source writes them in place, with no copy.
    if (bits == 64) {
      source.fill(source.state, batch.begin, batch.end, words[batch.replica] + batch.begin);
      return;
    }
    std::uint64_t* buffer = buffers.get(ctx, count);
    source.fill(source.state, batch.begin, batch.end, buffer);
    codec::encode_range(buffer, batch.begin, count, bits, words[batch.replica]);
  });
}

SmartArray build_array(std::uint64_t length, const ArrayOptions& options, ValueSource source,
                       runtime::ThreadPool& pool) {
  if (source.fill == nullptr) throw_error(ErrorCode::invalid_argument, "build_array: the value source has no fill function");
  SmartArray array = SmartArray::allocate(length, options);
  fill_array(array, source, pool, {});
  return array;
}

SmartArray build_array_from_values(std::span<const std::uint64_t> values, const ArrayOptions& options,
                                   runtime::ThreadPool& pool) {
  return build_from_values(values, options, pool);
}

SmartArray build_array_from_values(std::span<const std::uint32_t> values, const ArrayOptions& options,
                                   runtime::ThreadPool& pool) {
  return build_from_values(values, options, pool);
}

}  // namespace smartarrays::build
