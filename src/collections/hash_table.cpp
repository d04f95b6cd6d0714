// Owns the hash table's parallel build (rows partitioned by key hash, each partition inserted by
// one worker into a cache-resident plain table, then encoded into its region of the smart arrays)
// and its probes (one width dispatch per batch, fused key-and-count slots read with one load).
#include "smartarrays/collections/hash_table.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include "collections/task_ranges.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/mix64.hpp"

namespace smartarrays::collections {

namespace {

constexpr std::uint64_t rows_per_partition = 2048;
constexpr unsigned max_partition_bits = 12;

std::uint64_t round_up_64(std::uint64_t n) { return (n + 63) / 64 * 64; }

std::uint64_t partition_of(std::uint64_t hash, unsigned bits) noexcept { return bits == 0 ? 0 : hash >> (64 - bits); }

// Slot of a hash in a region of cap slots (multiply-shift, no division).
std::uint64_t home_slot(std::uint64_t hash, std::uint64_t cap) noexcept { return ((hash & 0xffffffffu) * cap) >> 32; }

struct KeyRow {
  std::uint64_t key;
  std::uint64_t row;
};

// One partition's plain open-addressing table: key, count and first grouped position per slot.
struct LocalTable {
  std::vector<std::uint64_t> keys, counts, begins;

  void insert_all(const KeyRow* rows, std::uint64_t n, std::uint64_t cap) {
    keys.assign(cap, 0);
    counts.assign(cap, 0);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t s = home_slot(util::mix64(rows[i].key), cap);
      while (counts[s] != 0 && keys[s] != rows[i].key) s = s + 1 == cap ? 0 : s + 1;
      keys[s] = rows[i].key;
      ++counts[s];
    }
  }
  std::uint64_t find(std::uint64_t key, std::uint64_t cap) const {
    std::uint64_t s = home_slot(util::mix64(key), cap);
    while (keys[s] != key) s = s + 1 == cap ? 0 : s + 1;
    return s;
  }
};

ArrayOptions with_bits(const ArrayOptions& options, unsigned bits) {
  ArrayOptions o = options;
  o.bits = bits;
  return o;
}

}  // namespace

SmartArray detail::empty_array() { return SmartArray::allocate(0, with_bits({}, 1)); }

struct HashTableBuilder {
  static HashTable build(const SmartArray& keys, const ArrayOptions& options, bool with_rows, runtime::ThreadPool& pool);
  static void encode_partition(HashTable& t, const KeyRow* rows, std::uint64_t n, std::uint64_t region, std::uint64_t cap,
                               std::uint64_t first_position, LocalTable& local);
};

// Writes one partition's slots into region [region, region + cap) and, with rows, its rows grouped
// by key from first_position (both ranges start on 64-value chunks, so no word is shared).
void HashTableBuilder::encode_partition(HashTable& t, const KeyRow* rows, std::uint64_t n, std::uint64_t region,
                                        std::uint64_t cap, std::uint64_t first_position, LocalTable& local) {
  local.insert_all(rows, n, cap);
  const bool with_rows = t.rows_.length() > 0;
  local.begins.assign(cap, 0);
  std::uint64_t position = first_position;
  for (std::uint64_t s = 0; s < cap; ++s) {
    if (local.counts[s] == 0) continue;
    const std::uint64_t count_field = local.counts[s];
    t.slots_.init_unchecked(region + s, t.fused_ ? local.keys[s] << t.count_bits_ | count_field : count_field);
    if (!t.fused_) t.wide_keys_.init_unchecked(region + s, local.keys[s]);
    local.begins[s] = position;
    if (with_rows) t.begins_.init_unchecked(region + s, position);
    position += local.counts[s];
  }
  if (!with_rows) return;
  for (std::uint64_t i = 0; i < n; ++i) t.rows_.init_unchecked(local.begins[local.find(rows[i].key, cap)]++, rows[i].row);
}

