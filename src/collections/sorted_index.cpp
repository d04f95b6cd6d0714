// Owns the sorted index's build (per-task sorts merged in place, columns encoded in parallel) and
// its lookups through the fence levels.
#include "smartarrays/collections/sorted_index.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "collections/task_ranges.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::collections {

namespace {

// Index of the last of values[lo, hi) that is < key, or lo when none is (values ascend).
std::uint64_t last_below(const std::uint64_t* values, std::uint64_t lo, std::uint64_t hi, std::uint64_t key) {
  const std::uint64_t i = static_cast<std::uint64_t>(std::lower_bound(values + lo, values + hi, key) - values);
  return i == lo ? lo : i - 1;
}

}  // namespace

SortedIndex SortedIndex::build(const SmartArray& keys, const ArrayOptions& options, runtime::ThreadPool& pool) {
  if (options.bits != 0) throw_error(ErrorCode::invalid_argument, "sorted index: options.bits must be 0 (the fewest are used)");
  using Pair = std::pair<std::uint64_t, std::uint64_t>;
  std::vector<Pair> pairs(keys.length());
  const detail::TaskRanges ranges = detail::task_ranges(keys.length(), pool);
  detail::for_each_task(ranges, pool, [&](std::uint64_t t) {
    detail::for_blocks(keys, ranges.begin(t), ranges.begin(t + 1), [&](std::uint64_t first, std::uint64_t n, const std::uint64_t* k) {
      for (std::uint64_t i = 0; i < n; ++i) pairs[first + i] = {k[i], first + i};
    });
    std::sort(pairs.begin() + static_cast<std::ptrdiff_t>(ranges.begin(t)), pairs.begin() + static_cast<std::ptrdiff_t>(ranges.begin(t + 1)));
  });
  for (std::uint64_t width = 1; width < ranges.count; width *= 2) {
    for (std::uint64_t t = 0; t + width < ranges.count; t += 2 * width) {
      std::inplace_merge(pairs.begin() + static_cast<std::ptrdiff_t>(ranges.begin(t)),
                         pairs.begin() + static_cast<std::ptrdiff_t>(ranges.begin(t + width)),
                         pairs.begin() + static_cast<std::ptrdiff_t>(ranges.begin(std::min(t + 2 * width, ranges.count))));
    }
  }
  SortedIndex index;
  const std::uint64_t largest_key = pairs.empty() ? 0 : pairs.back().first;
  ArrayOptions column = options;
  column.bits = codec::min_bits(largest_key);
  index.keys_ = build::build_array(pairs.size(), column, [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = pairs[i].first;
  }, pool);
  column.bits = codec::min_bits(keys.length());
  index.rows_ = build::build_array(pairs.size(), column, [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = pairs[i].second;
  }, pool);
  column.bits = 64;
  const std::uint64_t chunks = codec::chunk_count(pairs.size());
  index.fences_ = build::build_array(chunks, column, [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    for (std::uint64_t c = lo; c < hi; ++c) out[c - lo] = pairs[c * codec::chunk_values].first;
  }, pool);
  index.upper_ = build::build_array(codec::chunk_count(chunks), column, [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    for (std::uint64_t b = lo; b < hi; ++b) out[b - lo] = pairs[b * codec::chunk_values * codec::chunk_values].first;
  }, pool);
  return index;
}

namespace {

// One replica of each of the index's arrays, chosen once for a batch of lookups.
struct IndexView {
  const std::uint64_t* keys;
  const std::uint64_t* fences;
  const std::uint64_t* upper;
  std::uint64_t n, fence_count, upper_count;
};

// The first position of view whose key is >= key: a search in the top level, then in one block of
// 64 fences, then in one chunk read in place at B bits.
template <unsigned B>
std::uint64_t lower_bound_in(const IndexView& v, std::uint64_t key) noexcept {
  if (v.n == 0) return 0;
  const std::uint64_t block = last_below(v.upper, 0, v.upper_count, key);
  const std::uint64_t chunk = last_below(v.fences, block * codec::chunk_values,
                                         std::min(v.fence_count, (block + 1) * codec::chunk_values), key);
  std::uint64_t lo = chunk * codec::chunk_values;
  std::uint64_t hi = std::min(v.n, lo + codec::chunk_values);
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (codec::get_padded<B>(v.keys, mid) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

template <unsigned B>
Match find_in(const IndexView& v, std::uint64_t key) noexcept {
  const std::uint64_t begin = lower_bound_in<B>(v, key);
  if (begin == v.n || codec::get_padded<B>(v.keys, begin) != key) return {0, begin};
  if (begin + 1 == v.n || codec::get_padded<B>(v.keys, begin + 1) != key) return {1, begin};
  // A run of equal keys: it ends at the lower bound of the next key, unless key is the largest.
  const std::uint64_t end = key == ~std::uint64_t{0} ? v.n : lower_bound_in<B>(v, key + 1);
  return {end - begin, begin};
}

IndexView view_of(const SmartArray& keys, const SmartArray& fences, const SmartArray& upper, int node) {
  return {keys.replica(keys.replica_index_for_node(node)), fences.replica(fences.replica_index_for_node(node)),
          upper.replica(upper.replica_index_for_node(node)), keys.length(), fences.length(), upper.length()};
}

}  // namespace

std::uint64_t SortedIndex::lower_bound(std::uint64_t key) const {
  const IndexView v = view_of(keys_, fences_, upper_, os::current_node());
  return codec::with_bits(keys_.bits(), [&](auto b) { return lower_bound_in<decltype(b)::value>(v, key); });
}

Match SortedIndex::find(std::uint64_t key) const {
  const IndexView v = view_of(keys_, fences_, upper_, os::current_node());
  return codec::with_bits(keys_.bits(), [&](auto b) { return find_in<decltype(b)::value>(v, key); });
}

std::uint64_t SortedIndex::count_matches(const SmartArray& probe, runtime::ThreadPool& pool) const {
  return pool.parallel_reduce(
      0, probe.length(), std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi, const runtime::WorkerContext& ctx) {
        const IndexView v = view_of(keys_, fences_, upper_, ctx.node);
        return codec::with_bits(keys_.bits(), [&](auto b) {
          std::uint64_t total = 0;
          detail::for_blocks(probe, lo, hi, [&](std::uint64_t, std::uint64_t c, const std::uint64_t* k) {
            for (std::uint64_t i = 0; i < c; ++i) total += find_in<decltype(b)::value>(v, k[i]).count;
          });
          return total;
        });
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

std::uint64_t SortedIndex::memory_bytes() const noexcept {
  return keys_.memory_bytes() + rows_.memory_bytes() + fences_.memory_bytes() + upper_.memory_bytes();
}

}  // namespace smartarrays::collections
