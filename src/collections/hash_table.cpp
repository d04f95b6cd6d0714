// Owns the hash table's parallel build (rows partitioned by key hash, each partition inserted by
// one worker into a cache-resident plain table, then encoded into its region of the smart arrays)
// and its probes (one width dispatch per batch, fused key-and-count slots read with one load). The
// build's TableSpec also makes the tables of HashMap and HashSet (a presence bit; a map's value in
// the slot's field when it fits beside the key, else as payload).
#include "smartarrays/collections/hash_table.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "collections/hash_table_build.hpp"
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

// A key and what its slot keeps of it: its row (a multimap) or its value (a map).
struct KeyRow {
  std::uint64_t key;
  std::uint64_t row;
};

// One partition's plain open-addressing table: key, count and first grouped position per slot.
struct LocalTable {
  std::vector<std::uint64_t> keys, counts, begins;

  // Counts every key's rows; with last_rows, begins[s] also gets the row field of the key's last row
  // (rows are in row order: a map's value of the last row wins).
  void insert_all(const KeyRow* rows, std::uint64_t n, std::uint64_t cap, bool last_rows = false) {
    keys.assign(cap, 0);
    counts.assign(cap, 0);
    begins.assign(cap, 0);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t s = home_slot(util::mix64(rows[i].key), cap);
      while (counts[s] != 0 && keys[s] != rows[i].key) s = s + 1 == cap ? 0 : s + 1;
      keys[s] = rows[i].key;
      ++counts[s];
      if (last_rows) begins[s] = rows[i].row;
    }
  }
  std::uint64_t find(std::uint64_t key, std::uint64_t cap) const {
    std::uint64_t s = home_slot(util::mix64(key), cap);
    while (keys[s] != key) s = s + 1 == cap ? 0 : s + 1;
    return s;
  }
};

// The caller's placement with the given width. The table's arrays are written once while it is
// built (every replica at once) and then only read, so a primary-write mode does not apply to them.
ArrayOptions with_bits(const ArrayOptions& options, unsigned bits) {
  ArrayOptions o = options;
  o.bits = bits;
  o.write_mode = WriteMode::write_through;
  return o;
}

}  // namespace

SmartArray detail::empty_array() { return SmartArray::allocate(0, with_bits({}, 1)); }

struct HashTableBuilder {
  static HashTable build(const SmartArray& keys, const detail::TableSpec& spec, const ArrayOptions& options, runtime::ThreadPool& pool);
  static std::uint64_t encode_partition(HashTable& t, const detail::TableSpec& spec, const KeyRow* rows, std::uint64_t n,
                                        std::uint64_t region, std::uint64_t cap, std::uint64_t first_position,
                                        LocalTable& local);
};

// Writes one partition's slots into region [region, region + cap) and its payload: with rows, its
// rows grouped by key from first_position; for a map, each key's value from its last row (both
// ranges start on 64-value chunks, so no word is shared). Returns the partition's distinct keys.
std::uint64_t HashTableBuilder::encode_partition(HashTable& t, const detail::TableSpec& spec, const KeyRow* rows,
                                                 std::uint64_t n, std::uint64_t region, std::uint64_t cap,
                                                 std::uint64_t first_position, LocalTable& local) {
  local.insert_all(rows, n, cap, spec.values != nullptr);
  std::uint64_t position = first_position;
  std::uint64_t distinct = 0;
  for (std::uint64_t s = 0; s < cap; ++s) {
    if (local.counts[s] == 0) continue;
    ++distinct;
    const std::uint64_t count_field = t.value_in_slot_ ? local.begins[s] + 1 : spec.presence ? 1 : local.counts[s];
    t.slots_.init_unchecked(region + s, t.fused_ ? local.keys[s] << t.count_bits_ | count_field : count_field);
    if (!t.fused_) t.wide_keys_.init_unchecked(region + s, local.keys[s]);
    if (spec.with_rows) {
      local.begins[s] = position;
      position += local.counts[s];
    }
    if (spec.with_rows || (spec.values != nullptr && !t.value_in_slot_)) t.payload_.init_unchecked(region + s, local.begins[s]);
  }
  if (spec.with_rows) {
    for (std::uint64_t i = 0; i < n; ++i) t.rows_.init_unchecked(local.begins[local.find(rows[i].key, cap)]++, rows[i].row);
  }
  return distinct;
}

