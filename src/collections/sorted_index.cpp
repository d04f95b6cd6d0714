// Owns the sorted index's build (per-task sorts merged in place, columns encoded in parallel) and
// its lookups through the fence levels.
#include "smartarrays/collections/sorted_index.hpp"

#include <algorithm>
#include <bit>
#include <type_traits>
#include <utility>
#include <vector>

#include "collections/task_ranges.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::collections {

SortedIndex SortedIndex::build(const SmartArray& keys, const ArrayOptions& options, runtime::ThreadPool& pool) {
  if (options.bits != 0) throw_error(ErrorCode::invalid_argument, "sorted index: options.bits must be 0 (the fewest are used)");
  using Pair = std::pair<std::uint64_t, std::uint64_t>;
  std::vector<Pair> pairs(keys.length());
  const detail::TaskRanges ranges = detail::task_ranges(keys, pool);
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
  // About 16 keys per bucket, so a bucket's keys span a few cache lines.
  const unsigned directory_bits = std::max(1u, static_cast<unsigned>(std::bit_width(pairs.size() / 16)));
  index.min_key_ = pairs.empty() ? 0 : pairs.front().first;
  const unsigned span_bits = static_cast<unsigned>(std::bit_width(largest_key - index.min_key_));
  index.shift_ = span_bits > directory_bits ? span_bits - directory_bits : 0;
  const std::uint64_t buckets = pairs.empty() ? 1 : ((largest_key - index.min_key_) >> index.shift_) + 1;
  // Directory entries are 32 or 64 bits, so lookups dispatch on the key width and one of two.
  column.bits = pairs.size() >> 32 == 0 ? 32 : 64;
  index.directory_ = build::build_array(buckets + 1, column, [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    for (std::uint64_t b = lo; b < hi; ++b) {
      // The first position whose bucket is >= b.
      const auto first = std::partition_point(pairs.begin(), pairs.end(), [&](const Pair& p) {
        return ((p.first - index.min_key_) >> index.shift_) < b;
      });
      out[b - lo] = static_cast<std::uint64_t>(first - pairs.begin());
    }
  }, pool);
  return index;
}

namespace {

// One replica of each of the index's arrays, chosen once for a batch of lookups.
struct IndexView {
  const std::uint64_t* keys;
  const std::uint64_t* directory;
  std::uint64_t n, buckets, min_key;
  unsigned shift;

  std::uint64_t bucket(std::uint64_t key) const noexcept { return (key - min_key) >> shift; }
};

// The first position of v whose key is >= key: the key's bucket from the directory, then a binary
// search of the bucket's keys read in place at KB bits (directory entries at DB bits).
template <unsigned KB, unsigned DB>
std::uint64_t lower_bound_in(const IndexView& v, std::uint64_t key) noexcept {
  if (v.n == 0 || key <= v.min_key) return 0;
  const std::uint64_t b = v.bucket(key);
  if (b >= v.buckets) return v.n;
  std::uint64_t lo = codec::get_padded<DB>(v.directory, b);
  std::uint64_t len = codec::get_padded<DB>(v.directory, b + 1) - lo;
  while (len > 0) {
    const std::uint64_t half = len / 2;
    const bool below = codec::get_padded<KB>(v.keys, lo + half) < key;
    lo = below ? lo + half + 1 : lo;
    len = below ? len - half - 1 : half;
  }
  return lo;
}

template <unsigned KB, unsigned DB>
Match find_in(const IndexView& v, std::uint64_t key) noexcept {
  const std::uint64_t begin = lower_bound_in<KB, DB>(v, key);
  if (begin == v.n || codec::get_padded<KB>(v.keys, begin) != key) return {0, begin};
  if (begin + 1 == v.n || codec::get_padded<KB>(v.keys, begin + 1) != key) return {1, begin};
  // A run of equal keys: it ends at the lower bound of the next key, unless key is the largest.
  const std::uint64_t end = key == ~std::uint64_t{0} ? v.n : lower_bound_in<KB, DB>(v, key + 1);
  return {end - begin, begin};
}

// Calls f(IndexView, key width, directory width) once, the widths as compile-time constants.
template <typename F>
decltype(auto) with_view(const SmartArray& keys, const SmartArray& directory, std::uint64_t min_key, unsigned shift,
                         int node, F&& f) {
  const IndexView v{keys.replica(keys.replica_index_for_node(node)), directory.replica(directory.replica_index_for_node(node)),
                    keys.length(), directory.length() - 1, min_key, shift};
  return codec::with_bits(keys.bits(), [&](auto kb) {
    return directory.bits() == 32 ? f(v, kb, std::integral_constant<unsigned, 32>{})
                                  : f(v, kb, std::integral_constant<unsigned, 64>{});
  });
}

}  // namespace

std::uint64_t SortedIndex::lower_bound(std::uint64_t key) const {
  return with_view(keys_, directory_, min_key_, shift_, os::current_node(), [&](const IndexView& v, auto kb, auto db) {
    return lower_bound_in<decltype(kb)::value, decltype(db)::value>(v, key);
  });
}

Match SortedIndex::find(std::uint64_t key) const {
  return with_view(keys_, directory_, min_key_, shift_, os::current_node(), [&](const IndexView& v, auto kb, auto db) {
    return find_in<decltype(kb)::value, decltype(db)::value>(v, key);
  });
}

std::uint64_t SortedIndex::count_matches(const SmartArray& probe, runtime::ThreadPool& pool) const {
  constexpr std::uint64_t ahead = 16;  // lookups between a directory prefetch and its use
  return pool.parallel_reduce(
      0, probe.length(), std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi, const runtime::WorkerContext& ctx) {
        return with_view(keys_, directory_, min_key_, shift_, ctx.node, [&](const IndexView& v, auto kb, auto db) {
          constexpr unsigned KB = decltype(kb)::value, DB = decltype(db)::value;
          std::uint64_t total = 0;
          detail::for_blocks(probe, lo, hi, [&](std::uint64_t, std::uint64_t c, const std::uint64_t* k) {
            for (std::uint64_t i = 0; i < c; ++i) {
              if (i + ahead < c && k[i + ahead] > v.min_key && v.bucket(k[i + ahead]) < v.buckets) {
                __builtin_prefetch(v.directory + v.bucket(k[i + ahead]) * DB / 64);
              }
              total += find_in<KB, DB>(v, k[i]).count;
            }
          });
          return total;
        });
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; }, detail::over_rows(probe));
}

std::uint64_t SortedIndex::memory_bytes() const noexcept {
  return keys_.memory_bytes() + rows_.memory_bytes() + directory_.memory_bytes();
}

}  // namespace smartarrays::collections
