// Owns degree centrality and top-k selection. The loop is a fill of the output array: every batch
// decodes its slice of begin and rbegin (one dispatched kernel call each over whole chunks, from the
// worker's local replica, or read in place when 64-bit) in L1-sized blocks and packs the sums
// straight into the output (or, for replicated, partitioned or too-narrow outputs, hands them to the
// parallel builder). An
// undirected graph's shared offsets (rbegin is begin) are decoded once and their degree doubled.
#include "smartarrays/algo/degree_centrality.hpp"

#include <algorithm>
#include <queue>
#include <string>

#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::algo {

namespace {

// Vertices per decode block: two offset blocks of 4 KiB stay in L1 next to the output slice.
constexpr std::uint64_t block = 512;

void check_offsets(const SmartArray& begin, const SmartArray& rbegin, std::uint64_t n) {
  if (begin.length() != n + 1 || rbegin.length() != n + 1) {
    throw_error(ErrorCode::invalid_argument, "degree_centrality: begin has " + std::to_string(begin.length()) +
                                                 " values and rbegin " + std::to_string(rbegin.length()) + "; " +
                                                 std::to_string(n) + " vertices need " + std::to_string(n + 1));
  }
}

// Offsets [first, first + count] of array: in place when 64-bit, else the chunk-aligned values
// [first, first + count) decoded whole-chunk into scratch and the one past them read singly, so no
// block decodes a chunk for one value.
const std::uint64_t* offsets_block(const SmartArray& array, std::uint64_t first, std::uint64_t count, std::uint64_t* scratch) {
  if (array.bits() == 64) return array.local_replica() + first;
  array.decode(first, count, scratch);
  scratch[count] = array.get_unchecked(first + count);
  return scratch;
}

}  // namespace

void degree_centrality(const SmartArray& begin, const SmartArray& rbegin, SmartArray& out, runtime::ThreadPool& pool) {
  const std::uint64_t n = out.length();
  check_offsets(begin, rbegin, n);
  const bool shared = &begin == &rbegin;
  // The degrees of [first, first + count) (count <= block) into o.
  auto degrees = [&](std::uint64_t first, std::uint64_t count, std::uint64_t* o) {
    alignas(64) std::uint64_t fwd[block + 1];
    alignas(64) std::uint64_t rev[block + 1];
    const std::uint64_t* f = offsets_block(begin, first, count, fwd);
    if (shared) {
      for (std::uint64_t k = 0; k < count; ++k) o[k] = 2 * (f[k + 1] - f[k]);
      return;
    }
    const std::uint64_t* r = offsets_block(rbegin, first, count, rev);
    for (std::uint64_t k = 0; k < count; ++k) o[k] = (f[k + 1] - f[k]) + (r[k + 1] - r[k]);
  };
  // Every degree is at most the two edge counts' sum: when out's width holds that, the blocks are
  // packed straight into its one copy with no per-value check. Replicated, partitioned or
  // read-only outputs, and outputs too narrow for some degree, go through the parallel builder
  // (which writes each replica from its node and names a value that does not fit).
  const std::uint64_t edges = begin.get(n);
  const std::uint64_t largest = edges + rbegin.get(n);
  const bool direct = largest >= edges && codec::min_bits(largest) <= out.bits() && out.replicas() == 1 &&
                      out.placement() != Placement::partitioned && !out.read_only();
  if (!direct) {
    build::fill_array(
        out,
        [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* values) {
          for (std::uint64_t first = lo; first < hi; first += block) degrees(first, std::min(block, hi - first), values + (first - lo));
        },
        pool, build::stripe_parts(begin));
    return;
  }
  const unsigned bits = out.bits();
  std::uint64_t* words = out.mutable_replica(0);
  const codec::Kernels& kernels = codec::kernels(bits);
  // Batches are chunk-aligned, so every block but the array's last is whole chunks.
  runtime::LoopOptions options;
  options.layout = build::stripe_parts(begin);  // the batches of begin's stripes on their nodes first
  pool.parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
    alignas(64) std::uint64_t o[block];
    for (std::uint64_t first = lo; first < hi; first += block) {
      const std::uint64_t count = std::min(block, hi - first);
      if (bits == 64) {
        degrees(first, count, words + first);
        continue;
      }
      degrees(first, count, o);
      const std::uint64_t chunks = codec::chunk_count(count);
      std::fill(o + count, o + chunks * codec::chunk_values, 0);  // the last chunk's padding is zero
      kernels.pack(o, first / codec::chunk_values, chunks, words);
    }
  }, options);
}

SmartArray degree_centrality(const SmartArray& begin, const SmartArray& rbegin, const ArrayOptions& output,
                             runtime::ThreadPool& pool) {
  if (begin.length() == 0) throw_error(ErrorCode::invalid_argument, "degree_centrality: begin holds no offsets (n + 1 >= 1)");
  const std::uint64_t n = begin.length() - 1;
  check_offsets(begin, rbegin, n);
  ArrayOptions options = output;
  if (options.bits == 0) options.bits = codec::min_bits(begin.get(n) + rbegin.get(n));
  SmartArray out = with_context("degree_centrality array degrees of " + std::to_string(n) + " values",
                                 [&] { return SmartArray::allocate(n, options); });
  degree_centrality(begin, rbegin, out, pool);
  return out;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> top_k(const SmartArray& values, std::size_t k) {
  using Entry = std::pair<std::uint64_t, std::uint64_t>;  // (index, value)
  // "Better" = larger value, then smaller index; the heap's top is the worst kept entry.
  auto better = [](const Entry& x, const Entry& y) { return x.second != y.second ? x.second > y.second : x.first < y.first; };
  std::priority_queue<Entry, std::vector<Entry>, decltype(better)> heap(better);
  if (k == 0) return {};
  std::uint64_t i = 0;
  for (auto it = values.begin(); it != values.end(); ++it, ++i) {
    const Entry e{i, *it};
    if (heap.size() < k) {
      heap.push(e);
    } else if (better(e, heap.top())) {
      heap.pop();
      heap.push(e);
    }
  }
  std::vector<Entry> result(heap.size());
  for (auto r = result.rbegin(); r != result.rend(); ++r) {
    *r = heap.top();
    heap.pop();
  }
  return result;
}

}  // namespace smartarrays::algo