HashTable HashTableBuilder::build(const SmartArray& keys, const detail::TableSpec& spec, const ArrayOptions& options,
                                  runtime::ThreadPool& pool) {
  const std::string what = spec.what;
  if (options.bits != 0) throw_error(ErrorCode::invalid_argument, what + ": options.bits must be 0 (the fewest are used)");
  if (spec.values != nullptr && spec.values->length() != keys.length()) {
    throw_error(ErrorCode::invalid_argument, what + ": keys and values differ in length (" + std::to_string(keys.length()) +
                                                 " and " + std::to_string(spec.values->length()) + ")");
  }
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
    const auto scatter = [&](std::uint64_t first, std::uint64_t c, const std::uint64_t* k, const std::uint64_t* v) {
      for (std::uint64_t i = 0; i < c; ++i) {
        scattered[cursor[task][partition_of(util::mix64(k[i]), pbits)]++] = {k[i], v != nullptr ? v[i] : first + i};
      }
    };
    const std::uint64_t lo = ranges.begin(task), hi = ranges.begin(task + 1);
    if (spec.values != nullptr) {
      detail::for_block_pairs(keys, *spec.values, lo, hi, scatter);
    } else {
      detail::for_blocks(keys, lo, hi, [&](std::uint64_t first, std::uint64_t c, const std::uint64_t* k) { scatter(first, c, k, nullptr); });
    }
  });
  cursor.clear();

  // The largest count decides a multimap's slot width, so its partitions are counted before they
  // are encoded; a set's or map's field does not depend on counts.
  std::vector<std::uint64_t> distinct(partitions, 0), largest(partitions, 0);
  const runtime::LoopOptions one_each = detail::one_per_batch();
  if (!spec.presence) {
    pool.parallel_for(0, partitions, [&](std::uint64_t lo, std::uint64_t hi) {
      LocalTable local;
      for (std::uint64_t p = lo; p < hi; ++p) {
        local.insert_all(scattered.data() + offsets[p], ends[p] - offsets[p], regions[p + 1] - regions[p]);
        for (std::uint64_t c : local.counts) largest[p] = std::max(largest[p], c);
      }
    }, one_each);
  }
  t.count_bits_ = spec.presence ? 1 : codec::min_bits(*std::max_element(largest.begin(), largest.end()));
  const unsigned key_bits = codec::min_bits(t.max_key_);
  const std::uint64_t max_value = spec.values != nullptr ? detail::value_range(*spec.values, pool).max : 0;
  if (spec.values != nullptr) {
    // A map's value rides in the slot as value + 1 (0 = empty) when key and value fit 64 bits
    // together, so a lookup is one load; else it sits in the payload array beside the slots.
    const unsigned field_bits = max_value == ~std::uint64_t{0} ? 65 : codec::min_bits(max_value + 1);
    t.value_in_slot_ = key_bits + field_bits <= 64;
    if (t.value_in_slot_) t.count_bits_ = field_bits;
  }
  t.fused_ = key_bits + t.count_bits_ <= 64;
  t.slots_ = SmartArray::allocate(regions[partitions], with_bits(options, t.fused_ ? key_bits + t.count_bits_ : t.count_bits_));
  if (!t.fused_) t.wide_keys_ = SmartArray::allocate(regions[partitions], with_bits(options, 64));
  if (spec.with_rows) {
    t.payload_ = SmartArray::allocate(regions[partitions], with_bits(options, codec::min_bits(offsets[partitions])));
    t.rows_ = SmartArray::allocate(offsets[partitions], with_bits(options, codec::min_bits(n)));
  } else if (spec.values != nullptr && !t.value_in_slot_) {
    t.payload_ = SmartArray::allocate(regions[partitions], with_bits(options, codec::min_bits(max_value)));
  }
  pool.parallel_for(0, partitions, [&](std::uint64_t lo, std::uint64_t hi) {
    LocalTable local;
    for (std::uint64_t p = lo; p < hi; ++p) {
      distinct[p] = encode_partition(t, spec, scattered.data() + offsets[p], ends[p] - offsets[p], regions[p],
                                     regions[p + 1] - regions[p], offsets[p], local);
    }
  }, one_each);
  for (std::uint64_t p = 0; p < partitions; ++p) t.distinct_ += distinct[p];
  t.regions_ = SmartArray::from_values(regions, with_bits(options, 64));
  return t;
}

HashTable detail::build_table(const SmartArray& keys, const detail::TableSpec& spec, const ArrayOptions& options,
                              runtime::ThreadPool& pool) {
  return HashTableBuilder::build(keys, spec, options, pool);
}

HashTable HashTable::build(const SmartArray& keys, const ArrayOptions& options, bool with_rows, runtime::ThreadPool& pool) {
  detail::TableSpec spec;
  spec.with_rows = with_rows;
  return HashTableBuilder::build(keys, spec, options, pool);
}

