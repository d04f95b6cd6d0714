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

std::uint64_t SortedIndex::lower_bound(std::uint64_t key) const {
  const std::uint64_t n = keys_.length();
  if (n == 0) return 0;
  const std::uint64_t* upper = upper_.local_replica();
  const std::uint64_t* fences = fences_.local_replica();
  const std::uint64_t block = last_below(upper, 0, upper_.length(), key);
  const std::uint64_t chunk = last_below(fences, block * codec::chunk_values,
                                         std::min(fences_.length(), (block + 1) * codec::chunk_values), key);
  std::uint64_t values[codec::chunk_values];
  keys_.unpack(chunk, values);
  const std::uint64_t valid = std::min<std::uint64_t>(codec::chunk_values, n - chunk * codec::chunk_values);
  return chunk * codec::chunk_values + static_cast<std::uint64_t>(std::lower_bound(values, values + valid, key) - values);
}

Match SortedIndex::find(std::uint64_t key) const {
  const std::uint64_t begin = lower_bound(key);
  const std::uint64_t n = keys_.length();
  if (begin == n || keys_.get_unchecked(begin) != key) return {0, begin};
  if (begin + 1 == n || keys_.get_unchecked(begin + 1) != key) return {1, begin};
  // A run of equal keys: the end is the lower bound of the next key, unless key is the largest.
  const std::uint64_t end = key == ~std::uint64_t{0} ? n : lower_bound(key + 1);
  return {end - begin, begin};
}

std::uint64_t SortedIndex::count_matches(const SmartArray& probe, runtime::ThreadPool& pool) const {
  return pool.parallel_reduce(
      0, probe.length(), std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t total = 0;
        detail::for_blocks(probe, lo, hi, [&](std::uint64_t, std::uint64_t c, const std::uint64_t* k) {
          for (std::uint64_t i = 0; i < c; ++i) total += find(k[i]).count;
        });
        return total;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

std::uint64_t SortedIndex::memory_bytes() const noexcept {
  return keys_.memory_bytes() + rows_.memory_bytes() + fences_.memory_bytes() + upper_.memory_bytes();
}

}  // namespace smartarrays::collections