HashTable HashTableBuilder::build(const SmartArray& keys, const ArrayOptions& options, bool with_rows,
                                  runtime::ThreadPool& pool) {
  if (options.bits != 0) throw_error(ErrorCode::invalid_argument, "hash table: options.bits must be 0 (the fewest are used)");
  HashTable t;
  const std::uint64_t n = keys.length();
  t.size_ = n;
  t.max_key_ = detail::value_range(keys, pool).max;
  t.partition_bits_ = std::min<unsigned>(max_partition_bits, static_cast<unsigned>(std::bit_width(n / rows_per_partition)));
  const unsigned pbits = t.partition_bits_;
  const std::uint64_t partitions = std::uint64_t{1} << pbits;

  // Rows scattered into partition order; each partition's run starts on a multiple of 64.
  const detail::TaskRanges ranges = detail::task_ranges(keys, pool);
  std::vector<std::vector<std::uint64_t>> cursor(ranges.count, std::vector<std::uint64_t>(partitions, 0));
  detail::for_each_task(ranges, pool, [&](std::uint64_t task) {
    detail::for_blocks(keys, ranges.begin(task), ranges.begin(task + 1), [&](std::uint64_t, std::uint64_t c, const std::uint64_t* k) {
      for (std::uint64_t i = 0; i < c; ++i) ++cursor[task][partition_of(util::mix64(k[i]), pbits)];
    });
  });
  std::vector<std::uint64_t> offsets(partitions + 1, 0), ends(partitions, 0), regions(partitions + 1, 0);
  for (std::uint64_t p = 0; p < partitions; ++p) {
    ends[p] = detail::to_task_starts(cursor, p, offsets[p]);
    offsets[p + 1] = round_up_64(ends[p]);
    regions[p + 1] = regions[p] + round_up_64(2 * (ends[p] - offsets[p]) + 1);
  }
  std::vector<KeyRow> scattered(offsets[partitions]);
  detail::for_each_task(ranges, pool, [&](std::uint64_t task) {
    detail::for_blocks(keys, ranges.begin(task), ranges.begin(task + 1), [&](std::uint64_t first, std::uint64_t c, const std::uint64_t* k) {
      for (std::uint64_t i = 0; i < c; ++i) scattered[cursor[task][partition_of(util::mix64(k[i]), pbits)]++] = {k[i], first + i};
    });
  });
  cursor.clear();

  // The largest count decides the slot width, so partitions are counted before they are encoded.
  std::vector<std::uint64_t> distinct(partitions, 0), largest(partitions, 0);
  const runtime::LoopOptions one_each = detail::one_per_batch();
  pool.parallel_for(0, partitions, [&](std::uint64_t lo, std::uint64_t hi) {
    LocalTable local;
    for (std::uint64_t p = lo; p < hi; ++p) {
      local.insert_all(scattered.data() + offsets[p], ends[p] - offsets[p], regions[p + 1] - regions[p]);
      for (std::uint64_t c : local.counts) {
        distinct[p] += c != 0 ? 1 : 0;
        largest[p] = std::max(largest[p], c);
      }
    }
  }, one_each);
  for (std::uint64_t p = 0; p < partitions; ++p) t.distinct_ += distinct[p];
  t.count_bits_ = codec::min_bits(*std::max_element(largest.begin(), largest.end()));
  const unsigned key_bits = codec::min_bits(t.max_key_);
  t.fused_ = key_bits + t.count_bits_ <= 64;
  t.slots_ = SmartArray::allocate(regions[partitions], with_bits(options, t.fused_ ? key_bits + t.count_bits_ : t.count_bits_));
  if (!t.fused_) t.wide_keys_ = SmartArray::allocate(regions[partitions], with_bits(options, 64));
  if (with_rows) {
    t.begins_ = SmartArray::allocate(regions[partitions], with_bits(options, codec::min_bits(offsets[partitions])));
    t.rows_ = SmartArray::allocate(offsets[partitions], with_bits(options, codec::min_bits(n)));
  }
  pool.parallel_for(0, partitions, [&](std::uint64_t lo, std::uint64_t hi) {
    LocalTable local;
    for (std::uint64_t p = lo; p < hi; ++p) {
      encode_partition(t, scattered.data() + offsets[p], ends[p] - offsets[p], regions[p], regions[p + 1] - regions[p],
                       offsets[p], local);
    }
  }, one_each);
  t.regions_ = SmartArray::from_values(regions, with_bits(options, 64));
  return t;
}