Match HashTable::find(std::uint64_t key) const noexcept {
  std::uint64_t slot = not_found;
  locate(&key, 1, -1, &slot);
  if (slot == not_found) return {};
  return {slots_.get_unchecked(slot) & codec::value_mask(count_bits_), payload_.length() > 0 ? payload_.get_unchecked(slot) : 0};
}

// The fused probe of a batch: the slot of the key `ahead` places on is prefetched while this one is
// probed (hash probes are independent cache misses); a slot holds key and count in one B-bit value.
template <unsigned B>
void HashTable::locate_fused(const std::uint64_t* keys, std::uint64_t n, int node, std::uint64_t* out) const {
  const std::uint64_t* slots = slots_.replica(node < 0 ? slots_.local_replica_index() : slots_.replica_index_for_node(node));
  const std::uint64_t* regions = regions_.replica(node < 0 ? regions_.local_replica_index() : regions_.replica_index_for_node(node));
  const unsigned count_bits = count_bits_;
  const unsigned pbits = partition_bits_;
  const std::uint64_t mask = codec::value_mask(count_bits);
  const auto home = [&](std::uint64_t key, std::uint64_t& first, std::uint64_t& end) {
    const std::uint64_t hash = util::mix64(key);
    const std::uint64_t p = partition_of(hash, pbits);
    first = regions[p];
    end = regions[p + 1];
    return first + home_slot(hash, end - first);
  };
  constexpr std::uint64_t ahead = 16;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t first = 0, end = 0;
    if (i + ahead < n) __builtin_prefetch(slots + home(keys[i + ahead], first, end) * B / 64);
    out[i] = not_found;
    if (keys[i] > max_key_) continue;
    for (std::uint64_t s = home(keys[i], first, end);;) {
      const std::uint64_t entry = codec::get_padded<B>(slots, s);
      if ((entry & mask) == 0) break;
      if (entry >> count_bits == keys[i]) {
        out[i] = s;
        break;
      }
      s = s + 1 == end ? first : s + 1;
    }
  }
}

void HashTable::locate(const std::uint64_t* keys, std::uint64_t n, int node, std::uint64_t* out) const {
  if (size_ == 0) {
    std::fill(out, out + n, not_found);
    return;
  }
  if (fused_) {
    codec::with_bits(slots_.bits(), [&](auto b) { locate_fused<decltype(b)::value>(keys, n, node, out); });
    return;
  }
  // Split slots (keys near 2^64 with a count): the key is compared in its own 64-bit array.
  const std::uint64_t count_mask = codec::value_mask(count_bits_);
  for (std::uint64_t i = 0; i < n; ++i) {
    out[i] = not_found;
    if (keys[i] > max_key_) continue;
    const std::uint64_t hash = util::mix64(keys[i]);
    const std::uint64_t p = partition_of(hash, partition_bits_);
    const std::uint64_t region = regions_.get_unchecked(p);
    const std::uint64_t cap = regions_.get_unchecked(p + 1) - region;
    for (std::uint64_t s = home_slot(hash, cap);; s = s + 1 == cap ? 0 : s + 1) {
      if ((slots_.get_unchecked(region + s) & count_mask) == 0) break;
      if (wide_keys_.get_unchecked(region + s) == keys[i]) {
        out[i] = region + s;
        break;
      }
    }
  }
}

std::uint64_t HashTable::count_matches(const SmartArray& probe, runtime::ThreadPool& pool) const {
  if (size_ == 0 || probe.length() == 0) return 0;
  const std::uint64_t mask = codec::value_mask(count_bits_);
  return pool.parallel_reduce(
      0, probe.length(), std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi, const runtime::WorkerContext& ctx) {
        const std::uint64_t* slots = slots_.replica(slots_.replica_index_for_node(ctx.node));
        std::vector<std::uint64_t> found(detail::block_values);
        std::uint64_t total = 0;
        codec::with_bits(slots_.bits(), [&](auto b) {
          constexpr unsigned B = decltype(b)::value;
          detail::for_blocks(probe, lo, hi, [&](std::uint64_t, std::uint64_t c, const std::uint64_t* k) {
            locate(k, c, ctx.node, found.data());
            for (std::uint64_t i = 0; i < c; ++i) total += found[i] == not_found ? 0 : codec::get_padded<B>(slots, found[i]) & mask;
          });
        });
        return total;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; }, detail::over_rows(probe));
}

std::uint64_t HashTable::memory_bytes() const noexcept {
  return slots_.memory_bytes() + wide_keys_.memory_bytes() + payload_.memory_bytes() + rows_.memory_bytes() +
         regions_.memory_bytes();
}

}  // namespace smartarrays::collections