HashTable HashTable::build(const SmartArray& keys, const ArrayOptions& options, bool with_rows, runtime::ThreadPool& pool) {
  return HashTableBuilder::build(keys, options, with_rows, pool);
}

Match HashTable::find(std::uint64_t key) const noexcept {
  if (size_ == 0 || key > max_key_) return {};
  const std::uint64_t hash = util::mix64(key);
  const std::uint64_t p = partition_of(hash, partition_bits_);
  const std::uint64_t region = regions_.get_unchecked(p);
  const std::uint64_t cap = regions_.get_unchecked(p + 1) - region;
  const std::uint64_t count_mask = codec::value_mask(count_bits_);
  for (std::uint64_t s = home_slot(hash, cap);; s = s + 1 == cap ? 0 : s + 1) {
    const std::uint64_t entry = slots_.get_unchecked(region + s);
    const std::uint64_t count = entry & count_mask;
    if (count == 0) return {};
    if ((fused_ ? entry >> count_bits_ : wide_keys_.get_unchecked(region + s)) == key) {
      return {count, rows_.length() > 0 ? begins_.get_unchecked(region + s) : 0};
    }
  }
}

std::uint64_t HashTable::count_matches(const SmartArray& probe, runtime::ThreadPool& pool) const {
  if (size_ == 0 || probe.length() == 0) return 0;
  if (!fused_) {
    return pool.parallel_reduce(
        0, probe.length(), std::uint64_t{0},
        [&](std::uint64_t lo, std::uint64_t hi) {
          std::uint64_t total = 0;
          detail::for_blocks(probe, lo, hi, [&](std::uint64_t, std::uint64_t c, const std::uint64_t* k) {
            for (std::uint64_t i = 0; i < c; ++i) total += find(k[i]).count;
          });
          return total;
        },
        [](std::uint64_t a, std::uint64_t b) { return a + b; }, detail::over_rows(probe));
  }
  const unsigned count_bits = count_bits_;
  const unsigned pbits = partition_bits_;
  const std::uint64_t max_key = max_key_;
  return pool.parallel_reduce(
      0, probe.length(), std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi, const runtime::WorkerContext& ctx) {
        const std::uint64_t* slots = slots_.replica(slots_.replica_index_for_node(ctx.node));
        const std::uint64_t* regions = regions_.replica(regions_.replica_index_for_node(ctx.node));
        return codec::with_bits(slots_.bits(), [&](auto b) {
          constexpr unsigned B = decltype(b)::value;
          const std::uint64_t mask = codec::value_mask(count_bits);
          std::uint64_t total = 0;
          // Home slots of a block first, so the slot of the key `ahead` places on is prefetched
          // while this one is probed (hash probes are independent cache misses).
          constexpr std::uint64_t ahead = 16;
          std::vector<std::uint64_t> home(detail::block_values), first(detail::block_values), end(detail::block_values);
          detail::for_blocks(probe, lo, hi, [&](std::uint64_t, std::uint64_t c, const std::uint64_t* k) {
            for (std::uint64_t i = 0; i < c; ++i) {
              const std::uint64_t hash = util::mix64(k[i]);
              const std::uint64_t p = partition_of(hash, pbits);
              first[i] = regions[p];
              end[i] = regions[p + 1];
              home[i] = k[i] > max_key ? end[i] : first[i] + home_slot(hash, end[i] - first[i]);
            }
            for (std::uint64_t i = 0; i < c; ++i) {
              if (i + ahead < c) __builtin_prefetch(slots + home[i + ahead] * B / 64);
              for (std::uint64_t s = home[i]; s != end[i];) {
                const std::uint64_t entry = codec::get_padded<B>(slots, s);
                if ((entry & mask) == 0) break;
                if (entry >> count_bits == k[i]) {
                  total += entry & mask;
                  break;
                }
                s = s + 1 == end[i] ? first[i] : s + 1;
              }
            }
          });
          return total;
        });
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; }, detail::over_rows(probe));
}

std::uint64_t HashTable::memory_bytes() const noexcept {
  return slots_.memory_bytes() + wide_keys_.memory_bytes() + begins_.memory_bytes() + rows_.memory_bytes() +
         regions_.memory_bytes();
}

}  // namespace smartarrays::collections
